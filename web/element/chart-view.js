// The chart: KV cache memory against context on log-log axes (proportional growth is a
// straight line, a sliding window flattens it), one line per KV dtype for the current
// model, the pool as a horizontal line and the chosen context as a marker. Every point is
// a core result; lines only join them. Drawn at the element's real width, so the text
// stays readable on a phone. Hovering over it, or focusing it and pressing the arrow keys,
// reads out the figures at one sampled context.

import { h, replace, saveText, setText, svg, watchWidth } from './dom.js';

const SERIES_CLASSES = ['s1', 's2', 's3'];

function log2(n) {
  return Math.log2(Number(n));
}

// The sample contexts: powers of two from 1K, every window edge and the model's max, up
// to a power of two past the largest. Not the chosen context: its marker needs no point,
// and so typing a context costs the chart no core call.
export function sampleContexts(r, extra) {
  // the top stays put while the reader types contexts below 1M
  const top = Math.max(1048576, 2 ** Math.ceil(Math.log2(r.context)), r.maxContext ? r.maxContext.value : 0, ...extra);
  const set = new Set();
  for (let c = 1024; c <= top * 2 && c <= 2 ** 40; c *= 2) {
    set.add(c);
    if (c >= top) break;
  }
  for (const g of r.groups) if (g.window && g.window.value >= 1024) set.add(g.window.value);
  if (r.maxContext) set.add(r.maxContext.value);
  for (const e of extra) if (e >= 1024) set.add(e);
  return [...set].sort((a, b) => a - b);
}

export function chartDtypes(r, chosen) {
  // llama.cpp: the cache types as set (K and V may differ), then f16, q8_0 and q4_0 for both.
  if (r.llamacpp) return ['auto', ...['f16', 'q8_0', 'q4_0'].filter((t) => t !== r.kvDtype)].slice(0, 3);
  const isMla = r.groups.some((g) => g.kind === 'mla');
  const list = [chosen];
  for (const d of ['auto', 'fp8', isMla ? 'fp8_ds_mla' : 'int4']) if (!list.includes(d)) list.push(d);
  return list.slice(0, 3);
}

// The chart's figures for a model's report r: one line per KV dtype at the sample contexts
// (every point of every line in one core call: series(config, options, axes) of the API),
// the pool as a line (its tokens at this model's bytes per token) and the markers of the
// chosen and the advertised context. A dtype this model cannot use (its series has an
// error) is left out. options: the size options (their context and KV dtype are the axes').
// llama.cpp pads its cells, so its allocation rises in steps: the contexts one token past
// each sampled one (where the next step starts) and, over the first steps, every step's edges,
// drawn into the line but not read out. (Its -c is split among unpadded slots first: a step
// is the padding times the slots.)
export function stepContexts(r, contexts) {
  const a = r.llamacpp;
  if (!a) return [];
  const step = a.padding * (a.kvUnified ? 1 : a.nSeqMax);
  const edges = contexts.map((c) => c + 1);
  for (let m = Math.ceil(contexts[0] / step) * step, n = 0; m <= 4 * contexts[0] && n < 48; m += step, n += 1) edges.push(m, m + 1);
  return edges.filter((c) => !contexts.includes(c));
}

