// The page languages whose figures the element writes without Intl: English as CLDR writes
// it, digits grouped in threes by "," with "." before decimals (tests/js/format.test.mjs
// checks both against Intl). A page's first Intl formatter or collator costs 10 to 60 ms of
// locale data on the main thread, while the element is going live.
const PLAIN = { en: 'en', 'en-us': 'en-US' };

// The locale for lang when it is plain English ("en", "en-US", any case), else null.
export function plainEnglish(lang) {
  return PLAIN[String(lang).toLowerCase()] ?? null;
}
