// kvcalc/bake: the baked content of every <kv-calc> of a built HTML page, computed by the
// core (the same wasm the element runs) from the element's own attributes and inline config:
// the element's first render, drawn by the element's own code and written as its
// declarative shadow root (first-render.mjs), which links the element's style sheet
// (baked-page.mjs says where it is), and the figures in words as its light-DOM fallback. A
// reader sees the calculator at first paint, laid out as the live element will be, so
// nothing moves when it goes live; search engines and readers without JavaScript see the
// figures too. For `npx kvcalc bake` (dist/cli.mjs) and for build plugins.
//
// The elements are read as a browser reads the page (page-elements.mjs, with an HTML parser):
// `<kv-calc` in an attribute, a comment, a script or a code block is no element, and only an
// element's content is rewritten, every other byte of the page kept as written.
// Which elements it fills: an empty one (white space, a `<!-- fallback -->` marker and an
// inline `<script type="application/json">` config are all "empty"), and one it baked before
// (its fallback carries data-kvcalc-baked="VERSION"). Content an author wrote is left alone
// unless { force: true }. Baking what is already baked with the same figures changes nothing.

import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { load, wasmUrl, KvCalcError } from '../kvcalc.js';
import { ATTRIBUTES, DEFAULT_MODEL, attributeError, hostName, isLlamacpp } from '../element/state.js';
import { Formatter } from '../element/format.js';
import { sizeOptions } from '../element/drawing.js';
import { escapeHtml as escape, parseAttributes } from '../api/html-text.mjs';
import { htmlFiles, writeWhole } from './site-files.mjs';
import { shadowRootHtml } from './first-render.mjs';
import { pageLang, stylesheetFor, stylesheetText, writeStylesheet } from './baked-page.mjs';
import { PageError, endedEarly, mentionsText, pageElements, readContent } from './page-elements.mjs';

export { parseAttributes, htmlFiles, writeWhole, writeStylesheet, stylesheetText };

/** The package version the fallbacks are marked with. */
export const VERSION = '0.1.0';

// The element's table columns, and its context when an attribute gives none.
const TABLE_CONTEXTS = [4096, 32768, 131072];
const MARK = `data-kvcalc-baked="${VERSION}"`;
const fmt = new Formatter('en');

// An error of one attribute (or the inline config): the bake of that file stops there.
class BakeError extends Error {
  constructor(attribute, message) {
    super(message);
    this.attribute = attribute;
  }
}

let api = null;
async function kv() {
  api ??= load({ wasmBinary: readFileSync(wasmUrl) });
  return api;
}

// The element's attributes read as the element reads them (web/element/state.js): a bad
// value is an error naming the attribute, never a default.
function readState(attrs) {
  const values = {};
  for (const [name, { prop, read }] of Object.entries(ATTRIBUTES)) {
    if (attrs[name] === undefined) continue;
    const r = read(attrs[name]);
    if (r.error) throw new BakeError(name, `${name}: ${r.error}`);
    values[prop] = r.value;
  }
  return values;
}

// A core call; its KvCalcError names the attribute the option came from (else `what`: the
// model or models attribute, or the inline config), in the attribute's terms.
function coreCall(fn, what) {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof KvCalcError)) throw e;
    const { attribute = what, message } = attributeError(e);
    // The core's words for an id it does not know point at the API's presets(): here it is an
    // attribute's preset id (a config of one's own goes inside the element).
    const unknown = e.code === 'unknown_preset' && /("(?:[^"\\]|\\.)*") is neither config JSON nor a bundled preset id/.exec(message);
    if (unknown) {
      const inline = attribute === 'model' ? '; a config of your own goes in a <script type="application/json"> inside the element' : '';
      throw new BakeError(attribute, `${attribute}: ${unknown[1]} is not a bundled preset id (npx kvcalc presets lists them${inline})`);
    }
    throw new BakeError(attribute, `${attribute}: ${message}`);
  }
}

const data = (n, text) => `<data value="${n}">${escape(text)}</data>`;
const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
// The size() options of the element's attributes for a config, as the element takes them
// (its engine: the attribute's, or llama.cpp's for a GGUF file).
const optionsOf = (s, config) => sizeOptions(s, config).options;
// The options a table or a check takes from them: not the batch (nor, for a table, TP or the
// context, its columns).
const without = (o, names) => Object.fromEntries(Object.entries(o).filter(([k]) => !names.includes(k)));

