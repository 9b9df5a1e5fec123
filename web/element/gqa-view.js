// The GQA view: one model with every possible number of KV heads (each divisor of its
// query-head count, 1 = MQA up to all = MHA), the cache at the chosen context for each, the
// ratio to MHA, a picture of query heads grouped onto KV heads, and MLA as its own point.
// Every figure is the core's: one series() call over the variants {kvHeads: d} and 'mla'
// (the core makes them from the model: an MLA model expanded into full heads, a model
// without MLA given DeepSeek-V3's latent on every attention layer, no windows).

import { h, replace, saveText, setText, svg, uid, watchWidth } from './dom.js';
import { describeError } from './error-text.js';
import { textWidth } from './text-width.js';
import { runSteps } from './steps.js';

// Every divisor of n, ascending.
export function divisors(n) {
  const small = [];
  const large = [];
  for (let d = 1; d * d <= n; d += 1) {
    if (n % d === 0) {
      small.push(d);
      if (d * d !== n) large.unshift(n / d);
    }
  }
  return [...small, ...large];
}

// The config field that sets the KV heads of the model's first attention group, as the
// report names its source ("text_config.num_key_value_heads"), for the slider's label.
function kvHeadsField(r) {
  const g = r.groups.find((x) => x.kvHeads);
  const source = g?.kvHeads.source ?? '';
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(source) ? source : 'the KV-head count';
}

function kindOf(d, q) {
  return d === q ? 'MHA' : d === 1 ? 'MQA' : 'GQA';
}

// a / b as "0.14x", rounded half up from exact integers.
function ratioText(a, b, fmt) {
  const A = BigInt(a);
  const B = BigInt(b);
  if (B === 0n) return '—';
  const hundredths = (A * 100n + B / 2n) / B;
  return `${fmt.int(hundredths / 100n)}${fmt.decimal}${String(hundredths % 100n).padStart(2, '0')}x`;
}

// The GQA figures of a model's report r: one point per divisor of the query heads (1 = MQA
// up to all = MHA), then the MLA point (an MLA model's own latent is the model as
// configured), each the core's, from series(axes) (the core's series() at r's context and
// options). { none: true } when the model has no KV heads to vary; { error } when the core
// refused the variants. The element's view and the standalone figure (kv.svg(), chart
// 'gqa') both read it.
export function gqaData(series, r, fmt) {
  const q = r.queryHeads.value;
  const isMla = r.groups.some((g) => g.kind === 'mla');
  const own = r.groups.find((g) => g.kvHeads);
  if (!own && !isMla) return { r, q, fmt, none: true };
  const heads = divisors(q);
  let figures;
  try {
    figures = series({ variants: [...heads.map((d) => ({ kvHeads: d })), ...(isMla ? [] : ['mla'])] }).series;
  } catch (e) {
    figures = [{ error: e }];
  }
  const failed = figures.slice(0, heads.length).find((f) => f.error);
  if (failed) return { r, q, fmt, error: failed.error };
  const points = heads.map((d, i) => ({ kvHeads: d, bytes: figures[i].kvBytes[0], bytesPerToken: figures[i].bytesPerToken }));
  const m = isMla ? null : figures[heads.length];
  const mla = isMla
    ? { bytes: r.kvBytes, bytesPerToken: r.bytesPerToken, label: `MLA (this model: latent ${fmt.int(r.groups.find((g) => g.kind === 'mla').latentDim.value)})` }
    : m && !m.error ? { bytes: m.kvBytes[0], bytesPerToken: m.bytesPerToken, label: `MLA (latent ${fmt.int(m.latentDim)}, as DeepSeek-V3: 512 + 64)` } : null;
  return { r, q, fmt, isMla, ownKv: isMla ? null : own.kvHeads.value, points, mla, mha: points[points.length - 1] };
}

