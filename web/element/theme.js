// Light or dark: the `theme` attribute when it says which; else the page's own dark mode,
// wherever a docs generator marks it, on the body (closer to the content) or the root: a
// `dark` or `light` class (VitePress, Tailwind, Hugo themes), `data-theme` (Docusaurus,
// Starlight and Pico on the root; furo on the body, where `auto` means the system's),
// `data-md-color-scheme` (MkDocs Material: `slate` is dark, `default` light); else what the
// page declares (`color-scheme: dark` or `light`, inherited); else the colour the page paints
// behind the element (its nearest opaque background, dark when its luminance is below half);
// else the reader's system preference. One watcher per page follows every live element.

const live = new Set();
let system;

// What one element's marks say: 'dark', 'light', or undefined.
function marked(el) {
  if (!el) return undefined;
  const theme = el.getAttribute('data-theme');
  if (theme === 'dark' || theme === 'light') return theme;
  const material = el.getAttribute('data-md-color-scheme');
  if (material === 'slate') return 'dark';
  if (material === 'default') return 'light';
  if (el.classList.contains('dark')) return 'dark';
  if (el.classList.contains('light')) return 'light';
  return undefined;
}

// The nearest opaque background behind host, as dark (true), light (false) or unknown.
function backgroundIsDark(host) {
  for (let el = host.parentElement; el; el = el.parentElement) {
    const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(getComputedStyle(el).backgroundColor);
    if (!m || (m[4] !== undefined && Number(m[4]) < 0.5)) continue;
    // Relative luminance (sRGB), as WCAG defines it.
    const [r, g, b] = [m[1], m[2], m[3]].map((c) => {
      const v = Number(c) / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5 ** 2.2;
  }
  return undefined;
}

export function isDark(host) {
  const root = document.documentElement;
  const forced = host.getAttribute('theme');
  if (forced === 'dark' || forced === 'light') return forced === 'dark';
  const said = marked(document.body) ?? marked(root);
  if (said) return said === 'dark';
  const scheme = getComputedStyle(host.parentElement ?? root).colorScheme;  // "light dark": either
  if (scheme === 'dark' || scheme === 'light') return scheme === 'dark';
  return backgroundIsDark(host) ?? system.matches;
}

// Sets the host's dark state (setState(name, on): the element's custom states) now and
// whenever the page or the system changes; forget() stops following.
const WATCHED = { attributes: true, attributeFilter: ['class', 'data-theme', 'data-md-color-scheme', 'style'] };
export function followTheme(host, setState) {
  if (!system) {
    system = matchMedia('(prefers-color-scheme: dark)');
    const all = () => live.forEach((f) => f());
    system.addEventListener('change', all);
    const watcher = new MutationObserver(all);
    watcher.observe(document.documentElement, WATCHED);
    if (document.body) watcher.observe(document.body, WATCHED);
  }
  const apply = () => setState('dark', isDark(host));
  live.add(apply);
  apply();
  return { apply, forget: () => live.delete(apply) };
}