// llama.cpp's allocation in words: the host, its context and slots, each memory object.
function llamacppText(r) {
  const a = r.llamacpp;
  const objects = a.memory.map((m) => `the ${m.cache} ${m.object === 'llama_memory_recurrent' ? 'state' : 'cache'} ` +
    `${fmt.binary(m.bytes)} (${fmt.int(m.cells)} ${m.cells === 1 ? 'cell' : 'cells'}${m.streams > 1 ? ` × ${fmt.int(m.streams)} streams` : ''}, ` +
    `${fmt.int(m.layers)} layers)`);
  return `${escape(r.model)}: ${escape(hostName(a.host))} allocates ${data(a.bytes, fmt.bytesBoth(a.bytes))} of KV cache for a context (-c) of ` +
    `${escape(fmt.tokens(a.nCtxRequested))} and ${escape(fmt.int(a.nSeqMax))} ${a.nSeqMax === 1 ? 'slot' : 'slots'}, K ${escape(a.cacheTypeK)} ` +
    `and V ${escape(a.cacheTypeV)}: ${escape(objects.join(', '))}. A token costs ${data(r.bytesPerToken, fmt.bytes(r.bytesPerToken))} in every layer.`;
}

function formulaHtml(k, config, s, what) {
  const r = coreCall(() => k.size(config, optionsOf(s, config)), what);
  if (r.llamacpp) return `<p class="fallback" ${MARK}>${llamacppText(r)}</p>`;
  const perSequence = r[`sequenceBytes${r.accounting[0].toUpperCase()}${r.accounting.slice(1)}`];
  let text = `${escape(r.model)} keeps ${data(r.bytesPerToken, fmt.bytes(r.bytesPerToken))} of KV cache per token (${escape(r.kvDtype)}) ` +
    `and ${data(perSequence, fmt.bytesBoth(perSequence))} for one sequence of ${escape(fmt.tokens(r.context))} (${escape(r.accounting)} accounting).`;
  if (r.stateBytes > 0) text += ` That includes a fixed state of ${escape(fmt.bytesBoth(r.stateBytes))} per sequence.`;
  if (r.batch > 1) text += ` A batch of ${escape(fmt.int(r.batch))}: ${data(r.kvBytes, fmt.bytesBoth(r.kvBytes))}.`;
  return `<p class="fallback" ${MARK}>${text}</p>`;
}

function gqaHtml(k, config, s, what) {
  const r = coreCall(() => k.size(config, optionsOf(s, config)), what);
  const kvHeads = [...new Set(r.groups.filter((g) => g.kvHeads).map((g) => g.kvHeads.value))];
  const mla = r.groups.some((g) => g.kind === 'mla');
  const heads = mla
    ? `caches one latent per layer shared by its ${fmt.int(r.queryHeads.value)} query heads`
    : `has ${fmt.int(r.queryHeads.value)} query heads on ${kvHeads.map((n) => fmt.int(n)).join(' / ')} KV heads`;
  return `<p class="fallback" ${MARK}>${escape(r.model)} ${escape(heads)}: ${data(r.bytesPerToken, fmt.bytes(r.bytesPerToken))} per token.</p>`;
}

// The table's rows: the inline config, else the models attribute, else every bundled preset
// (as the element does).
function tableHtml(k, config, s, what, inline) {
  const models = inline ? [config] : s.models ?? k.presets().map((p) => p.id);
  const contexts = [...new Set([...TABLE_CONTEXTS, ...(s.context ? [s.context] : [])])].sort((a, b) => a - b);
  const options = without(optionsOf(s, inline ? config : null), ['context', 'batch', 'tp']);
  const t = coreCall(() => k.table(models, { ...options, contexts, format: 'html' }), s.models ? 'models' : what);
  if (!/<table[\s>]/.test(t.text)) throw new Error(`the core's table printed no <table>: ${String(t.text).slice(0, 200)}`);
  return `<div class="fallback-table" ${MARK}>\n${t.text.trim()}\n</div>`;
}