// The bars of the cache for each KV-head count, MQA at the top to MHA, and the MLA point on
// the same scale, at width W, each made by node(tag, attrs, ...children) (as chart-view.js
// plot()): the view's bars and the standalone figure's (kv.svg(), chart 'gqa'). Narrow (a
// phone), the labels and figures are shorter. No text overlaps another or leaves the
// figure, whatever the width (text-width.js bounds each): the label column is as wide as
// its longest label, each bar leaves room for its figure at its end, and the MLA point's
// text goes on a line of its own under it when it does not fit after it. Returns
// { nodes, height }.
const LABEL_PX = 12;
const FIGURE_PX = 11;
export function plotBars({ q, points, mla, mha, ownKv, fmt }, W, node) {
  const narrow = W < 560;
  const ratio = (b) => `${ratioText(b, mha.bytes, fmt)}${narrow ? '' : ' of MHA'}`;
  const labels = points.map((p) => `${fmt.int(p.kvHeads)}${narrow ? '' : ` KV ${p.kvHeads === 1 ? 'head' : 'heads'}`} (${kindOf(p.kvHeads, q)})`);
  const figures = points.map((p) => `${fmt.binary(p.bytes)}, ${ratio(p.bytes)}${p.kvHeads === ownKv && !narrow ? ' (configured)' : ''}`);
  const left = Math.max(narrow ? 92 : 150, Math.ceil(Math.max(...labels.map((l) => textWidth(l, LABEL_PX)))) + 12);
  const row = 24;
  const top = 8;
  const max = Math.max(...points.map((p) => Number(p.bytes)), mla ? Number(mla.bytes) : 0) || 1;
  // As long as the width allows, less what each bar's figure needs after its end.
  let barW = W - left - (narrow ? 112 : 230);
  points.forEach((p, i) => {
    const share = Number(p.bytes) / max;
    if (share > 0) barW = Math.min(barW, (W - 2 - left - 6 - textWidth(figures[i], FIGURE_PX)) / share);
  });
  barW = Math.max(40, barW);
  const X = (b) => left + (Number(b) / max) * barW;
  const nodes = [];
  points.forEach((p, i) => {
    const y = top + i * row;
    nodes.push(node('text', { class: 'label', x: String(left - 8), y: String(y + 15), 'text-anchor': 'end' }, labels[i]));
    nodes.push(node('rect', { class: `bar${p.kvHeads === ownKv ? ' configured' : ''}`, x: String(left), y: String(y + 4), width: Math.max(1, X(p.bytes) - left).toFixed(1), height: '14' }));
    nodes.push(node('text', { x: (X(p.bytes) + 6).toFixed(1), y: String(y + 15) }, figures[i]));
  });
  let bottom = top + points.length * row;
  if (mla) {
    const y = bottom;
    const x = X(mla.bytes);
    const text = `${fmt.binary(mla.bytes)}, ${ratio(mla.bytes)}${narrow ? '' : `: ${mla.label}`}`;
    nodes.push(node('text', { class: 'label', x: String(left - 8), y: String(y + 15), 'text-anchor': 'end' }, 'MLA'));
    nodes.push(node('line', { class: 'mla-guide', x1: String(left), x2: x.toFixed(1), y1: String(y + 11), y2: String(y + 11) }));
    nodes.push(node('circle', { class: 'pt mla', cx: x.toFixed(1), cy: String(y + 11), r: '5' }));
    const width = textWidth(text, FIGURE_PX);
    if (x + 9 + width <= W - 2) {
      nodes.push(node('text', { x: (x + 9).toFixed(1), y: String(y + 15) }, text));
      bottom += row;
    } else {
      // Under the row, from the bars' start (or from the figure's edge, when that is too far).
      const start = left + width <= W - 2 ? left : 2;
      nodes.push(node('text', { x: String(start), y: String(y + 15 + 16) }, text));
      bottom += row + 16;
    }
  }
  nodes.unshift(node('line', { class: 'axis', x1: String(left), x2: String(left), y1: String(top - 4), y2: String(bottom) }));
  return { nodes, height: bottom + 4 };
}

