#!/usr/bin/env node
// kvcalc, the npm package's command (Node 20+). `size`, `check`, `table`, `presets`, `gpus`,
// `architectures` and --help are the native CLI itself: its C++ sources on the same core,
// compiled to wasm for Node (kvcalc_cli.cjs), so options, outputs and exit codes are the
// native CLI's. `bake` is this package's own: the baked fallbacks of built HTML pages. A CONFIG
// written hf:OWNER/NAME is fetched from the Hugging Face Hub here (web/node/hub-config.mjs),
// the native CLI having no network: it reads the config from a temporary file.

import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';

const EXIT = { ok: 0, badInput: 1, usage: 2 };

const BAKE_USAGE = `usage: kvcalc bake PATH... [--check] [--force]
PATH is an HTML file or a folder of a built site (its .html files, node_modules skipped).
Every <kv-calc> that is empty or was baked before gets, in place, its first render (the
calculator as it goes live, so nothing moves then) and its figures in words, which the core
computes for its attributes and inline config (elements as a browser reads them: never inside
an attribute, a comment, a script or a code block). The first render links kvcalc.css: beside
the page's kvcalc.js, else at the root of PATH, written there. A page that only mentions
<kv-calc, and a run that finds no element, are reported. --check changes nothing and exits 1
when a page's baked content is missing or stale, when a page mentions <kv-calc out of sight
(an attribute, a script, a comment) with no element, or when no element is found at all;
--force also replaces content an author wrote, or an earlier bake. (--reserve, which measured
the live heights in Chromium, is no longer needed: ignored.)`;

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
    if (arg.startsWith('hf:')) config = (await hubTexts([arg]))[0];
    else if (arg === '-') config = readFileSync(0, 'utf8');
    else if ((file = Boolean(statSync(arg, { throwIfNoEntry: false })?.isFile()))) config = readFileSync(arg, 'utf8');
  } catch (e) {
    console.error(e.field === 'config' ? `kvcalc: ${e.message}` : `kvcalc: ${arg}: ${e.message}`);
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
  const { bake, htmlFiles, noElementMessage, nothingBakedMessage, writeWhole, writeStylesheet, stylesheetText } = await import('./bake.mjs');
  // Each file with the folder it is baked in: kvcalc.css goes at that folder's root.
  let files;
  try {
    files = paths.flatMap((p) => {
      const root = statSync(p, { throwIfNoEntry: false })?.isDirectory() ? p : dirname(p);
      return htmlFiles(p).map((file) => ({ file, root }));
    });
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
  const roots = new Set();  // the folders whose pages link kvcalc.css at their root
  for (const { file, root } of files) {
    const html = readFileSync(file, 'utf8');
    let r;
    try {
      r = await bake(html, { file, root, force: flags.has('--force') });
    } catch (e) {
      // The file stays as it was; the others are baked.
      console.error(`kvcalc bake: ${e.message}`);
      failed += 1;
      continue;
    }
    baked += r.count;
    elements += r.elements;
    if (r.stylesheet?.rootCopy) roots.add(root);
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
  for (const root of roots) {
    const sheet = join(root, 'kvcalc.css');
    if (check) {
      if (!existsSync(sheet) || readFileSync(sheet, 'utf8') !== stylesheetText()) {
        console.error(`kvcalc bake: ${sheet}: the baked elements' style sheet is missing or stale (run kvcalc bake ${root})`);
        stale += 1;
      }
      continue;
    }
    try {
      writeStylesheet(root);
    } catch (e) {
      console.error(`kvcalc bake: ${e.message}`);
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
    console.log('kvcalc bake --reserve: no longer needed, nothing measured: a baked element has its live layout from the first paint');
  }
  return EXIT.ok;
}

function usage(message, text) {
  console.error(`kvcalc: ${message}\n${text}`);
  return EXIT.usage;
}

// The config texts of hf: arguments, fetched one after the other.
async function hubTexts(args) {
  const { hubConfigText, hubFromEnv } = await import('./hub-config.mjs');
  const hub = hubFromEnv();
  const texts = [];
  for (const arg of args) texts.push(await hubConfigText(arg, hub));
  return texts;
}

// The native commands' hf: arguments (after node, this file and the command), each replaced by
// a temporary file of its config text (the native CLI reads files), removed when the process
// exits. A failure is reported as the native CLI reports bad input (its words on stderr; with
// --json, the error on stdout too); true then.
async function fetchHubArgs(args) {
  const at = args.map((a, i) => (i > 2 && a.startsWith('hf:') ? i : -1)).filter((i) => i >= 0);
  if (!at.length) return false;
  let texts;
  try {
    texts = await hubTexts(at.map((i) => args[i]));
  } catch (e) {
    if (!e.code) throw e;
    console.error(`kvcalc: ${e.message}`);
    if (args.includes('--json')) console.log(JSON.stringify({ error: { code: e.code, field: 'config', message: e.message } }, null, 2));
    process.exitCode = EXIT.badInput;
    return true;
  }
  const dir = mkdtempSync(join(tmpdir(), 'kvcalc-hf-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  at.forEach((i, n) => {
    const file = join(dir, `${n + 1}.json`);
    writeFileSync(file, texts[n]);
    args[i] = file;
  });
  return false;
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
  // commands; the package's own come first, then what this command adds to CONFIG.
  const help = [command, ...rest].some((a) => a === '--help' || a === '-h') || command === 'help';
  if (command === '--help' || command === '-h' || command === 'help') {
    console.error(`${Object.values(OWN).map((c) => c.usage).join('\n')}\n`);
  }
  if (help) console.error(`${(await import('./hub-config.mjs')).HUB_USAGE}\n`);
  if (help || !(await fetchHubArgs(process.argv))) createRequire(import.meta.url)('./kvcalc_cli.cjs');
}
