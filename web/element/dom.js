// Tiny DOM builders. Text always goes in as text nodes (never markup), so any string that
// came from a config renders literally; attribute values are set with setAttribute.
// They build in the page's document, or in the one useDocument() gives: kvcalc bake draws the
// element's first render with the same code in Node, in a small document of its own
// (web/node/mini-dom.mjs), and writes it as the element's declarative shadow root.

export const SVG_NS = 'http://www.w3.org/2000/svg';
export const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';

let doc = globalThis.document;
let idPrefix = '';
let idCounter = 0;

// Builds in document d from now on; ids count again from 1, with prefix (a baked render's
// ids differ from the live ones that replace it in the same shadow root).
export function useDocument(d, prefix = '') {
  doc = d;
  idPrefix = prefix;
  idCounter = 0;
}

function build(el, attrs, children) {
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on') && typeof value === 'function') {
        el.addEventListener(name.slice(2), value);
      } else {
        el.setAttribute(name, value === true ? '' : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

// Appends children: strings and numbers as text, nodes as they are, arrays flattened.
export function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (typeof c === 'object') el.appendChild(c);  // a node
    else el.appendChild(doc.createTextNode(String(c)));
  }
  return el;
}

export function h(tag, attrs, ...children) {
  return build(doc.createElement(tag), attrs, children);
}

export function svg(tag, attrs, ...children) {
  return build(doc.createElementNS(SVG_NS, tag), attrs, children);
}

export function math(tag, attrs, ...children) {
  return build(doc.createElementNS(MATHML_NS, tag), attrs, children);
}

// Replaces all children of el.
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// Sets text only when it changed (keeps re-renders cheap and selection stable).
export function setText(el, text) {
  const s = String(text);
  if (el.textContent !== s) el.textContent = s;
}

// Saves a figure (text, or a promise of it) as kvcalc-MODEL.svg: a blob made in the page,
// no request (the "Download SVG" buttons).
export async function saveText(text, model) {
  const url = URL.createObjectURL(new Blob([await text], { type: 'image/svg+xml' }));
  const a = h('a', { href: url, download: `kvcalc-${model.replace(/[^A-Za-z0-9._-]+/g, '-')}.svg` });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

// Ids unique within the page, for label/for and aria-* references inside one shadow root.
export function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idPrefix}${idCounter}`;
}

// An element's content width (its box less its padding), in whole px.
export function contentWidth(el) {
  const cs = getComputedStyle(el);
  return Math.round(el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight));
}

// Calls redraw() when el's content width changes by more than a few pixels; width() is
// the last width seen. SVG pictures are drawn at their real width so their text keeps
// its size on a phone (a scaled viewBox would shrink it). A view first drawn before it was
// on the page is drawn again at its width once it is, in the same task, so no frame shows
// it at the guessed one: measure() reads the width (reading every view's before redrawing
// any costs one layout, not one each), then fit() redraws. fit(w) takes a width read
// elsewhere (a box el will have the width of, where el has none yet): a view is then drawn
// at its width the first time.
export function watchWidth(el, redraw, initial = 640) {
  let width = initial;
  let measured = 0;
  const use = (w) => {
    if (w > 0 && Math.abs(w - width) > 8) {
      width = w;
      redraw();
    }
  };
  // None where a first render is baked (Node): it is drawn at the initial width.
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver((entries) => use(Math.round(entries[0].contentRect.width))).observe(el);
  }
  return {
    width: () => width,
    measure() {
      measured = contentWidth(el);
    },
    fit: (w = measured) => use(w),
  };
}
