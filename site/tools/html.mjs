// Small HTML helpers for the site build: escaping (every text the build writes from another
// tool or file goes through these) and headings' ids.

import { decodeEntities, escapeHtml } from '../../web/api/html-text.mjs';

const TEXT_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function escapeText(s) {
  return String(s).replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]);
}

export const escapeAttr = escapeHtml;

// Text with `code` spans (the element's doc comments use them) as escaped HTML.
export function inlineCode(s) {
  return String(s).split('`').map((part, i) => (i % 2 ? `<code>${escapeText(part)}</code>` : escapeText(part))).join('');
}

// "Context against the pool" -> "context-against-the-pool"
export function slug(text) {
  return decodeEntities(text.replace(/<[^>]*>/g, '')).toLowerCase()
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'section';
}