// Query heads in a row on top, KV heads below, a line from each query head to its KV head,
// at width W, each made by node() (the element's picture and the standalone figure's).
export const HEADS_HEIGHT = 130;
export function plotHeads(q, d, W, fmt, node) {
  const pad = 10;
  const cell = (W - 2 * pad) / q;
  const kvCell = (W - 2 * pad) / d;
  const qSize = Math.max(1.5, Math.min(18, cell * 0.7));
  const kSize = Math.max(3, Math.min(22, kvCell * 0.7));
  const H = HEADS_HEIGHT;
  const nodes = [];
  const group = q / d;
  for (let i = 0; i < q; i += 1) {
    const x = pad + cell * (i + 0.5);
    const k = Math.floor(i / group);
    const kx = pad + kvCell * (k + 0.5);
    nodes.push(node('line', { class: 'link', x1: x.toFixed(1), y1: (28 + qSize).toFixed(1), x2: kx.toFixed(1), y2: (H - 30).toFixed(1) }));
  }
  for (let i = 0; i < q; i += 1) {
    const x = pad + cell * (i + 0.5);
    nodes.push(node('rect', { class: 'q', x: (x - qSize / 2).toFixed(1), y: '28', width: qSize.toFixed(1), height: qSize.toFixed(1), rx: '2' }));
  }
  for (let k = 0; k < d; k += 1) {
    const kx = pad + kvCell * (k + 0.5);
    nodes.push(node('rect', { class: 'kvh', x: (kx - kSize / 2).toFixed(1), y: (H - 30).toFixed(1), width: kSize.toFixed(1), height: '14', rx: '2' }));
  }
  nodes.push(node('text', { x: String(pad), y: '16' }, `${fmt.int(q)} query heads`));
  nodes.push(node('text', { x: String(pad), y: String(H - 4) }, `${fmt.int(d)} KV ${d === 1 ? 'head' : 'heads'} (${kindOf(d, q)})`));
  return nodes;
}

// What the figures are for: the batch and KV dtype, or llama.cpp's slots and cache types.
const setting = (r, fmt) => `${r.llamacpp ? `${fmt.int(r.llamacpp.nSeqMax)} ${r.llamacpp.nSeqMax === 1 ? 'slot' : 'slots'}, ` +
  `K ${r.llamacpp.cacheTypeK}, V ${r.llamacpp.cacheTypeV}` : `batch ${fmt.int(r.batch)}, ${r.kvDtype}`}, ${r.accounting}`;

// The GQA figures in words: a standalone figure's description.
export function describeGqa({ r, q, points, mla, mha, ownKv, fmt }) {
  const each = points.map((p) => `${fmt.int(p.kvHeads)} KV ${p.kvHeads === 1 ? 'head' : 'heads'} (${kindOf(p.kvHeads, q)}${p.kvHeads === ownKv ? ', configured' : ''}): ` +
    `${fmt.bytes(p.bytesPerToken)} per token, ${fmt.binary(p.bytes)}, ${ratioText(p.bytes, mha.bytes, fmt)} of MHA`);
  if (mla) each.push(`${mla.label}: ${fmt.bytes(mla.bytesPerToken)} per token, ${fmt.binary(mla.bytes)}, ${ratioText(mla.bytes, mha.bytes, fmt)} of MHA`);
  return `KV cache of ${r.model} at ${fmt.tokens(r.context)}, ${setting(r, fmt)}, ` +
    `for each KV-head count (divisors of ${fmt.int(q)} query heads). ${each.join('; ')}.`;
}

// A GQA table row's last three cells: bytes per token, the cache, the ratio to MHA.
function figureCells([perToken, exact, cache, ratio]) {
  return [h('td', { class: 'num' }, perToken), h('td', { class: 'num', title: exact }, cache), h('td', { class: 'num' }, ratio)];
}