function checkHtml(k, config, s, what) {
  const options = optionsOf(s, config);
  // llama.cpp's pool is the cache its context and slots allocate; the others' is an attribute.
  const llama = isLlamacpp(options.engine);
  for (const name of llama ? ['max-context'] : ['pool-tokens', 'max-context']) {
    if (s[ATTRIBUTES[name].prop] === undefined) {
      throw new BakeError(name, `${name}: a check view needs the ${llama ? 'max-context attribute' : 'pool-tokens and max-context attributes'}`);
    }
  }
  const c = coreCall(() => k.check(config, llama ? { ...without(options, ['batch']), maxContext: s.maxContext }
    : defined({ maxContext: s.maxContext, poolTokens: s.poolTokens, kvDtype: s.kvDtype, tp: s.tp })), what);
  const verdict = c.fits
    ? `Fits: one ${fmt.int(c.maxContext)}-token request fits the pool of ${fmt.tokens(c.poolTokens)}`
    : `Does not fit: one ${fmt.int(c.maxContext)}-token request needs more than the pool of ${fmt.tokens(c.poolTokens)}`;
  return `<p class="fallback" ${MARK}><strong>${escape(verdict)}</strong> (max concurrency ${escape(fmt.ratio(c.maxConcurrency))}). ` +
    `Safe max context: ${data(c.maxSafeContext, fmt.int(c.maxSafeContext))} tokens.</p>`;
}

// view="all": the formula's sentence (the first thing the element shows), then the check's
// verdict when the element states a pool (llama.cpp's is its cache) and a context.
function allHtml(k, config, s, what) {
  const parts = [formulaHtml(k, config, s, what)];
  const pool = s.poolTokens !== undefined || isLlamacpp(optionsOf(s, config).engine);
  if (pool && s.maxContext !== undefined) parts.push(checkHtml(k, config, s, what));
  return parts.join('\n');
}

const VIEW_HTML = { formula: formulaHtml, table: tableHtml, gqa: gqaHtml, check: checkHtml, all: allHtml };

// What bake writes inside an element: its first render as a declarative shadow root, when
// the page says where the style sheet is (page: { stylesheet, lang }), then the figures in
// words. A message the live element would show above its figures (an input it does not
// apply) is an error here, naming the attribute.
async function fallbackFor(attrs, inlineConfig, page = null) {
  const k = await kv();
  const s = readState(attrs);
  const config = inlineConfig !== undefined ? inlineConfig : s.model ?? DEFAULT_MODEL;
  const what = inlineConfig !== undefined ? 'the inline config' : 'model';
  const text = VIEW_HTML[s.view ?? 'formula'](k, config, s, what, inlineConfig !== undefined);
  if (!page) return text;
  const { html, messages } = await shadowRootHtml(k, {
    values: s, inline: inlineConfig ?? null, lang: page.lang, stylesheet: page.stylesheet, mark: VERSION,
  });
  if (messages.length) {
    const named = /^([a-z-]+):/.exec(messages[0])?.[1];
    throw new BakeError(named && ATTRIBUTES[named] ? named : what, messages[0]);
  }
  return `${html}\n${text}`;
}

/**
 * The baked fallback (HTML) for a <kv-calc> with these attributes ({name: value}, as written
 * in HTML) and inline config text: the figures in words; with { stylesheet } (the href of
 * kvcalc.css from the page), first the element's first render as its declarative shadow
 * root, as bake() writes it. Throws an Error naming the attribute on bad input.
 * @param {Record<string, string>} attributes
 * @param {string} [inlineConfigText]
 * @param {{stylesheet?: string, lang?: string}} [options]
 */
export async function fallbackHtml(attributes, inlineConfigText, { stylesheet, lang = 'en' } = {}) {
  const attrs = Object.fromEntries(Object.entries(attributes ?? {}).map(([n, v]) => [n.toLowerCase(), String(v)]));
  try {
    return await fallbackFor(attrs, inlineConfigText, stylesheet ? { stylesheet, lang } : null);
  } catch (e) {
    if (e instanceof BakeError) throw Object.assign(new Error(e.message), { attribute: e.attribute });
    throw e;
  }
}

