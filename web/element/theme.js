// Light or dark: the `theme` attribute when it says which; else the page's own dark mode,
// as documentation sites switch it on the root element (a `dark` or `light` class, as
// VitePress and Tailwind do, or `data-theme`, as Docusaurus and Pico do) or declare it
// (`color-scheme: dark` or `light`, inherited); else the reader's system preference. One
// watcher per page follows every live element.

const live = new Set();
let system;

export function isDark(host) {
  const root = document.documentElement;
  const scheme = getComputedStyle(host.parentElement ?? root).colorScheme;  // "light dark": either
  const said = `${host.getAttribute('theme')} ${root.getAttribute('data-theme')} ${root.className} ${
    scheme.includes(' ') ? '' : scheme}`.match(/(?:^|\s)(dark|light)(?:\s|$)/);
  return said ? said[1] === 'dark' : system.matches;
}

// Sets the host's dark state (setState(name, on): the element's custom states) now and
// whenever the page or the system changes; forget() stops following.
export function followTheme(host, setState) {
  if (!system) {
    system = matchMedia('(prefers-color-scheme: dark)');
    const all = () => live.forEach((f) => f());
    system.addEventListener('change', all);
    new MutationObserver(all).observe(document.documentElement, { attributes: true, attributeFilter: ['class', 'data-theme', 'style'] });
  }
  const apply = () => setState('dark', isDark(host));
  live.add(apply);
  apply();
  return { apply, forget: () => live.delete(apply) };
}
