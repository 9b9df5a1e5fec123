#!/usr/bin/env node
// kvcalc, the npm package's command (Node 20+). `size`, `check`, `table`, `presets`, `gpus`,
// `architectures` and --help are the native CLI itself: its C++ sources on the same core,
// compiled to wasm for Node (kvcalc_cli.cjs), so options, outputs and exit codes are the
// native CLI's. `bake` is this package's own: the baked fallbacks of built HTML pages.

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

const EXIT = { ok: 0, badInput: 1, usage: 2 };

const BAKE_USAGE = `usage: kvcalc bake PATH... [--check] [--force] [--reserve [--chromium=PATH]]
PATH is an HTML file or a folder of a built site (its .html files, node_modules skipped).
Every <kv-calc> that is empty or was baked before gets the fallback the core computes for
its attributes and inline config, in place (elements as a browser reads them: never inside an
attribute, a comment, a script or a code block). A page that only mentions <kv-calc, and a run
that finds no element, are reported. --check changes nothing and exits 1 when a page's
fallbacks are missing or stale, when a page mentions <kv-calc out of sight (an attribute, a
script, a comment) with no element, or when no element is found at all; --force also
replaces content an author wrote, or an earlier bake. --reserve
then measures each live element in headless Chromium (needs playwright-core installed and
Chromium, at /usr/bin/chromium or --chromium=PATH) and writes kvcalc-reserve.css at PATH,
linked from each page: each fallback keeps its live element's height, so nothing moves.`;

const SVG_USAGE = `usage: kvcalc svg CONFIG [--chart context|gqa|check] [--context N] [--batch N] [--kv-dtype D]
                  [--tp N] [--accounting naive|resident|vllm] [--pool-tokens N] [--max-context N]
prints a standalone SVG figure of the element's chart: KV cache memory against context (with
--chart gqa, the cache for each KV-head count from MQA to MHA and the MLA point; with
--chart check, the pool line and the advertised context: needs --pool-tokens and --max-context).`;

// The commands this file runs itself; every other goes to the native CLI's code.
const OWN = {
  bake: { usage: BAKE_USAGE, run: runBake },
  svg: { usage: SVG_USAGE, run: runSvg },
};

// svg's options: --name VALUE (or --name=VALUE) -> the JS API's option, read as the element
// reads the attribute of the same name (web/element/state.js).
const SVG_OPTIONS = ['context', 'batch', 'kv-dtype', 'tp', 'accounting', 'pool-tokens', 'max-context'];

async function runSvg(args) {
  const { ATTRIBUTES, attributeError } = await import('../element/state.js');
  const options = {};
  const positional = [];
  for (let i = 0; i < args.length; i += 1) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(args[i]);
    if (!m) {
      positional.push(args[i]);
      continue;
    }
    const value = m[2] ?? args[++i];
    if (value === undefined) return usage(`svg: --${m[1]} needs a value`, SVG_USAGE);
    if (m[1] === 'chart') {
      options.chart = value;
      continue;
    }
    if (!SVG_OPTIONS.includes(m[1])) return usage(`svg: unknown option --${m[1]}`, SVG_USAGE);
    const r = ATTRIBUTES[m[1]].read(value);
    if (r.error) {
      console.error(`kvcalc: --${m[1]}: ${r.error}`);
      return EXIT.badInput;
    }
    options[ATTRIBUTES[m[1]].prop] = r.value;
  }
  if (positional.length !== 1) return usage('svg takes one CONFIG', SVG_USAGE);
  if (options.chart === 'check') {
    const missing = ['pool-tokens', 'max-context'].filter((name) => options[ATTRIBUTES[name].prop] === undefined);
    if (missing.length) return usage(`svg --chart check needs ${missing.map((m) => `--${m} N`).join(' and ')}`, SVG_USAGE);
  }
  const [arg] = positional;
  let config = arg;
  let file = false;
  try {
    if (arg === '-') config = readFileSync(0, 'utf8');
    else if ((file = Boolean(statSync(arg, { throwIfNoEntry: false })?.isFile()))) config = readFileSync(arg, 'utf8');
  } catch (e) {
    console.error(`kvcalc: ${arg}: ${e.message}`);
    return EXIT.badInput;
  }
  const { load, wasmUrl } = await import('../kvcalc.js');
  const kv = await load({ wasmBinary: readFileSync(wasmUrl) });
  try {
    process.stdout.write(await kv.svg(config, options));
  } catch (e) {
    if (!e.code) throw e;
    // CONFIG as the native CLI tells it: a path, stdin or a preset id (the core's words point
    // at the API's presets()).
    if (e.code === 'unknown_preset' && !file && arg !== '-') {
      console.error(`kvcalc: ${JSON.stringify(arg)} is neither a readable file nor a bundled preset id (kvcalc presets lists them)`);
      return EXIT.badInput;
    }
    // The option as this command names it, its flags being the attributes (poolTokens ->
    // --pool-tokens), in front and inside; --chart is this command's own flag.
    const { attribute, message } = e.field === 'chart' ? { attribute: 'chart', message: e.message.replace(/^chart: /, '') } : attributeError(e);
    const flags = message.replace(new RegExp(`\\b(${SVG_OPTIONS.filter((o) => o.includes('-')).join('|')})\\b`, 'g'), '--$1');
    console.error(`kvcalc: ${attribute ? `--${attribute}: ${flags}` : flags}`);
    return EXIT.badInput;
  }
  return EXIT.ok;
}

