// How wide a line of text may be drawn in an SVG figure, in px, where nothing can be measured
// (a figure drawn in Node, or before it is on the page): each character at its advance in
// DejaVu Sans (the widest common sans-serif font the figures may fall back to; system-ui,
// Segoe UI, SF and Roboto are narrower), rounded up. A label placed by it fits whatever the
// reader's font.

const NARROW = new Set([...'ijlI.,:;|!\'']);   // at most 0.34 em
const THIN = new Set([...'frt()-/ []']);        // at most 0.4 em
const WIDE = new Set([...'mwMW%+—']);           // at most 1 em

export function textWidth(text, size) {
  let em = 0;
  for (const c of String(text)) {
    em += NARROW.has(c) ? 0.34 : THIN.has(c) ? 0.4 : WIDE.has(c) ? 1 : c >= 'A' && c <= 'Z' ? 0.79 : 0.64;
  }
  return em * size;
}
