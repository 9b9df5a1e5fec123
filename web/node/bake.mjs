// kvcalc/bake: the no-JS fallback of every <kv-calc> of a built HTML page, computed by the
// core (the same wasm the element runs) from the element's own attributes and inline config,
// so a reader sees the figures at first paint, and search engines and readers without
// JavaScript see them too. For `npx kvcalc bake` (dist/cli.mjs) and for build plugins.
//
// Which elements it fills: an empty one (white space, a `<!-- fallback -->` marker and an
// inline `<script type="application/json">` config are all "empty"), and one it baked before
// (its fallback carries data-kvcalc-baked="VERSION"). Content an author wrote is left alone
// unless { force: true }. Baking what is already baked with the same figures changes nothing.

import { readFileSync } from 'node:fs';
import { load, wasmUrl, KvCalcError } from '../kvcalc.js';
import { ATTRIBUTES, DEFAULT_MODEL, attributeError } from '../element/state.js';
import { Formatter } from '../element/format.js';
import { escapeHtml as escape, parseAttributes } from '../api/html-text.mjs';
import { htmlFiles, writeWhole } from './site-files.mjs';

export { parseAttributes, htmlFiles, writeWhole };

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
// model attribute or the inline config).
function coreCall(fn, what) {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof KvCalcError)) throw e;
    const { attribute = what, message } = attributeError(e);
    throw new BakeError(attribute, `${attribute}: ${message}`);
  }
}

const data = (n, text) => `<data value="${n}">${escape(text)}</data>`;
const shared = (s) => ({ batch: s.batch, kvDtype: s.kvDtype, tp: s.tp, accounting: s.accounting });
const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function formulaHtml(k, config, s, what) {
  const r = coreCall(() => k.size(config, defined({ context: s.context, ...shared(s) })), what);
  const perSequence = r[`sequenceBytes${r.accounting[0].toUpperCase()}${r.accounting.slice(1)}`];
  let text = `${escape(r.model)} keeps ${data(r.bytesPerToken, fmt.bytes(r.bytesPerToken))} of KV cache per token (${escape(r.kvDtype)}) ` +
    `and ${data(perSequence, fmt.bytesBoth(perSequence))} for one sequence of ${escape(fmt.tokens(r.context))} (${escape(r.accounting)} accounting).`;
  if (r.stateBytes > 0) text += ` That includes a fixed state of ${escape(fmt.bytesBoth(r.stateBytes))} per sequence.`;
  if (r.batch > 1) text += ` A batch of ${escape(fmt.int(r.batch))}: ${data(r.kvBytes, fmt.bytesBoth(r.kvBytes))}.`;
  return `<p class="fallback" ${MARK}>${text}</p>`;
}

function gqaHtml(k, config, s, what) {
  const r = coreCall(() => k.size(config, defined({ context: s.context, ...shared(s) })), what);
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
  const t = coreCall(() => k.table(models, defined({ contexts, format: 'html', kvDtype: s.kvDtype, accounting: s.accounting })),
    s.models ? 'models' : what);
  if (!/<table[\s>]/.test(t.text)) throw new Error(`the core's table printed no <table>: ${String(t.text).slice(0, 200)}`);
  return `<div class="fallback-table" ${MARK}>\n${t.text.trim()}\n</div>`;
}

function checkHtml(k, config, s, what) {
  for (const name of ['pool-tokens', 'max-context']) {
    if (s[ATTRIBUTES[name].prop] === undefined) throw new BakeError(name, `${name}: a check view needs the pool-tokens and max-context attributes`);
  }
  const c = coreCall(() => k.check(config, defined({ maxContext: s.maxContext, poolTokens: s.poolTokens, kvDtype: s.kvDtype, tp: s.tp })), what);
  const verdict = c.fits
    ? `Fits: one ${fmt.int(c.maxContext)}-token request fits the pool of ${fmt.tokens(c.poolTokens)}`
    : `Does not fit: one ${fmt.int(c.maxContext)}-token request needs more than the pool of ${fmt.tokens(c.poolTokens)}`;
  return `<p class="fallback" ${MARK}><strong>${escape(verdict)}</strong> (max concurrency ${escape(fmt.ratio(c.maxConcurrency))}). ` +
    `Safe max context: ${data(c.maxSafeContext, fmt.int(c.maxSafeContext))} tokens.</p>`;
}

// view="all": the formula's sentence (the first thing the element shows), then the check's
// verdict when the element states a pool and a context.
function allHtml(k, config, s, what) {
  const parts = [formulaHtml(k, config, s, what)];
  if (s.poolTokens !== undefined && s.maxContext !== undefined) parts.push(checkHtml(k, config, s, what));
  return parts.join('\n');
}

