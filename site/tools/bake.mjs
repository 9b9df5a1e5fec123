// The no-JS fallbacks, baked at build time by the native CLI from the same core the element
// runs: `kvcalc table` for table views, `kvcalc size` for formula and GQA views, `kvcalc
// check` for check views. Each fallback is computed from the element's own attributes, so
// the baked figures and the live ones answer the same question.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { escapeAttr, escapeText } from './html.mjs';

export const DEFAULT_MODEL = 'Qwen/Qwen2.5-7B-Instruct';   // the element's default
export const TABLE_CONTEXTS = [4096, 32768, 131072];        // the element's table columns

export class Kvcalc {
  constructor(binary) {
    if (!existsSync(binary)) {
      throw new Error(`${binary} is missing: the site bakes its fallback tables with the native CLI (run bash scripts/build.sh)`);
    }
    this.binary = binary;
    this.calls = 0;
  }

  // Runs the CLI; exit codes in `ok` are results, anything else is a build error.
  runWithStatus(args, ok = [0]) {
    this.calls += 1;
    const r = spawnSync(this.binary, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.error) throw r.error;
    if (!ok.includes(r.status)) {
      throw new Error(`kvcalc ${args.join(' ')} exited with ${r.status}: ${(r.stderr || r.stdout).trim()}`);
    }
    return { stdout: r.stdout, status: r.status };
  }

  run(args, ok = [0]) {
    return this.runWithStatus(args, ok).stdout;
  }

  json(args, ok) {
    return JSON.parse(this.run([...args, '--json'], ok));
  }

  presets() {
    return this.json(['presets']).map((p) => (typeof p === 'string' ? p : p.id));
  }
}

// A token count as the element reads it: 32768, 32,768, 32K (x 1,024), 1M (x 1,048,576).
export function readTokens(text) {
  const m = /^\s*([0-9][0-9_,]*)\s*([kKmM]?)\s*$/.exec(text);
  if (!m) throw new Error(`not a token count: "${text}"`);
  let n = BigInt(m[1].replace(/[_,]/g, ''));
  if (m[2]) n *= m[2].toLowerCase() === 'k' ? 1024n : 1048576n;
  return Number(n);
}

export function modelList(attrs, kvcalc) {
  return attrs.models ? attrs.models.split(/[\s,]+/).filter(Boolean) : kvcalc.presets();
}

export function tableContexts(attrs) {
  const contexts = [...TABLE_CONTEXTS];
  if (attrs.context) {
    const c = readTokens(attrs.context);
    if (!contexts.includes(c)) contexts.push(c);
  }
  return contexts.sort((a, b) => a - b);
}

// The options every view shares, as CLI flags.
function sharedFlags(attrs) {
  const flags = [];
  for (const name of ['batch', 'kv-dtype', 'tp', 'accounting']) {
    if (attrs[name] !== undefined) flags.push(`--${name}`, attrs[name]);
  }
  return flags;
}

