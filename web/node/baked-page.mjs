// What a baked page needs beside its elements' markup: the element's style sheet, which
// each baked render links (where the page finds it, and the file itself), and the page's
// language (the baked figures are written as the live element writes them there).
//
// The style sheet a page links, in this order: the href a caller gives (a build plugin
// that knows where it put the file); kvcalc.css beside the page's own
// <script src=".../kvcalc.js"> (a site that copies the package's dist/, as the docs
// recipes do: the file is in it); else kvcalc.css at the root of the baked folder, which
// bakeSite writes (a bundled site, whose kvcalc.js has another name), linked by the path
// the site's own files use (an absolute /base/... when the page has such links, so that a
// page served without its trailing slash finds it too), else relative to the page.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ELEMENT_CSS } from '../element/styles.js';

/** The style sheet's file name, in dist/ and at the root of a baked folder. */
export const STYLESHEET = 'kvcalc.css';

/** The element's style sheet (web/element/styles.js), as dist/kvcalc.css holds it. */
export const stylesheetText = () => `${ELEMENT_CSS.trim()}\n`;

const attributeValue = (m) => m[1] ?? m[2] ?? m[3];
const urlsIn = (html, tag, attribute) => [...html.matchAll(new RegExp(`<${tag}\\b[^>]*?\\s${attribute}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'gi'))]
  .map(attributeValue);

/** The language of a page (its <html lang>), 'en' when it says none. */
export function pageLang(html) {
  return /<html\b[^>]*?\slang\s*=\s*["']?([A-Za-z0-9-]+)/i.exec(html)?.[1] ?? 'en';
}

// The file a link of the page names, under root (null: not a file of this folder).
function fileOf(href, file, root) {
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(href)) return null;
  const path = decodeURIComponent(href.replace(/[?#].*$/, ''));
  return path.startsWith('/') ? join(root, path) : resolve(dirname(file), path);
}

// The address prefix under which the folder is served, as the page's own absolute links
// show it ("/", "/project/"), or null when it has none that name a file of the folder.
function sitePrefix(html, root) {
  const links = [...urlsIn(html, 'script', 'src'), ...urlsIn(html, 'link', 'href'), ...urlsIn(html, 'img', 'src')]
    .filter((u) => /^\/(?!\/)/.test(u)).map((u) => decodeURIComponent(u.replace(/[?#].*$/, '')));
  for (const path of links) {
    const parts = path.split('/');
    for (let n = 1; n < parts.length; n += 1) {
      const prefix = `${parts.slice(0, n).join('/')}/`;
      if (existsSync(join(root, path.slice(prefix.length)))) return prefix;
    }
  }
  return null;
}

/**
 * Where the page's baked renders link the style sheet from: { href, rootCopy } (rootCopy:
 * the file is the one at the root of the folder, which the caller writes), or null when
 * nothing says (no href given, no kvcalc.js script, no folder).
 * @param {string} html  the page
 * @param {{file?: string, root?: string, stylesheet?: string}} where  the page's file, the
 *   folder baked (bakeSite), an href the caller gives
 */
export function stylesheetFor(html, { file, root, stylesheet } = {}) {
  if (stylesheet) return { href: stylesheet, rootCopy: false };
  const script = urlsIn(html, 'script', 'src').find((u) => /(^|\/)kvcalc\.js([?#]|$)/.test(u));
  if (script) {
    const href = script.replace(/kvcalc\.js([?#].*)?$/, STYLESHEET);
    // A dist/ copied before the package had the file: the root's copy instead.
    const there = root && file ? fileOf(href, file, root) : null;
    if (!there || existsSync(there)) return { href, rootCopy: false };
  }
  if (!root || !file) return null;
  const prefix = sitePrefix(html, root);
  const href = prefix ?? relative(dirname(resolve(file)), join(resolve(root), STYLESHEET)).split(sep).join('/');
  return { href: prefix ? `${prefix}${STYLESHEET}` : href, rootCopy: true };
}

/**
 * Writes the style sheet at the root of a baked folder (unless it is there as this version
 * wrote it); refuses to replace a kvcalc.css that is not the element's. Returns its path.
 * @param {string} root
 */
export function writeStylesheet(root) {
  const path = join(root, STYLESHEET);
  const text = stylesheetText();
  if (existsSync(path)) {
    const old = readFileSync(path, 'utf8');
    if (old === text) return path;
    if (!old.startsWith(text.slice(0, 40))) {
      throw new Error(`${path} is there and is not kvcalc's style sheet: the baked elements link ${STYLESHEET} at the folder's root; move that file`);
    }
  }
  writeFileSync(path, text);
  return path;
}
