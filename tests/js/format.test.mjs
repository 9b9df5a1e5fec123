// The element's number formatting (web/element/format.js), in Node's full ICU: every
// grouped figure is the one Intl.NumberFormat gives for the same locale, whether the
// Formatter groups the digits itself (a locale of plain thousands) or hands them to Intl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Formatter } from '../../web/element/format.js';

// Values around every grouping boundary, up to the largest u64 the core can give.
const VALUES = [0n, 1n, 9n, 10n, 99n, 100n, 999n, 1000n, 1234n, 9999n, 10000n, 57344n, 99999n, 100000n,
  999999n, 1000000n, 1879048192n, 10737418240n, 681280n, 1048576n, 2n ** 53n - 1n, 2n ** 53n,
  10n ** 18n, 2n ** 64n - 1n];
for (let k = 1n, v = 7n; k < 20n; k += 1n) { v = v * 10n + (k % 10n); VALUES.push(v); }

test('int() is Intl.NumberFormat(locale).format of the same BigInt, in every locale kind', () => {
  // Plain thousands with ",", ".", "'", a narrow no-break space; four digits left ungrouped
  // (es, pl, it); lakh grouping (hi, en-IN); other digits (ar-EG, bn).
  // en and en-US (any case) are written without Intl at all (element/plain-english.js).
  const fast = { en: ',', 'en-US': ',', 'EN-us': ',', de: '.', 'de-CH': "'", fr: '\u202f', ja: ',', 'pt-BR': '.' };
  for (const lang of [...Object.keys(fast), 'en-GB', 'en-ZA', 'es', 'pl', 'it', 'hi', 'en-IN', 'ar-EG', 'bn', 'sv', 'ru']) {
    const f = new Formatter(lang);
    const nf = new Intl.NumberFormat(lang);
    if (lang in fast) assert.equal(f.group, fast[lang], `${lang} groups its own digits`);
    if (['es', 'pl', 'hi', 'en-IN', 'ar-EG', 'bn'].includes(lang)) assert.equal(f.group, null, `${lang} is left to Intl`);
    for (const v of VALUES) {
      assert.equal(f.int(v), nf.format(v), `${lang} ${v}`);
      if (v <= BigInt(Number.MAX_SAFE_INTEGER)) assert.equal(f.int(Number(v)), nf.format(v), `${lang} Number(${v})`);
      assert.equal(f.int(-v), nf.format(-v), `${lang} -${v}`);
    }
    assert.equal(f.decimal, nf.formatToParts(1.5).find((p) => p.type === 'decimal').value, `${lang} decimal sign`);
    assert.equal(f.locale, nf.resolvedOptions().locale, `${lang} locale`);
  }
  assert.equal(new Formatter('EN-us').nf, undefined, 'plain English builds no Intl formatter');
  // Exact beyond 2^53 (no float on the way): 2^64 - 1.
  assert.equal(new Formatter('en').int(18446744073709551615n), '18,446,744,073,709,551,615');
  assert.equal(new Formatter('de').bytes(57344), '57.344 B');
  assert.throws(() => new Formatter('en').int(1.5), RangeError);
});

test('ratio() is Intl with two decimals, whether written here or by Intl', () => {
  // Two-decimal ratios as the core rounds them, and others (more decimals, huge, tiny) that
  // go to Intl in every locale.
  const values = [0, 0.01, 0.1, 0.5, 0.65, 1, 1.5, 2.25, 10.1, 99.99, 1234.56, 681280.07, 1e6, 123456789.12,
    1.005, 2.675, 0.333, 1e21, 5e-7];
  for (let i = 0; i < 500; i += 1) values.push(Math.round(i * 7919.37) / 100);
  for (const lang of ['en', 'en-US', 'de', 'fr', 'de-CH', 'es', 'hi', 'ar-EG']) {
    const f = new Formatter(lang);
    const nf = new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    for (const x of values) assert.equal(f.ratio(x), `${nf.format(x)}x`, `${lang} ${x}`);
  }
  assert.equal(new Formatter('en').ratio(0.65), '0.65x');
  assert.equal(new Formatter('de').ratio(1234.5), '1.234,50x');
});