export function chartData(series, config, r, { options, kvDtype, poolTokens, maxContext }, fmt) {
  const contexts = sampleContexts(r, [poolTokens, maxContext].filter(Boolean));
  const all = [...new Set([...contexts, ...stepContexts(r, contexts)])].sort((a, b) => a - b);
  const chosen = kvDtype ?? 'auto';
  const rest = { ...options };
  delete rest.context;
  delete rest.kvDtype;
  let figures = [];
  try {
    figures = series(config, rest, { contexts: all, kvDtypes: chartDtypes(r, chosen) }).series;
  } catch {
    // the main figures say what is wrong
  }
  const name = (f) => (r.llamacpp ? (f.kvDtype === 'auto' ? `${f.kvDtypeName} (as set)` : `${f.kvDtype} K and V`)
    : f.kvDtype === 'auto' ? `auto (${f.kvDtypeName})` : f.kvDtype);
  const lines = figures.filter((f) => !f.error).map((f) => {
    const at = all.map((c, i) => ({ context: c, bytes: f.kvBytes[i] }));
    return {
      dtype: f.kvDtype === 'auto' && r.llamacpp ? f.kvDtypeName : f.kvDtype,
      points: at.filter((p) => contexts.includes(p.context)),
      path: all.length > contexts.length ? at : undefined,
      current: f.kvDtype === chosen,
      label: `${name(f)}: ${fmt.bytes(f.bytesPerToken)} per token`,
    };
  });
  let pool = null;
  if (poolTokens) {
    const bytes = BigInt(poolTokens) * BigInt(r.bytesPerToken);
    if (bytes <= BigInt(Number.MAX_SAFE_INTEGER)) {
      pool = { bytes: Number(bytes), label: `pool ${fmt.tokens(poolTokens)} × ${fmt.bytes(r.bytesPerToken)} = ${fmt.binary(bytes)}`, short: `pool ${fmt.binary(bytes)}` };
    }
  }
  const markers = [{ context: r.context, label: `context ${fmt.shortTokens(r.context)}` }];
  if (maxContext && maxContext !== r.context) markers.push({ context: maxContext, label: `advertised ${fmt.shortTokens(maxContext)}` });
  return { r, series: lines, pool, fmt, markers };
}

// The chart's height for a width.
export const chartHeight = (W) => Math.round(Math.max(200, Math.min(320, W * 0.5)));