// What bake writes inside an element: its inline config as the author wrote it, if any,
// then the fallback.
const bakedContent = (inlineSource, fallback) => `${inlineSource === undefined ? '' : `\n${inlineSource}`}\n${fallback}\n`;

// A page's <kv-calc> that a browser ends early (endedEarly() of the baked page), told as the
// author can fix it, at lines of the page as given (edits: where bake rewrote it).
function endedEarlyWarning(file, html, elements, edits, e) {
  // An offset of the baked page: its line in the page given, or null inside a baked fallback.
  const lineOf = (offset) => {
    let shift = 0;
    for (const edit of edits) {
      if (offset < edit.start) break;
      if (offset < edit.start + edit.length) return null;
      shift += edit.length - edit.original;
    }
    return html.slice(0, offset - shift).split('\n').length;
  };
  const closedLine = lineOf(e.closedOffset);
  const closer = `the <${e.closedBy}> ${closedLine === null ? 'of its baked fallback' : `in it (line ${closedLine})`}`;
  const shown = 'a browser shows what follows it after the element, where it stays once the element is live (the figures twice)';
  const where = `${file}:${elements[e.index].line}: <kv-calc>`;
  if (e.paragraphOffset !== undefined) {
    return `${where} is inside a <p> (line ${lineOf(e.paragraphOffset)}), which ${closer} closes, and the element with it: ${shown}. ` +
      'Put the element in a <div>, with a blank line before and after (Markdown then passes it through as HTML instead of ' +
      'wrapping it in a paragraph)';
  }
  return `${where} is ended by ${closer}, before its </kv-calc>: ${shown}. Put the element in a <div> of its own`;
}

/**
 * Why a page with no <kv-calc> element got nothing, naming where it mentions `<kv-calc`
 * (bake()'s mentions), or undefined when it does not.
 * @param {string} file
 * @param {{where: string, many: string, line: number, shown: boolean}[]} mentions
 */
export function noElementMessage(file, mentions) {
  if (!mentions.length) return undefined;
  const why = mentions.every((m) => m.shown)
    ? 'shown as text (an example of the element?), there is nothing to bake'
    : 'its generator did not write the element into the HTML (with React or MDX, write it as the package README says)';
  return `${file} mentions <kv-calc in ${mentionsText(mentions)}, but has no <kv-calc> element: ${why}`;
}

/**
 * Bakes every <kv-calc> of one HTML text. Resolves to { html, changed, count, skipped,
 * elements, mentions, warnings, stylesheet }: count elements baked, skipped elements with an
 * author's content left alone, elements found; mentions, for a page with no element, where
 * its text says `<kv-calc` (an attribute, a script, a comment, a code block:
 * noElementMessage() tells them); warnings, each naming the file, the line and the fix, for
 * an element whose fallback a browser shows outside it; stylesheet, where the baked renders
 * link kvcalc.css from ({ href, rootCopy }: rootCopy, the file at the root of the folder,
 * which the caller writes: writeStylesheet(root)), or null when nothing was baked. Rejects
 * with an Error whose message names the file, the line and the attribute on bad input (and
 * has .file, .line, .attribute), or says that nothing tells where kvcalc.css is (give
 * stylesheet, or root).
 * @param {string} html
 * @param {{file?: string, force?: boolean, root?: string, stylesheet?: string}} [options]
 *   root: the folder the page is baked in (its kvcalc.css is at its root unless the page
 *   loads kvcalc.js, beside which it is); stylesheet: the href of kvcalc.css from the page
 */
