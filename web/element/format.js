// Number formatting for one locale. Every figure arrives as an exact integer from the core;
// grouping goes through Intl.NumberFormat on BigInt (exact at any size), and the binary-unit
// figures are rounded with integer arithmetic, never by float division.

import { plainEnglish } from './plain-english.js';

const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const cache = new Map();

// The formatter for the page's language at el (its nearest lang attribute).
export function formatterFor(el) {
  const host = el.closest('[lang]');
  const lang = (host && host.getAttribute('lang')) || document.documentElement.lang || 'en';
  let f = cache.get(lang);
  if (!f) {
    f = new Formatter(lang);
    cache.set(lang, f);
  }
  return f;
}

// "1234567" -> "1,234,567" with sep ",": digits in threes from the right.
function groupThousands(digits, sep) {
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += sep + digits.slice(i, i + 3);
  return out;
}

// The separator nf puts between groups of three ASCII digits, when that is all it does to a
// whole number, from one digit to twenty (checked against nf itself); else null, and
// Intl formats (Indian lakh grouping, a locale that leaves four digits ungrouped, other digits).
function plainThousands(nf) {
  const sep = nf.formatToParts(1234567).find((p) => p.type === 'group')?.value;
  if (!sep) return null;
  let digits = '';
  for (let d = 1; d <= 20; d += 1) {
    digits += String(d % 10);
    if (nf.format(BigInt(digits)) !== groupThousands(digits, sep)) return null;
  }
  return sep;
}

export class Formatter {
  constructor(lang) {
    const plain = plainEnglish(lang);
    if (plain) {
      this.locale = plain;
      this.decimal = '.';
      this.group = ',';
      return;
    }
    // One NumberFormat does both: BigInts carry no fraction, and 1.5 shows the decimal sign.
    // (Building an Intl formatter is the slow part of a first render.)
    let nf;
    try {
      nf = new Intl.NumberFormat(lang);
    } catch {
      nf = new Intl.NumberFormat('en');
    }
    this.locale = nf.resolvedOptions().locale;
    this.nf = nf;
    const decimal = nf.formatToParts(1.5).find((p) => p.type === 'decimal');
    this.decimal = decimal ? decimal.value : '.';
    this.group = plainThousands(nf);
  }

  // Intl's formatter, made when first needed (a negative figure in plain English).
  get intFormat() {
    return (this.nf ??= new Intl.NumberFormat(this.locale));
  }

  get fixed2() {
    return (this.fixed2Format ??= new Intl.NumberFormat(this.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
  }

  // 57344 -> "57,344" (en). Accepts Number (a safe integer) or BigInt. Where the locale
  // groups plain thousands (this.group), the digits are grouped here: Intl's format of a
  // BigInt takes microseconds, and a re-render of every view formats hundreds of figures.
  int(n) {
    const v = typeof n === 'bigint' || !Number.isSafeInteger(n) ? BigInt(n) : n;
    return this.group !== null && v >= 0 ? groupThousands(String(v), this.group) : this.intFormat.format(v);
  }

  bytes(n) {
    return `${this.int(n)} B`;
  }

  // The value in the largest 1024-based unit it reaches, two decimals rounded half up:
  // 1879048192 -> "1.75 GiB"; a whole number of units has no decimals ("512 MiB"). Below
  // 1 KiB it is the exact byte count.
  binary(n) {
    let v = BigInt(n);
    let unit = 0;
    let div = 1n;
    while (unit < BINARY_UNITS.length - 1 && v >= div * 1024n) {
      div *= 1024n;
      unit += 1;
    }
    if (unit === 0) return `${this.int(v)} B`;
    if (v % div === 0n) return `${this.int(v / div)} ${BINARY_UNITS[unit]}`;
    const hundredths = (v * 100n + div / 2n) / div;
    return `${this.int(hundredths / 100n)}${this.decimal}${String(hundredths % 100n).padStart(2, '0')} ${BINARY_UNITS[unit]}`;
  }

  // "1.75 GiB (1,879,048,192 B)", or just "512 B" when small.
  bytesBoth(n) {
    const b = this.binary(n);
    return BigInt(n) < 1024n ? b : `${b} (${this.bytes(n)})`;
  }

  // A parameter count in billions (or millions), two decimals rounded half up: "8.03 B".
  params(n) {
    const v = BigInt(n);
    const [div, unit] = v >= 1000000000n ? [10000000n, 'B'] : [10000n, 'M'];
    const hundredths = (v + div / 2n) / div;
    return `${this.int(hundredths / 100n)}${this.decimal}${String(hundredths % 100n).padStart(2, '0')} ${unit}`;
  }

  // The note for per-GPU figures when a tensor-parallel GPU cannot take a share of the cache:
  // TP above the KV heads (each GPU keeps a whole head: heads are replicated), or an MLA
  // latent (never split). '' otherwise.
  replicated(r) {
    const kv = Math.min(...r.groups.map((g) => (g.kvHeads ? g.kvHeads.value : g.kind === 'mla' ? 0 : Infinity)));
    if (!(r.tp >= 2) || r.tp <= kv) return '';  // no TP (llama.cpp has none), or heads to split
    return `${kv ? `TP ${this.int(r.tp)} is above the model's ${this.int(kv)} KV heads: each GPU keeps a whole head, so heads are replicated`
      : 'The MLA latent is not split: each GPU keeps all of it'}; the ${this.int(r.tp)} GPUs hold ${this.binary(r.kvBytesDeployment)} in all.`;
  }

  tokens(n) {
    return `${this.int(n)} ${BigInt(n) === 1n ? 'token' : 'tokens'}`;
  }

  // A ratio the core already rounded to two decimals (vLLM prints concurrency that way).
  // Its shortest decimal text has at most two decimals: grouped here where the locale groups
  // plain thousands, as Intl would write it; else Intl rounds.
  ratio(x) {
    const m = this.group !== null && /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(x));
    return m ? `${groupThousands(m[1], this.group)}${this.decimal}${(m[2] ?? '').padEnd(2, '0')}x` : `${this.fixed2.format(x)}x`;
  }

  // Context axis labels: 4096 -> "4K", 1048576 -> "1M".
  shortTokens(n) {
    const v = Number(n);
    if (v >= 1048576 && v % 1048576 === 0) return `${this.int(v / 1048576)}M`;
    if (v >= 1024 && v % 1024 === 0) return `${this.int(v / 1024)}K`;
    return this.int(v);
  }
}