export class GqaView {
  constructor(onPick) {
    this.onPick = onPick;
    const id = uid('kv-gqa');
    this.range = h('input', { id, type: 'range', min: '0', max: '0', step: '1', value: '0', part: 'input gqa-range' });
    this.label = h('label', { for: id }, 'KV heads');
    this.ticks = h('div', { class: 'ticks', 'aria-hidden': 'true' });
    this.readout = h('p', { part: 'gqa-readout' });
    this.picture = svg('svg', { class: 'heads', role: 'img', part: 'gqa-picture' });
    // The table below says the same figures in words: the bars are hidden from a screen reader.
    this.bars = svg('svg', { class: 'gqa-bars', 'aria-hidden': 'true', part: 'gqa-bars' });
    this.tbody = h('tbody');
    // Outside the scrolling box, so a phone shows it whole.
    this.caption = h('p', { class: 'caption', id: uid('kv-gqa-caption') });
    this.note = h('p', { class: 'note' });
    this.error = h('p', { class: 'error', role: 'alert' });
    // The figure as a standalone .svg file (kv.svg() with chart 'gqa'), as the chart's button.
    this.download = h('button', { type: 'button', class: 'download', part: 'button download',
      onclick: () => this.last?.download && saveText(this.last.download(), this.last.r.model) }, 'Download SVG');
    this.root = h('section', { class: 'view gqa', part: 'view gqa' },
      h('h2', null, 'KV heads: from MQA to MHA'),
      h('div', { class: 'gqa-control' }, this.label, this.range, this.ticks),
      this.readout,
      this.picture,
      this.bars,
      this.caption,
      this.tableWrap = h('div', { class: 'table-wrap', tabindex: '0', role: 'region' },
        h('table', { part: 'table gqa-table', 'aria-labelledby': this.caption.id },
          h('thead', null, h('tr', null,
            h('th', { scope: 'col' }, 'KV heads'), h('th', { scope: 'col', class: 'kind' }, 'Kind'),
            h('th', { scope: 'col' }, 'Query heads per KV head'), h('th', { scope: 'col' }, 'Bytes per token'),
            h('th', { scope: 'col' }, 'Cache'), h('th', { scope: 'col' }, 'Ratio to MHA'))),
          this.tbody)),
      this.note, this.error, this.download);
    this.choice = null;   // chosen KV heads, null = the model's own
    this.modelKey = null;
    this.size = watchWidth(this.root, () => {
      if (this.lastHeads) this.drawHeads(...this.lastHeads);
      if (this.data) this.drawBars();
    });
    this.range.addEventListener('input', () => {
      this.choice = this.points[Number(this.range.value)].kvHeads;
      this.onPick?.();
    });
  }

  // series(axes) -> the core's series() of the model at the chosen context and options;
  // key names the model (a new one starts at its own KV-head count).
  update(args) {
    runSteps(this.updateSteps(args));
  }