// The chart's picture at width W: the grid, ticks, axis labels, markers, pool line and series,
// each made by node(tag, attrs, ...children) (DOM nodes in the element, markup text in a
// standalone SVG file: one drawing for both). Returns { nodes, at } (at: the geometry the
// readout needs), or null when there is nothing to draw.
export function plot({ r, series, pool, fmt, markers = [] }, W, node) {
  const H = chartHeight(W);
  const left = 64;
  const right = 12;
  const top = 14;
  const bottom = 40;
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p.context);
  const ys = all.map((p) => p.bytes).filter((b) => b > 0);
  if (pool && pool.bytes > 0) ys.push(pool.bytes);
  if (!xs.length || !ys.length) return null;
  const x0 = Math.floor(log2(Math.min(...xs)));
  const x1 = Math.ceil(log2(Math.max(...xs)));
  let y0 = Math.floor(log2(Math.min(...ys)));
  let y1 = Math.ceil(log2(Math.max(...ys)));
  if (y1 - y0 < 2) { y0 -= 1; y1 += 1; }
  const X = (c) => left + ((log2(c) - x0) / Math.max(1, x1 - x0)) * (W - left - right);
  const Y = (b) => top + (1 - (log2(b) - y0) / Math.max(1, y1 - y0)) * (H - top - bottom);
  // The readout starts at the sampled context nearest the chosen one.
  const contexts = series[0].points.map((p) => p.context);
  const near = contexts.map((c) => Math.abs(log2(c) - log2(r.context)));
  const at = { contexts, X, series, pool, fmt, W, H, top, bottom: H - bottom, start: near.indexOf(Math.min(...near)) };
  const nodes = [];

  // Grid and ticks: contexts every few octaves, memory every few octaves, both labelled.
  const xStep = Math.max(1, Math.ceil((x1 - x0) / Math.max(2, Math.floor((W - left) / 70))));
  for (let e = x0; e <= x1; e += xStep) {
    const x = X(2 ** e);
    nodes.push(node('line', { class: 'grid', x1: x.toFixed(1), x2: x.toFixed(1), y1: String(top), y2: String(H - bottom) }));
    nodes.push(node('text', { class: 'tick', x: x.toFixed(1), y: String(H - bottom + 14), 'text-anchor': 'middle' }, fmt.shortTokens(2 ** e)));
  }
  const yStep = Math.max(1, Math.ceil((y1 - y0) / Math.max(2, Math.floor((H - top - bottom) / 36))));
  for (let e = y0; e <= y1; e += yStep) {
    const y = Y(2 ** e);
    nodes.push(node('line', { class: 'grid', x1: String(left), x2: String(W - right), y1: y.toFixed(1), y2: y.toFixed(1) }));
    nodes.push(node('text', { class: 'tick', x: String(left - 6), y: (y + 4).toFixed(1), 'text-anchor': 'end' }, fmt.binary(2 ** e).replace(/\.00 /, ' ').replace(/,00 /, ' ')));
  }
  nodes.push(node('text', { class: 'axis-label', x: String((left + W - right) / 2), y: String(H - 6), 'text-anchor': 'middle' }, 'context (tokens, log scale)'));
  nodes.push(node('text', { class: 'axis-label', x: '12', y: String(top + (H - top - bottom) / 2), 'text-anchor': 'middle', transform: `rotate(-90 12 ${top + (H - top - bottom) / 2})` }, 'KV cache (log scale)'));

  // The chosen context (and the advertised one, in the check).
  markers.filter((m) => log2(m.context) >= x0 && log2(m.context) <= x1).forEach((m, i) => {
    const mx = X(m.context);
    nodes.push(node('line', { class: 'marker', x1: mx.toFixed(1), x2: mx.toFixed(1), y1: String(top), y2: String(H - bottom) }));
    const anchor = mx > W - right - 80 ? 'end' : 'start';
    nodes.push(node('text', { class: 'tick', x: (mx + (anchor === 'end' ? -4 : 4)).toFixed(1), y: String(H - bottom - 5 - i * 13), 'text-anchor': anchor }, m.label));
  });

  if (pool && pool.bytes > 0) {
    const py = Y(pool.bytes);
    nodes.push(node('line', { class: 'pool-line', x1: String(left), x2: String(W - right), y1: py.toFixed(1), y2: py.toFixed(1) }));
    // Labelled at the left, where the lines run low, below the line when it is near the top.
    const ly = py - 5 < top + 30 ? py + 13 : py - 5;
    nodes.push(node('text', { class: 'pool-label', x: String(left + 4), y: ly.toFixed(1), 'text-anchor': 'start' }, pool.short || pool.label));
  }
  series.forEach((s, i) => {
    const d = (s.path ?? s.points).filter((p) => p.bytes > 0)
      .map((p, j) => `${j ? 'L' : 'M'}${X(p.context).toFixed(1)} ${Y(p.bytes).toFixed(1)}`).join(' ');
    nodes.push(node('path', { class: `series ${SERIES_CLASSES[i]}${s.current ? ' current' : ''}`, d }));
  });
  return { nodes, at };
}

// The chart in words: what a screen reader hears and a standalone figure's description.
export function describe({ r, series, pool, fmt }) {
  const cur = series.find((s) => s.current) || series[0];
  let text = `KV cache of ${r.model} against context, log scales. ${cur.label}: ${fmt.binary(r.kvBytes)} at ${fmt.tokens(r.context)}.`;
  if (pool) text += ` The ${pool.label}.`;
  return text;
}

