// The native CLI as the site build runs it: the `<!-- cli: ARGS -->` blocks of the pages (a
// command and what it printed), the Architectures and Conformance tables. (The elements'
// baked fallbacks come from the package's own baker, dist/bake.mjs: `kvcalc bake`.) Also the
// figures' text as the CLI prints it, for the site's tests.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { escapeText } from './html.mjs';

export const DEFAULT_MODEL = 'Qwen/Qwen2.5-7B-Instruct';   // the element's default

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

// <!-- cli: ARGS --> becomes the command and what it prints (stdout; exit code when not 0).
export function insertCliRuns(html, kvcalc) {
  return html.replace(/<!--\s*cli:\s*([^>]*?)\s*-->/g, (m, argText) => {
    const args = argText.split(/\s+/);
    const { stdout, status } = kvcalc.runWithStatus(args, [0, 3]);
    const shown = `$ kvcalc ${argText}\n${stdout.replace(/\n+$/, '')}${status ? `\n$ echo $?\n${status}` : ''}`;
    return `<pre class="cli"><code>${escapeText(shown)}</code></pre>`;
  });
}