async function runBake(args) {
  const chromium = args.find((a) => a.startsWith('--chromium='))?.slice('--chromium='.length);
  const flags = new Set(args.filter((a) => a.startsWith('--') && !a.startsWith('--chromium=')));
  const paths = args.filter((a) => !a.startsWith('--'));
  for (const f of flags) {
    if (!['--check', '--force', '--reserve'].includes(f)) return usage(`bake: unknown option ${f}`, BAKE_USAGE);
  }
  if ((flags.has('--reserve') || chromium) && (flags.has('--check') || !flags.has('--reserve'))) {
    return usage('bake: --reserve (and --chromium) go without --check', BAKE_USAGE);
  }
  if (!paths.length) return usage('bake takes at least one PATH', BAKE_USAGE);
  const check = flags.has('--check');
  const { bake, htmlFiles, noElementMessage, nothingBakedMessage, writeWhole } = await import('./bake.mjs');
  let files;
  try {
    files = paths.flatMap((p) => htmlFiles(p));
  } catch (e) {
    console.error(`kvcalc bake: ${e.message}`);
    return EXIT.badInput;
  }
  let failed = 0;
  let stale = 0;
  let lost = 0;
  let baked = 0;
  let elements = 0;
  let mentioned = false;
  let changed = 0;
  for (const file of files) {
    const html = readFileSync(file, 'utf8');
    let r;
    try {
      r = await bake(html, { file, force: flags.has('--force') });
    } catch (e) {
      // The file stays as it was; the others are baked.
      console.error(`kvcalc bake: ${e.message}`);
      failed += 1;
      continue;
    }
    baked += r.count;
    elements += r.elements;
    for (const w of r.warnings) console.error(`kvcalc bake: warning: ${w}`);
    if (r.skipped) console.error(`kvcalc bake: ${file}: ${r.skipped} <kv-calc> with an author's content left as written (--force replaces it)`);
    if (r.mentions.length) {
      mentioned = true;
      console.error(`kvcalc bake: ${noElementMessage(file, r.mentions)}`);
      // Out of sight (an attribute, a script, a comment) a mention is a copy of an element
      // the page should have had: under --check, its figures are missing.
      if (r.mentions.some((m) => !m.shown)) lost += 1;
    }
    if (!r.changed) continue;
    changed += 1;
    if (check) {
      console.error(`kvcalc bake: ${file}: baked figures missing or stale (run kvcalc bake ${file})`);
      stale += 1;
      continue;
    }
    try {
      writeWhole(file, r.html);
    } catch (e) {
      console.error(`kvcalc bake: ${file}: could not write it: ${e.message}`);
      failed += 1;
    }
  }
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const what = `${baked} <kv-calc> in ${plural(files.length, 'file')}${failed ? ` (${plural(failed, 'file')} left as ${failed === 1 ? 'it was' : 'they were'}: see above)` : ''}`;
  const nothing = !elements && !failed;
  if (nothing) console.error(`kvcalc bake: ${nothingBakedMessage(paths, files.length, mentioned)}`);
  if (check) console.log(`kvcalc bake --check: ${what}; ${plural(stale, 'file')} stale${lost ? `, ${plural(lost, 'file')} with no element` : ''}`);
  else console.log(`kvcalc bake: ${nothing ? `nothing baked: ${what}` : `${what}; ${plural(changed, 'file')} changed`}`);
  if (failed || (check && (stale || lost || nothing))) return EXIT.badInput;
  if (flags.has('--reserve')) {
    const { reserveSite } = await import('./reserve.mjs');
    for (const path of paths) {
      try {
        const r = await reserveSite(path, chromium ? { chromium } : {});
        console.log(`kvcalc bake --reserve: ${r.css}: the live heights of ${plural(r.count, 'element')} in ${plural(r.files, 'file')}`);
      } catch (e) {
        console.error(`kvcalc bake --reserve: ${path}: ${e.message}`);
        return EXIT.badInput;
      }
    }
  }
  return EXIT.ok;
}

function usage(message, text) {
  console.error(`kvcalc: ${message}\n${text}`);
  return EXIT.usage;
}

const [command, ...rest] = process.argv.slice(2);
const own = OWN[command];
if (own) {
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(own.usage);
  } else {
    process.exitCode = await own.run(rest);
  }
} else {
  // The native CLI's code reads process.argv itself. Its usage (on stderr) lists its own
  // commands; the package's own come first.
  if (command === '--help' || command === '-h' || command === 'help') {
    console.error(`${Object.values(OWN).map((c) => c.usage).join('\n')}\n`);
  }
  createRequire(import.meta.url)('./kvcalc_cli.cjs');
}