  // update() in steps (table-view.js steps() says why): the figures, the rows, the bars,
  // the heads.
  * updateSteps({ result: r, key, fmt, series, download }) {
    const data = gqaData(series, r, fmt);
    yield;
    setText(this.error, '');
    this.last = { r, download };
    if (data.none || data.error) {
      this.data = null;
      this.rowsKey = null;
      replace(this.bars);
    }
    if (data.none) {
      this.root.hidden = false;
      setText(this.readout, `${r.model} has no attention layers with KV heads to vary.`);
      replace(this.tbody);
      return;
    }
    if (key !== this.modelKey) {
      this.modelKey = key;
      this.choice = null;
    }
    if (data.error) {
      setText(this.error, `Cannot vary the KV heads: ${describeError(data.error)}`);
      replace(this.tbody);
      return;
    }
    const { q, isMla, mla, mha, ownKv } = data;
    this.points = data.points;
    // Start at the model as configured; an MLA model at MHA, the attention MLA compresses.
    const chosen = this.choice ?? ownKv ?? q;
    let index = this.points.findIndex((p) => p.kvHeads === chosen);
    if (index < 0) index = 0;
    const p = this.points[index];

    this.range.max = String(this.points.length - 1);
    if (this.range.value !== String(index)) this.range.value = String(index);
    const per = q / p.kvHeads;
    const valueText = `${fmt.int(p.kvHeads)} KV ${p.kvHeads === 1 ? 'head' : 'heads'} (${kindOf(p.kvHeads, q)}), ` +
      `${fmt.int(per)} query ${per === 1 ? 'head' : 'heads'} per KV head`;
    this.range.setAttribute('aria-valuetext', valueText);
    setText(this.label, `KV heads (divisors of ${fmt.int(q)} query heads; field varied: ${isMla ? 'MLA expanded to heads' : kvHeadsField(r)})`);
    // The ticks and the table's rows are built for a model, locale and chosen point; a new
    // context or batch sets the figures in their cells.
    const shape = JSON.stringify([fmt.locale, q, this.points.map((x) => x.kvHeads), ownKv, p.kvHeads, isMla, mla?.label ?? null]);
    const rebuild = shape !== this.rowsKey;
    this.rowsKey = shape;
    if (rebuild) replace(this.ticks, this.points.map((x) => h('span', null, fmt.int(x.kvHeads))));

    setText(this.readout, `${valueText}: ${fmt.bytesBoth(p.bytes)} at ${fmt.tokens(r.context)}` +
      `${r.batch > 1 ? ` × batch ${fmt.int(r.batch)}` : ''}, ${ratioText(p.bytes, mha.bytes, fmt)} of MHA` +
      `${ownKv === p.kvHeads ? ' (the model as configured)' : ''}.`);

    this.tableWrap.setAttribute('aria-label', `KV cache of ${r.model} for each KV-head count`);
    setText(this.caption, `${r.model}: KV cache at ${fmt.tokens(r.context)}, ${setting(r, fmt)}`);
    // Each row's figures: bytes per token, the cache (its exact bytes as the title), the ratio.
    const figures = [...this.points, ...(mla ? [mla] : [])].map((x) => [fmt.bytes(x.bytesPerToken), fmt.bytes(x.bytes),
      fmt.binary(x.bytes), ratioText(x.bytes, mha.bytes, fmt)]);
    if (rebuild) {
      const rows = this.points.map((x, i) => h('tr', { class: x.kvHeads === p.kvHeads ? 'current' : null },
        h('th', { scope: 'row' }, fmt.int(x.kvHeads), x.kvHeads === ownKv ? h('span', { class: 'muted' }, ' (configured)') : null),
        h('td', { class: 'kind' }, kindOf(x.kvHeads, q)),
        h('td', { class: 'num' }, fmt.int(q / x.kvHeads)),
        ...figureCells(figures[i])));
      if (mla) {
        rows.push(h('tr', { class: isMla ? 'current' : null },
          h('th', { scope: 'row' }, mla.label),
          h('td', { class: 'kind' }, 'MLA'),
          h('td', { class: 'num' }, '—'),
          ...figureCells(figures[this.points.length])));
      }
      replace(this.tbody, rows);
    } else {
      figures.forEach(([perToken, exact, cache, ratio], i) => {
        const cells = this.tbody.rows[i].cells;
        setText(cells[3], perToken);
        if (cells[4].title !== exact) cells[4].title = exact;
        setText(cells[4], cache);
        setText(cells[5], ratio);
      });
    }
    this.data = data;
    yield;
    this.drawBars();
    this.drawHeads(q, p.kvHeads, fmt);
    setText(this.note, isMla
      ? 'This model caches one latent per token (MLA); the KV-head rows show the same attention with full keys and values per head.'
      : 'Every query head reads the K and V of one KV head; fewer KV heads means a smaller cache.');
  }

  // The bars (plotBars) at the view's width.
  drawBars() {
    const W = Math.max(260, this.size.width());
    const { nodes, height } = plotBars(this.data, W, svg);
    this.bars.setAttribute('viewBox', `0 0 ${W} ${height}`);
    // The box's height, whatever the width (a baked render's box is the live one's).
    this.bars.setAttribute('height', String(height));
    replace(this.bars, nodes);
  }

  // The picture of q query heads on d KV heads (plotHeads), at the view's width.
  drawHeads(q, d, fmt) {
    this.lastHeads = [q, d, fmt];
    const W = Math.max(260, this.size.width());
    // Drawn again only when it would differ (a new context changes no head).
    const key = `${q} ${d} ${W} ${fmt.locale}`;
    if (key === this.headsKey) return;
    this.headsKey = key;
    const H = HEADS_HEIGHT;
    const nodes = [svg('title', null, `${fmt.int(q)} query heads grouped onto ${fmt.int(d)} KV heads, ${fmt.int(q / d)} per group`),
      ...plotHeads(q, d, W, fmt, svg)];
    this.picture.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.picture.setAttribute('height', String(H));
    this.picture.setAttribute('aria-label', `${fmt.int(q)} query heads grouped onto ${fmt.int(d)} KV heads`);
    replace(this.picture, nodes);
  }
}