export function groupThousands(n) {
  return BigInt(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// 1024-based, two decimals at most, trailing zeros dropped, half up (as the CLI prints it).
export function binaryBytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let v = BigInt(n);
  let unit = 1n;
  let i = 0;
  while (i < units.length - 1 && v / unit >= 1024n) {
    unit *= 1024n;
    i += 1;
  }
  let whole = v / unit;
  let hundredths = ((v % unit) * 100n + unit / 2n) / unit;
  if (hundredths >= 100n) {
    whole += 1n;
    hundredths -= 100n;
  }
  let frac = hundredths ? `.${String(hundredths).padStart(2, '0')}` : '';
  if (frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${groupThousands(whole)}${frac} ${units[i]}`;
}

function bytesBoth(n) {
  return BigInt(n) < 1024n ? `${groupThousands(n)} B` : `${groupThousands(n)} B (${binaryBytes(n)})`;
}

export function bakeTable(attrs, kvcalc) {
  const models = modelList(attrs, kvcalc);
  const contexts = tableContexts(attrs);
  const html = kvcalc.run(['table', ...models, '--contexts', contexts.join(','), ...sharedFlags(attrs), '--format', 'html']);
  if (!/<table[\s>]/.test(html)) throw new Error(`kvcalc table --format html printed no <table>: ${html.slice(0, 200)}`);
  return `<div class="fallback-table" data-baked="kvcalc table">\n${html.trim()}\n</div>`;
}

function sizeArgs(attrs) {
  const args = ['size', attrs.model || DEFAULT_MODEL];
  if (attrs.context) args.push('--context', String(readTokens(attrs.context)));
  return [...args, ...sharedFlags(attrs)];
}

export function bakeFormula(attrs, kvcalc) {
  const r = kvcalc.json(sizeArgs(attrs));
  const perSequence = r[`sequence_bytes_${r.accounting}`];
  const parts = [
    `${escapeText(r.model)} keeps <data value="${r.bytes_per_token}">${groupThousands(r.bytes_per_token)} B</data> of KV cache per token (${escapeText(r.kv_dtype)})`,
    `and <data value="${perSequence}">${escapeText(bytesBoth(perSequence))}</data> for one sequence of ${groupThousands(r.context)} tokens (${escapeText(r.accounting)} accounting)`,
  ];
  let text = `${parts.join(' ')}.`;
  if (r.state_bytes > 0) text += ` That includes a fixed state of ${escapeText(bytesBoth(r.state_bytes))} per sequence.`;
  if (r.batch > 1) text += ` A batch of ${groupThousands(r.batch)}: ${escapeText(bytesBoth(r.kv_bytes))}.`;
  return `<p class="fallback" data-baked="kvcalc size">${text}</p>`;
}

export function bakeGqa(attrs, kvcalc) {
  const r = kvcalc.json(sizeArgs(attrs));
  const kvHeads = [...new Set(r.groups.filter((g) => g.kv_heads).map((g) => g.kv_heads.value))];
  const mla = r.groups.find((g) => g.kind === 'mla');
  const heads = mla
    ? `caches one latent per layer shared by its ${groupThousands(r.query_heads.value)} query heads`
    : `has ${groupThousands(r.query_heads.value)} query heads on ${kvHeads.map(groupThousands).join(' / ')} KV heads`;
  return `<p class="fallback" data-baked="kvcalc size">${escapeText(r.model)} ${heads}: <data value="${r.bytes_per_token}">${groupThousands(r.bytes_per_token)} B</data> per token.</p>`;
}

export function bakeCheck(attrs, kvcalc) {
  if (!attrs['pool-tokens'] || !attrs['max-context']) {
    throw new Error('a baked check needs the pool-tokens and max-context attributes');
  }
  const args = ['check', attrs.model || DEFAULT_MODEL,
    '--max-context', String(readTokens(attrs['max-context'])),
    '--pool-tokens', String(readTokens(attrs['pool-tokens']))];
  for (const name of ['kv-dtype', 'tp']) if (attrs[name] !== undefined) args.push(`--${name}`, attrs[name]);
  // Exit code 3 is the CLI's "does not fit": a result, not a failure.
  const c = kvcalc.json(args, [0, 3]);
  const verdict = c.fits
    ? `Fits: one ${groupThousands(c.max_context)}-token request fits the pool of ${groupThousands(c.pool_tokens)} tokens`
    : `Does not fit: one ${groupThousands(c.max_context)}-token request needs more than the pool of ${groupThousands(c.pool_tokens)} tokens`;
  const concurrency = Number(c.max_concurrency).toFixed(2);
  return `<p class="fallback" data-baked="kvcalc check"><strong>${escapeText(verdict)}</strong> (max concurrency ${escapeText(concurrency)}x). ` +
    `Safe max context: <data value="${c.max_safe_context}">${groupThousands(c.max_safe_context)}</data> tokens.</p>`;
}

// view="all" falls back to the formula's sentence: the first thing the element shows.
const BAKERS = { table: bakeTable, formula: bakeFormula, gqa: bakeGqa, check: bakeCheck, all: bakeFormula };

// Replaces `<!-- fallback -->` inside each <kv-calc ...> with the baked fallback for its view.
export function bakeFallbacks(html, kvcalc, parseAttributes, where) {
  let count = 0;
  const out = html.replace(/<kv-calc\b([^>]*)>(\s*)<!--\s*fallback\s*-->(\s*)<\/kv-calc>/g, (m, attrText, pre, post) => {
    const attrs = parseAttributes(attrText);
    const view = attrs.view || 'formula';
    const baker = BAKERS[view];
    if (!baker) throw new Error(`${where}: no baked fallback for view="${escapeAttr(view)}"`);
    count += 1;
    try {
      return `<kv-calc${attrText}>\n${baker(attrs, kvcalc)}\n</kv-calc>`;
    } catch (e) {
      throw new Error(`${where}: <kv-calc${attrText}>: ${e.message}`);
    }
  });
  if (/<!--\s*fallback\s*-->/.test(out)) throw new Error(`${where}: a <!-- fallback --> marker is not directly inside a <kv-calc>`);
  return { html: out, count };
}

// <!-- cli: ARGS --> becomes the command and what it prints (stdout; exit code when not 0).
export function insertCliRuns(html, kvcalc) {
  return html.replace(/<!--\s*cli:\s*([^>]*?)\s*-->/g, (m, argText) => {
    const args = argText.split(/\s+/);
    const { stdout, status } = kvcalc.runWithStatus(args, [0, 3]);
    const shown = `$ kvcalc ${argText}\n${stdout.replace(/\n+$/, '')}${status ? `\n$ echo $?\n${status}` : ''}`;
    return `<pre class="cli"><code>${escapeText(shown)}</code></pre>`;
  });
}
