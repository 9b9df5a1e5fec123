// The first render `kvcalc bake` wrote into an element's declarative shadow root (drawn by
// drawing.js in Node), as the live element finds it and takes it over (live.js): its style
// sheet's link, its base and sections, and what a reader typed into its controls before the
// element was live, which the live controls then get.

const SECTION_NAMES = ['formula', 'chart', 'table', 'gqa', 'check'];

// { link, base, sections: {name: node} } of the baked render in shadow, or null.
// (A shadow root is no element: `:scope >` selects nothing under it, hence its children.)
export function bakedRender(shadow) {
  const base = [...shadow.children].find((c) => c.matches('.kv[data-kvcalc-baked]'));
  if (!base) return null;
  const sections = {};
  for (const node of base.querySelectorAll(':scope > section.view')) {
    const name = SECTION_NAMES.find((n) => node.classList.contains(n));
    if (name) sections[name] = node;
  }
  return { link: [...shadow.children].find((c) => c.matches('link[rel~="stylesheet"]')) ?? null, base, sections };
}

// Resolves to the element's style sheet: the baked render's, once its link has loaded, else
// (no baked render, or its file did not load) the styles module's, adopted by the live element.
export async function styleSheet(baked) {
  if (baked?.link && await linkLoaded(baked.link)) return baked.link.sheet;
  return (await import('./styles.js')).elementSheet();
}

// A sheet with rules: a failed request leaves an empty one, or one the page may not read
// (refused: not text/css); another origin's is never readable, and taken as loaded.
function usable(sheet) {
  try {
    return sheet.cssRules.length > 0;
  } catch {
    return new URL(sheet.href, location.href).origin !== location.origin;
  }
}

function linkLoaded(link) {
  if (link.sheet) return usable(link.sheet);
  // Not there: its request failed (and is over), or it is still loading (a browser that
  // does not wait for a style sheet in the body before it goes on parsing).
  if (performance.getEntriesByName(link.href).some((e) => e.responseEnd > 0)) return false;
  return new Promise((ok) => {
    link.addEventListener('load', () => ok(Boolean(link.sheet) && usable(link.sheet)), { once: true });
    link.addEventListener('error', () => ok(false), { once: true });
  });
}

// A control's name in a baked render and in the live one: its name attribute (a radio
// button's group name is made per element: its value), else its part.
function keyOf(el) {
  if (el.type === 'radio') return `radio ${el.value}`;
  const name = el.getAttribute('name');
  if (name) return `name ${name}`;
  const part = el.getAttribute('part');
  return part ? `part ${part}` : null;
}
const CONTROLS = 'input, select, textarea, details';

// What the reader changed in the baked render's controls (base) before the element went
// live, and the control they are in (shadow's focus), or null when nothing.
export function readerInput(base, shadow) {
  const changed = [];
  for (const el of base.querySelectorAll(CONTROLS)) {
    const key = keyOf(el);
    if (!key) continue;
    if (el.localName === 'details') {
      if (el.open) changed.push({ key, open: true });
    } else if (el.type === 'radio' || el.type === 'checkbox') {
      if (el.checked !== el.defaultChecked) changed.push({ key, checked: el.checked });
    } else if (el.localName === 'select') {
      // Its default: the option written selected, else the first (HTML's rule, and the baked
      // render's: drawing.js chooses the first option without writing it selected).
      const chosen = [...el.options].find((o) => o.defaultSelected) ?? el.options[0];
      if (el.selectedOptions[0] && el.selectedOptions[0] !== chosen) changed.push({ key, value: el.value });
    } else if (el.value !== el.defaultValue) {
      changed.push({ key, value: el.value });
    }
  }
  const active = shadow.activeElement;
  const focus = active && base.contains(active) && keyOf(active)
    ? { key: keyOf(active), start: active.selectionStart ?? null, end: active.selectionEnd ?? null } : null;
  return changed.length || focus ? { changed, focus } : null;
}

// Gives the live controls under base (less those inside skip: baked sections still in place)
// what the reader typed into the baked ones: each value set and its input or change event
// sent, as if typed there (the live element applies it), then the focus where it was.
export function restoreInput(base, { changed, focus }, skip = []) {
  const live = [...base.querySelectorAll(CONTROLS)].filter((el) => !skip.some((s) => s.contains(el)));
  const find = (key) => live.find((el) => keyOf(el) === key);
  for (const c of changed) {
    const el = find(c.key);
    if (!el) continue;
    if (c.open) {
      el.open = true;  // its toggle event loads the paste panel
    } else if (c.checked !== undefined) {
      el.checked = c.checked;
      el.dispatchEvent(new Event('change', { bubbles: true }));
    } else {
      el.value = c.value;
      el.dispatchEvent(new Event(el.localName === 'select' ? 'change' : 'input', { bubbles: true }));
    }
  }
  const el = focus && find(focus.key);
  if (!el) return;
  el.focus({ preventScroll: true });
  if (focus.start !== null) {
    try {
      el.setSelectionRange(focus.start, focus.end);
    } catch {
      // a control without a text selection
    }
  }
}
