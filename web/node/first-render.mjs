// The element's first render, for `kvcalc bake`: drawn by the element's own code
// (web/element/drawing.js and its views, the same that draw the live element) in a small
// document (mini-dom.mjs), and written as the element's declarative shadow root with a link
// to the element's style sheet. In the page it shows at first paint, laid out as the live
// element will be (the same nodes under the same style sheet), so the live element takes
// it over without moving the page; a reader without JavaScript sees it too.

import { useDocument } from '../element/dom.js';
import { Drawing, usesLlamacpp } from '../element/drawing.js';
import { Engine } from '../element/engine.js';
import { Formatter } from '../element/format.js';
import { SECTIONS, loadSections } from '../element/sections.js';
import { escapeHtml } from '../api/html-text.mjs';
import { miniDocument, serialize } from './mini-dom.mjs';

const engines = new WeakMap();  // the loaded API -> its Engine (with its memo of results)
const noAction = { set() {}, redraw() {}, openConfig() {} };

/**
 * The element's declarative shadow root as HTML: `<template shadowrootmode="open">`, the
 * link to the style sheet (stylesheet: its href from the page), and the first render of
 * the element's view at its attributes, its base marked data-kvcalc-baked="mark".
 * kv: the loaded API; values: the attributes as state.js reads them (no error among them);
 * inline: the inline config's text, or null; lang: the page's language (its numbers are
 * written as the live element writes them there). Answers { html, messages }: messages are
 * what the live element would say above its figures (an input it does not apply), which a
 * bake refuses.
 * @returns {Promise<{html: string, messages: string[]}>}
 */
export async function shadowRootHtml(kv, { values, inline = null, lang = 'en', stylesheet, mark }) {
  const sections = SECTIONS[values.view ?? 'formula'];
  await loadSections(usesLlamacpp(values, [inline]) ? [...sections, 'llamacpp'] : sections);
  let e = engines.get(kv);
  if (!e) {
    e = new Engine(kv);
    engines.set(kv, e);
  }
  // The ids of a baked render differ from the live ones, which replace it in the same shadow root.
  useDocument(miniDocument, 'b');
  try {
    const drawing = new Drawing(noAction);
    // As the live element's first render: the model select lists the model shown (its
    // slices fill it); every section drawn, the pictures at the width it guesses first, in
    // the boxes the style sheet gives them.
    const drawn = drawing.draw(e, new Formatter(lang), { values, errors: [], source: null, pasted: null, inline },
      { pending: [], presetsReady: false });
    const messages = drawn ? drawn.messages : [drawing.error.textContent];
    drawing.base.setAttribute('data-kvcalc-baked', mark);
    return {
      html: `<template shadowrootmode="open"><link rel="stylesheet" href="${escapeHtml(stylesheet)}">${serialize(drawing.base)}</template>`,
      messages,
    };
  } finally {
    useDocument(globalThis.document);
  }
}