export class ChartView {
  constructor() {
    this.svgEl = svg('svg', { class: 'plot', role: 'img', part: 'chart-svg', tabindex: '0' });
    this.guide = svg('line', { class: 'guide' });
    this.readout = h('p', { class: 'note readout', 'aria-live': 'polite' });
    this.legend = h('ul', { class: 'legend', part: 'legend' });
    this.summary = h('p', { class: 'note' });
    // The chart as a standalone .svg file (kv.svg() for the same inputs), for slides and docs
    // without scripts; made here, no request.
    this.download = h('button', { type: 'button', class: 'download', part: 'button download', onclick: () => this.save() }, 'Download SVG');
    this.root = h('section', { class: 'view chart', part: 'view chart' },
      h('h2', null, 'Memory against context'),
      this.svgEl, this.readout, this.legend, this.summary, this.download);
    this.last = null;
    this.size = watchWidth(this.root, () => this.last && this.draw(this.last));
    // The readout: the sampled context nearest the pointer, or stepped with the arrow keys.
    const e = this.svgEl;
    e.addEventListener('pointermove', (ev) => {
      if (!this.at) return;
      const box = e.getBoundingClientRect();
      const x = ((ev.clientX - box.left) * this.at.W) / box.width;
      const xs = this.at.contexts.map((c) => Math.abs(this.at.X(c) - x));
      this.read(xs.indexOf(Math.min(...xs)));
    });
    e.addEventListener('keydown', (ev) => {
      const step = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[ev.key];
      if (!step || !this.at) return;
      ev.preventDefault();
      this.read(Math.max(0, Math.min(this.at.contexts.length - 1, this.i + step)));
    });
    e.addEventListener('focus', () => this.read(this.at ? this.at.start : -1));
    for (const ev of ['pointerleave', 'blur']) e.addEventListener(ev, () => this.read(-1));
  }

  // Shows the figures at the i-th sampled context (none for -1).
  read(i) {
    const { contexts = [], X, series, pool, fmt, top, bottom } = this.at ?? {};
    this.i = i;
    if (!contexts[i]) {
      this.guide.setAttribute('hidden', '');
      setText(this.readout, 'Hover over the chart, or focus it and press the arrow keys, to read its figures.');
      return;
    }
    const x = X(contexts[i]).toFixed(1);
    for (const [k, v] of [['x1', x], ['x2', x], ['y1', top], ['y2', bottom]]) this.guide.setAttribute(k, v);
    this.guide.removeAttribute('hidden');
    setText(this.readout, `At ${fmt.tokens(contexts[i])}: ${series.map((s) => `${s.dtype} ${fmt.binary(s.points[i].bytes)}`)
      .join(', ')}${pool ? `; ${pool.short}` : ''}.`);
  }

  save() {
    if (this.last?.download) saveText(this.last.download(), this.last.r.model);
  }

  // series: [{ dtype, label, points: [{context, bytes}], current }]; pool: {bytes, label}|null
  update(data) {
    this.last = data;
    this.draw(data);
  }

  draw(data) {
    const { r, series, pool, fmt } = data;
    // Its box is the style sheet's (styles.js, CHART_CSS): this drawing fills it.
    const W = Math.max(280, this.size.width());
    const drawn = plot(data, W, svg);
    if (!drawn) {
      this.at = null;
      replace(this.svgEl);
      return;
    }
    this.at = drawn.at;
    const nodes = [svg('title', null, `KV cache memory against context for ${r.model}`), ...drawn.nodes];
    nodes.push(this.guide);
    this.svgEl.setAttribute('viewBox', `0 0 ${W} ${drawn.at.H}`);
    const text = describe(data);
    setText(this.summary, text);
    this.svgEl.setAttribute('aria-label', text);
    replace(this.svgEl, nodes);
    this.read(-1);

    replace(this.legend, series.map((s, i) => h('li', null,
      svg('svg', { viewBox: '0 0 24 8', 'aria-hidden': 'true' },
        svg('line', { class: `series ${SERIES_CLASSES[i]}`, x1: '0', x2: '24', y1: '4', y2: '4' })),
      s.label)).concat(pool ? [h('li', null,
      svg('svg', { viewBox: '0 0 24 8', 'aria-hidden': 'true' },
        svg('line', { class: 'pool-line', x1: '0', x2: '24', y1: '4', y2: '4' })), pool.label)] : []));
  }
}