const VIEW_HTML = { formula: formulaHtml, table: tableHtml, gqa: gqaHtml, check: checkHtml, all: allHtml };

// The inline config of an element's content, as the element reads it, or undefined.
const INLINE_CONFIG = /<script\b[^>]*\btype\s*=\s*["']?application\/json["']?[^>]*>([\s\S]*?)<\/script>/i;

async function fallbackFor(attrs, inlineConfig) {
  const k = await kv();
  const s = readState(attrs);
  const config = inlineConfig !== undefined ? inlineConfig : s.model ?? DEFAULT_MODEL;
  const what = inlineConfig !== undefined ? 'the inline config' : 'model';
  return VIEW_HTML[s.view ?? 'formula'](k, config, s, what, inlineConfig !== undefined);
}

/**
 * The baked fallback (HTML) for a <kv-calc> with these attributes ({name: value}, as written
 * in HTML) and inline config text. Throws an Error naming the attribute on bad input.
 * @param {Record<string, string>} attributes
 * @param {string} [inlineConfigText]
 */
export async function fallbackHtml(attributes, inlineConfigText) {
  const attrs = Object.fromEntries(Object.entries(attributes ?? {}).map(([n, v]) => [n.toLowerCase(), String(v)]));
  try {
    return await fallbackFor(attrs, inlineConfigText);
  } catch (e) {
    if (e instanceof BakeError) throw Object.assign(new Error(e.message), { attribute: e.attribute });
    throw e;
  }
}

const ELEMENT = /<kv-calc\b([^>]*)>([\s\S]*?)<\/kv-calc\s*>/gi;
const lineAt = (text, index) => text.slice(0, index).split('\n').length;

// What an element holds: 'empty' (nothing but white space, comments and its inline config),
// 'baked' (a fallback this tool wrote), or 'authored'.
function contentKind(content) {
  const rest = content.replace(INLINE_CONFIG, '').replace(/<!--[\s\S]*?-->/g, '').trim();
  if (!rest) return 'empty';
  return rest.includes('data-kvcalc-baked=') ? 'baked' : 'authored';
}

/**
 * Bakes every <kv-calc> of one HTML text. Resolves to { html, changed, count, skipped }:
 * count elements baked, skipped elements with an author's content left alone. Rejects with
 * an Error whose message names the file, the line and the attribute on bad input (and
 * has .file, .line, .attribute).
 * @param {string} html
 * @param {{file?: string, force?: boolean}} [options]
 */
export async function bake(html, { file = '<html>', force = false } = {}) {
  let out = '';
  let at = 0;
  let count = 0;
  let skipped = 0;
  for (const m of html.matchAll(ELEMENT)) {
    const [whole, attrText, content] = m;
    const kind = contentKind(content);
    if (kind === 'authored' && !force) {
      skipped += 1;
      continue;
    }
    const inline = INLINE_CONFIG.exec(content);
    let fallback;
    try {
      fallback = await fallbackFor(parseAttributes(attrText), inline ? inline[1] : undefined);
    } catch (e) {
      if (!(e instanceof BakeError)) throw e;
      const line = lineAt(html, m.index);
      throw Object.assign(new Error(`${file}:${line}: <kv-calc> ${e.message}`), { file, line, attribute: e.attribute });
    }
    const keep = inline ? `\n${inline[0]}` : '';
    out += html.slice(at, m.index) + `<kv-calc${attrText}>${keep}\n${fallback}\n</kv-calc>`;
    at = m.index + whole.length;
    count += 1;
  }
  out += html.slice(at);
  return { html: out, changed: out !== html, count, skipped };
}

/**
 * Bakes every HTML file of a built site (a folder, or one file) in place, for a build
 * plugin's after-build hook. Resolves to { files, changed, count }: HTML files read, files
 * rewritten, <kv-calc> baked. Rejects on the first bad <kv-calc> (as bake() does), that
 * file left as it was. With reserve, then keeps each fallback at its live element's height
 * as `kvcalc bake --reserve` does (reserve.mjs: playwright-core and a Chromium measure them),
 * and the result also has reserved: { files, count, css }.
 * @param {string} path
 * @param {{force?: boolean, reserve?: boolean, chromium?: string}} [options]
 */
export async function bakeSite(path, { force = false, reserve = false, chromium } = {}) {
  const files = htmlFiles(path);
  let changed = 0;
  let count = 0;
  for (const file of files) {
    const r = await bake(readFileSync(file, 'utf8'), { file, force });
    count += r.count;
    if (!r.changed) continue;
    writeWhole(file, r.html);
    changed += 1;
  }
  if (!reserve) return { files: files.length, changed, count };
  const { reserveSite } = await import('./reserve.mjs');
  const reserved = await reserveSite(path, chromium ? { chromium } : {});
  return { files: files.length, changed, count, reserved };
}
