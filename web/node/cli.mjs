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
its attributes and inline config, in place. --check changes nothing and exits 1 when a page's
fallbacks are missing or stale; --force also replaces content an author wrote. --reserve
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
  const [arg] = positional;
  let config = arg;
  try {
    if (arg === '-') config = readFileSync(0, 'utf8');
    else if (statSync(arg, { throwIfNoEntry: false })?.isFile()) config = readFileSync(arg, 'utf8');
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
    // The option as this command names it (its flags are the attributes): poolTokens -> --pool-tokens.
    // --chart is this command's own flag.
    const { attribute = e.field === 'chart' ? 'chart' : undefined, message } = attributeError(e);
    console.error(`kvcalc: ${attribute ? `--${attribute}: ${message}` : e.message}`);
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
  const { bake, htmlFiles, writeWhole } = await import('./bake.mjs');
  let files;
  try {
    files = paths.flatMap((p) => htmlFiles(p));
  } catch (e) {
    console.error(`kvcalc bake: ${e.message}`);
    return EXIT.badInput;
  }
  let failed = 0;
  let stale = 0;
  let elements = 0;
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
    elements += r.count;
    if (r.skipped) console.error(`kvcalc bake: ${file}: ${r.skipped} <kv-calc> with an author's content left as written (--force replaces it)`);
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
  const what = `${elements} <kv-calc> in ${plural(files.length, 'file')}${failed ? ` (${plural(failed, 'file')} left as ${failed === 1 ? 'it was' : 'they were'}: see above)` : ''}`;
  console.log(check ? `kvcalc bake --check: ${what}; ${plural(stale, 'file')} stale` : `kvcalc bake: ${what}; ${plural(changed, 'file')} changed`);
  if (failed || stale) return EXIT.badInput;
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