export async function bake(html, { file = '<html>', force = false, root, stylesheet } = {}) {
  const fail = (line, message, attribute) => Object.assign(new Error(`${file}:${line}: ${message}`), { file, line, attribute });
  let page;
  try {
    page = pageElements(html);
  } catch (e) {
    if (e instanceof PageError) throw fail(e.line, e.message);
    throw e;
  }
  let out = '';
  let at = 0;
  let count = 0;
  let skipped = 0;
  let where = null;  // { stylesheet, lang } of the page's baked renders, once one is baked
  let sheet = null;
  // Where the baked page differs from the page given: length characters at start in out,
  // where the page given had original characters.
  const edits = [];
  for (const element of page.elements) {
    const { kind, inline } = readContent(html.slice(element.contentStart, element.contentEnd));
    if (kind === 'authored' && !force) {
      skipped += 1;
      continue;
    }
    if (!where) {
      sheet = stylesheetFor(html, { file, root, stylesheet });
      if (!sheet) {
        throw Object.assign(new Error(`${file}: nothing says where kvcalc.css is for its baked elements: the page loads no kvcalc.js ` +
          '(beside which it is) and no folder or stylesheet was given (bake(html, { root }) or { stylesheet: href })'), { file });
      }
      where = { stylesheet: sheet.href, lang: pageLang(html) };
    }
    let fallback;
    try {
      fallback = await fallbackFor(element.attributes, inline?.text, where);
    } catch (e) {
      if (e instanceof BakeError) throw fail(element.line, `<kv-calc> ${e.message}`, e.attribute);
      throw e;
    }
    // Only the element's content is rewritten: every other byte of the page stays as written.
    out += html.slice(at, element.contentStart);
    const content = bakedContent(inline?.source, fallback);
    edits.push({ start: out.length, length: content.length, original: element.contentEnd - element.contentStart });
    out += content;
    at = element.contentEnd;
    count += 1;
  }
  out += html.slice(at);
  const warnings = page.elements.length ? endedEarly(out).map((e) => endedEarlyWarning(file, html, page.elements, edits, e)) : [];
  return {
    html: out, changed: out !== html, count, skipped, elements: page.elements.length,
    mentions: page.elements.length ? [] : page.mentions, warnings, stylesheet: sheet,
  };
}

/**
 * Why a run over these files baked nothing, when none of them holds a <kv-calc> element:
 * the folder given may not be the built site, or its generator did not write the elements.
 * @param {string[]} paths what the run was given
 * @param {number} files HTML files read
 * @param {boolean} mentioned whether any file mentions `<kv-calc` (noElementMessage tells where)
 */
export function nothingBakedMessage(paths, files, mentioned) {
  const given = paths.join(', ');
  if (!files) return `no HTML file in ${given}: nothing baked (is it the folder the site was built into?)`;
  return `no <kv-calc> element in the ${files} HTML file${files === 1 ? '' : 's'} of ${given}: nothing baked (${mentioned
    ? 'where they mention <kv-calc: see above'
    : 'none of them mentions <kv-calc: is it the folder the site was built into?'})`;
}

/**
 * Bakes every HTML file of a built site (a folder, or one file) in place, for a build
 * plugin's after-build hook, and writes kvcalc.css at its root when a page links it there.
 * Resolves to { files, changed, count, warnings }: HTML files read, files rewritten,
 * <kv-calc> baked, and what the author should know (each printed on stderr too, as `kvcalc
 * bake` prints it): an element whose fallback a browser shows outside it, a page that
 * mentions `<kv-calc` but has no element, a site with no element at all. Rejects on the
 * first bad <kv-calc> (as bake() does), that file left as it was. The reserve option of
 * earlier versions (measuring the live heights in Chromium) is no longer needed, and
 * ignored: a baked element has its live layout from the first paint.
 * @param {string} path
 * @param {{force?: boolean, stylesheet?: string}} [options]
 */
export async function bakeSite(path, { force = false, stylesheet } = {}) {
  const files = htmlFiles(path);
  const root = statSync(path).isDirectory() ? path : dirname(path);
  let changed = 0;
  let count = 0;
  let rootCopy = false;
  let elements = 0;
  let mentioned = false;
  const warnings = [];
  for (const file of files) {
    const r = await bake(readFileSync(file, 'utf8'), { file, force, root, stylesheet });
    count += r.count;
    rootCopy ||= Boolean(r.stylesheet?.rootCopy);
    elements += r.elements;
    mentioned ||= r.mentions.length > 0;
    warnings.push(...r.warnings, ...[noElementMessage(file, r.mentions)].filter(Boolean));
    if (!r.changed) continue;
    writeWhole(file, r.html);
    changed += 1;
  }
  if (rootCopy) writeStylesheet(root);
  if (!elements) warnings.push(nothingBakedMessage([path], files.length, mentioned));
  for (const w of warnings) console.warn(`kvcalc bake: ${w}`);
  return { files: files.length, changed, count, warnings };
}
