// The element's reference, generated from the one place it is documented: the doc comment at
// the top of web/element/element.js (@summary, @tag, @attr, @prop, @event, @part, @cssstate, @cssprop, in the
// manner of custom-elements documentation headers). A tag's text may continue on the lines
// after it; `code` spans become <code>. Everything is escaped.

import { escapeText, inlineCode } from './html.mjs';

const TAGS = ['summary', 'tag', 'attr', 'prop', 'event', 'part', 'cssstate', 'cssprop'];

// Reads the header comment: { intro: [paragraph text], summary, tag, attr: [{name, type, text}], ... }
export function parseElementHeader(source, file = 'web/element/element.js') {
  const m = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source);
  if (!m) throw new Error(`${file}: no documentation comment (/** ... */) at the top of the file`);
  const lines = m[1].split('\n').map((l) => l.replace(/^\s*\*\s?/, '').replace(/\s+$/, ''));
  const doc = { intro: [], summary: '', tag: '' };
  for (const t of TAGS.slice(2)) doc[t] = [];
  let current = null;      // the tag entry that continuation lines extend
  let paragraph = [];
  const endParagraph = () => {
    if (paragraph.length) doc.intro.push(paragraph.join(' '));
    paragraph = [];
  };
  for (const line of lines) {
    const tag = /^@(\w+)\s*(.*)$/.exec(line);
    if (tag) {
      endParagraph();
      const [, name, rest] = tag;
      if (!TAGS.includes(name)) throw new Error(`${file}: unknown doc tag @${name}`);
      if (name === 'summary' || name === 'tag') {
        doc[name] = rest;
        current = { set: (more) => { doc[name] += ` ${more}`; } };
        continue;
      }
      // @prop {type} name - text   |   @attr name - text
      const e = /^(?:\{([^}]*)\}\s*)?(\S+)\s*(?:-\s*)?([\s\S]*)$/.exec(rest);
      if (!e) throw new Error(`${file}: cannot read "@${name} ${rest}"`);
      const entry = { name: e[2], type: e[1] || '', text: e[3] };
      doc[name].push(entry);
      current = { set: (more) => { entry.text += ` ${more}`; } };
      continue;
    }
    if (current) {
      if (line === '') current = null;
      else current.set(line.trim());
      continue;
    }
    if (line === '') endParagraph();
    else paragraph.push(line.trim());
  }
  endParagraph();
  if (doc.attr.length === 0) throw new Error(`${file}: the header documents no @attr; the reference would be empty`);
  return doc;
}

function table(caption, head, rows, id) {
  return `<div class="table-scroll wide" tabindex="0" role="region" aria-labelledby="${id}-caption">
<table class="ref-table">
<caption id="${id}-caption">${escapeText(caption)}</caption>
<thead><tr>${head.map((h) => `<th scope="col">${escapeText(h)}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</div>`;
}

function row(name, ...cells) {
  return `<tr><th scope="row"><code>${escapeText(name)}</code></th>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

// The reference as HTML sections (h2 each), to go inside the reference page's <main>.
export function renderReference(doc, sourceName = 'web/element/element.js') {
  const out = [];
  out.push(`<p class="lede">${inlineCode(doc.summary)}</p>`);
  for (const p of doc.intro) out.push(`<p>${inlineCode(p)}</p>`);
  out.push(`<p class="muted">Generated when the site is built, from the documentation comment at the top of <code>${escapeText(sourceName)}</code>; that comment is the one place the element's interface is written down.</p>`);

  out.push('<h2 id="attributes">Attributes</h2>');
  out.push('<p>Every attribute is optional. Properties of the same name in camelCase mirror them (<code>el.kvDtype = "fp8"</code> sets <code>kv-dtype="fp8"</code>). An invalid value is reported inside the element, naming the attribute, and is not used.</p>');
  out.push(table(`Attributes of <${doc.tag || 'kv-calc'}>`, ['Attribute', 'Meaning'],
    doc.attr.map((a) => row(a.name, inlineCode(a.text))), 'ref-attr'));

  if (doc.prop.length) {
    out.push('<h2 id="properties">Properties</h2>');
    out.push(table('Properties beyond the mirrored attributes', ['Property', 'Type', 'Meaning'],
      doc.prop.map((p) => row(p.name, p.type ? `<code>${escapeText(p.type)}</code>` : '', inlineCode(p.text))), 'ref-prop'));
  }

  out.push('<h2 id="events">Events</h2>');
  out.push(doc.event.length
    ? table('Events', ['Event', 'When and what it carries'], doc.event.map((e) => row(e.name, inlineCode(e.text))), 'ref-event')
    : '<p>The element fires no events.</p>');

  out.push('<h2 id="parts">Parts</h2>');
  out.push('<p>Style the inside of the element from your own style sheet with <code>kv-calc::part(name)</code>.</p>');
  out.push(table('Shadow parts', ['Part', 'What it is'], doc.part.map((p) => row(p.name, inlineCode(p.text))), 'ref-part'));

  if (doc.cssstate.length) {
    out.push('<h2 id="custom-states">Custom states</h2>');
    out.push('<p>Match the element\'s state from your own style sheet with <code>kv-calc:state(name)</code>.</p>');
    out.push(table('Custom states', ['State', 'When it holds'], doc.cssstate.map((c) => row(c.name, inlineCode(c.text))), 'ref-cssstate'));
  }

  out.push('<h2 id="custom-properties">Custom properties</h2>');
  out.push('<p>Set these on the element or any ancestor; each has a default for light and for dark colour schemes.</p>');
  out.push(table('CSS custom properties', ['Property', 'What it sets'], doc.cssprop.map((c) => row(c.name, inlineCode(c.text))), 'ref-cssprop'));
  return out.join('\n');
}

// For the tests: the names the reference must list.
export function referenceNames(doc) {
  return Object.fromEntries(['attr', 'prop', 'event', 'part', 'cssstate', 'cssprop'].map((k) => [k, doc[k].map((e) => e.name)]));
}

