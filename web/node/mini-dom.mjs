// A small DOM, enough for the element's drawing code (web/element/drawing.js and the views
// it draws, through web/element/dom.js) to draw a first render in Node, and the HTML of what
// it drew: `kvcalc bake` writes that as the element's declarative shadow root. What the
// drawing code sets as a property that a page would show (an input's value, a select's
// choice, a radio's check) is written as the attribute a parser reads back: the baked
// controls show what the live ones will. Events are never sent (nothing runs at build time).

const HTML_NS = 'http://www.w3.org/1999/xhtml';
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\u00a0': '&nbsp;' };
const escapeText = (s) => s.replace(/[&<>\u00a0]/g, (c) => ESCAPES[c]);
const escapeAttribute = (s) => s.replace(/[&"\u00a0]/g, (c) => ESCAPES[c]);

class MiniNode {
  parentNode = null;

  get nextSibling() {
    const list = this.parentNode?.childNodes;
    return list ? list[list.indexOf(this) + 1] ?? null : null;
  }

  remove() {
    if (this.parentNode) this.parentNode.removeChild(this);
  }
}

class MiniText extends MiniNode {
  nodeType = 3;

  constructor(data) {
    super();
    this.data = data;
  }

  get textContent() { return this.data; }
  set textContent(v) { this.data = String(v); }
}

// The attributes a property stands for, as the drawing code uses them.
const REFLECTED = { id: 'id', className: 'class', title: 'title', max: 'max', min: 'min', step: 'step', type: 'type', name: 'name' };

class MiniElement extends MiniNode {
  nodeType = 1;
  childNodes = [];
  #attributes = new Map();

  constructor(namespaceURI, localName) {
    super();
    this.namespaceURI = namespaceURI;
    this.localName = localName;
  }

  get tagName() { return this.namespaceURI === HTML_NS ? this.localName.toUpperCase() : this.localName; }
  get children() { return this.childNodes.filter((n) => n.nodeType === 1); }
  get firstChild() { return this.childNodes[0] ?? null; }
  get lastChild() { return this.childNodes[this.childNodes.length - 1] ?? null; }
  get firstElementChild() { return this.children[0] ?? null; }

  getAttribute(name) { return this.#attributes.get(name) ?? null; }
  hasAttribute(name) { return this.#attributes.has(name); }
  setAttribute(name, value) { this.#attributes.set(name, String(value)); }
  removeAttribute(name) { this.#attributes.delete(name); }
  get attributeEntries() { return [...this.#attributes]; }

  get hidden() { return this.hasAttribute('hidden'); }
  set hidden(on) {
    if (on) this.setAttribute('hidden', '');
    else this.removeAttribute('hidden');
  }

  get classList() {
    const names = () => (this.getAttribute('class') ?? '').split(/\s+/).filter(Boolean);
    const set = (list) => this.setAttribute('class', list.join(' '));
    return {
      contains: (c) => names().includes(c),
      add: (...cs) => set([...names(), ...cs.filter((c) => !names().includes(c))]),
      remove: (...cs) => set(names().filter((c) => !cs.includes(c))),
      toggle: (c, on = !names().includes(c)) => {
        if (on) set([...names().filter((x) => x !== c), c]);
        else set(names().filter((x) => x !== c));
        return on;
      },
    };
  }

  // A control's value: an input's value attribute, a select's chosen option, a textarea's text.
  get value() {
    if (this.localName === 'select') {
      const options = this.querySelectorAll('option');
      const chosen = options.find((o) => o.hasAttribute('selected')) ?? options[0];
      return chosen ? chosen.value : '';
    }
    if (this.localName === 'textarea') return this.textContent;
    if (this.localName === 'option') return this.getAttribute('value') ?? this.textContent;
    return this.getAttribute('value') ?? '';
  }

  set value(v) {
    const text = String(v);
    if (this.localName === 'select') {
      const options = this.querySelectorAll('option');
      const chosen = options.find((o) => o.value === text);
      for (const o of options) o.selected = o === chosen;
    } else if (this.localName === 'textarea') {
      this.textContent = text;
    } else {
      this.setAttribute('value', text);
    }
  }

  get checked() { return this.hasAttribute('checked'); }
  set checked(on) {
    if (on) this.setAttribute('checked', '');
    else this.removeAttribute('checked');
  }

  get selected() { return this.hasAttribute('selected'); }
  set selected(on) {
    if (on) this.setAttribute('selected', '');
    else this.removeAttribute('selected');
  }

  get textContent() { return this.childNodes.map((n) => n.textContent).join(''); }
  set textContent(v) {
    this.replaceChildren();
    const text = String(v);
    if (text) this.appendChild(new MiniText(text));
  }

  appendChild(node) {
    node.remove();
    node.parentNode = this;
    this.childNodes.push(node);
    return node;
  }

  append(...nodes) {
    for (const n of nodes) this.appendChild(typeof n === 'object' ? n : new MiniText(String(n)));
  }

  removeChild(node) {
    const i = this.childNodes.indexOf(node);
    if (i >= 0) this.childNodes.splice(i, 1);
    node.parentNode = null;
    return node;
  }

  replaceChildren(...nodes) {
    for (const n of [...this.childNodes]) this.removeChild(n);
    this.append(...nodes);
  }

  before(...nodes) {
    const parent = this.parentNode;
    for (const n of nodes) {
      n.remove();
      n.parentNode = parent;
      parent.childNodes.splice(parent.childNodes.indexOf(this), 0, n);
    }
  }

  contains(node) {
    for (let n = node; n; n = n.parentNode) if (n === this) return true;
    return false;
  }

  // No event is sent at build time: listeners are not kept.
  addEventListener() {}
  removeEventListener() {}

  // Nothing has the focus at build time.
  getRootNode() { return { activeElement: null }; }

  // Selectors of one compound each, as the drawing code asks: a tag, classes, or both
  // ("th", ".term.active", "option").
  matches(selector) {
    const m = /^([a-z][a-z0-9-]*)?((?:\.[\w-]+)*)$/i.exec(selector.trim());
    if (!m) throw new Error(`mini-dom: selector ${JSON.stringify(selector)} is not one it reads`);
    if (m[1] && m[1].toLowerCase() !== this.localName) return false;
    const classes = m[2].split('.').filter(Boolean);
    return classes.every((c) => this.classList.contains(c));
  }

  querySelectorAll(selector) {
    const found = [];
    const walk = (el) => {
      for (const c of el.children) {
        if (c.matches(selector)) found.push(c);
        walk(c);
      }
    };
    walk(this);
    return found;
  }

  querySelector(selector) { return this.querySelectorAll(selector)[0] ?? null; }

  closest(selector) {
    for (let n = this; n && n.nodeType === 1; n = n.parentNode) if (n.matches(selector)) return n;
    return null;
  }
}

for (const [prop, attribute] of Object.entries(REFLECTED)) {
  Object.defineProperty(MiniElement.prototype, prop, {
    get() { return this.getAttribute(attribute) ?? ''; },
    set(v) { this.setAttribute(attribute, v); },
  });
}

/** A document whose nodes the element's dom.js builds (useDocument). */
export const miniDocument = {
  createElement: (tag) => new MiniElement(HTML_NS, tag.toLowerCase()),
  createElementNS: (ns, tag) => new MiniElement(ns, tag),
  createTextNode: (text) => new MiniText(String(text)),
};

/**
 * The HTML of a node and what it holds, as the HTML parser reads it back: void elements
 * without an end tag, every other element with one (in SVG and MathML too), text and
 * attribute values escaped; a hidden element's content left out (it shows nothing, and the
 * live element draws it when it shows it).
 */
export function serialize(node) {
  if (node.nodeType === 3) return escapeText(node.data);
  const attrs = node.attributeEntries.map(([k, v]) => (v === '' && node.namespaceURI === HTML_NS ? ` ${k}` : ` ${k}="${escapeAttribute(v)}"`)).join('');
  const open = `<${node.localName}${attrs}>`;
  if (node.namespaceURI === HTML_NS && VOID.has(node.localName)) return open;
  const inner = node.hasAttribute('hidden') ? '' : node.childNodes.map(serialize).join('');
  return `${open}${inner}</${node.localName}>`;
}
