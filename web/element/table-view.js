// The per-model table: attention kind, layers, KV heads / query heads, head size, bytes
// per token and memory at a few contexts (the chosen one too), for the models the `models`
// attribute lists (default: every bundled preset), with the reader's own config as a row.
// Columns sort by their header button; aria-sort says how.

import { h, replace, setText, uid } from './dom.js';
import { describeError } from './config-input.js';

const TABLE_CONTEXTS = [4096, 32768, 131072];

// Attention geometry for display, from a size result's layer groups.
export function geometry(r, fmt) {
  const att = r.groups.filter((g) => g.kvHeads);
  const mla = r.groups.find((g) => g.kind === 'mla');
  const uniq = (xs) => [...new Set(xs)];
  const kv = uniq(att.map((g) => g.kvHeads.value));
  const hd = uniq(att.map((g) => (g.vHeadDim && g.vHeadDim.value !== g.headDim.value
    ? `${fmt.int(g.headDim.value)}+${fmt.int(g.vHeadDim.value)}` : fmt.int(g.headDim.value))));
  if (mla) {
    return {
      kvText: `latent / ${fmt.int(r.queryHeads.value)}`,
      kvSort: 0,
      headText: `${fmt.int(mla.latentDim.value)} latent`,
      headSort: mla.latentDim.value,
    };
  }
  return {
    kvText: kv.length ? `${kv.map((v) => fmt.int(v)).join(', ')} / ${fmt.int(r.queryHeads.value)}` : '—',
    kvSort: kv.length ? Math.max(...kv) : 0,
    headText: hd.length ? hd.join(', ') : '—',
    headSort: att.length ? Math.max(...att.map((g) => g.headDim.value)) : 0,
  };
}

// A model id with a line-break opportunity after each "/" ("meta-llama/" "Llama-3.1-8B").
function breakable(name) {
  const parts = String(name).split('/');
  return parts.flatMap((p, i) => (i < parts.length - 1 ? [`${p}/`, h('wbr')] : [p]));
}

export class TableView {
  constructor() {
    this.sort = { key: null, dir: 'ascending' };
    // The caption sits outside the scrolling box, so a phone shows it whole.
    this.caption = h('p', { class: 'caption', id: uid('kv-table-caption') });
    this.thead = h('thead');
    this.tbody = h('tbody');
    this.note = h('p', { class: 'note' });
    this.root = h('section', { class: 'view table', part: 'view table' },
      h('h2', null, 'Per-model table'),
      // Scrolls sideways on narrow screens; the sort buttons inside take keyboard focus.
      this.caption,
      h('div', { class: 'table-wrap', part: 'table-wrap' },
        h('table', { part: 'table', 'aria-labelledby': this.caption.id }, this.thead, this.tbody)),
      this.note);
    this.headKey = '';
  }

  columns(contexts, fmt, withWeights) {
    const cols = [
      { key: 'model', label: 'Model', type: 'text' },
      { key: 'kind', label: 'Attention', type: 'text' },
      { key: 'layers', label: 'Layers', type: 'num' },
      { key: 'kv', label: 'KV heads / query heads', type: 'num' },
      { key: 'head', label: 'Head size', type: 'num' },
      { key: 'bpt', label: 'Bytes per token', type: 'num' },
      ...contexts.map((c) => ({ key: `c${c}`, label: `Memory at ${fmt.shortTokens(c)}`, type: 'num', context: c })),
    ];
    if (withWeights) cols.push({ key: 'weights', label: 'Weights', type: 'num' });
    return cols;
  }

  // rows: [{ key, config, pasted, current }]; size(config, context) -> result | throws
  update({ rows, fmt, state, size, currentContext }) {
    const contexts = [...TABLE_CONTEXTS];
    if (currentContext && !contexts.includes(currentContext)) contexts.push(currentContext);
    contexts.sort((a, b) => a - b);
    const data = rows.map((row) => {
      try {
        const base = size(row.config, contexts[0]);
        const g = geometry(base, fmt);
        const mem = {};
        for (const c of contexts) mem[c] = size(row.config, c).kvBytes;
        return { row, r: base, g, mem };
      } catch (e) {
        return { row, error: describeError(e) };
      }
    });
    const withWeights = data.some((d) => d.r && d.r.weightBytes != null);
    const cols = this.columns(contexts, fmt, withWeights);
    this.renderHead(cols);
    const sorted = this.sorted(data, cols);
    replace(this.tbody, sorted.map((d) => this.renderRow(d, cols, fmt)));
    const batch = state.batch ?? 1;
    setText(this.caption, `KV cache per model: ${batch === 1 ? 'one sequence' : `batch of ${fmt.int(batch)}`}, ` +
      `KV dtype ${state.kvDtype ?? 'auto'}, ${state.accounting ?? 'resident'} accounting` +
      `${(state.tp ?? 1) > 1 ? `, whole model over TP ${fmt.int(state.tp)}` : ''}`);
    setText(this.note, 'Memory columns are 1024-based (GiB = 2³⁰ bytes); hover a cell for the exact byte count.');
  }

  // The header is rebuilt only when the columns change, so a sort button pressed from the
  // keyboard keeps the focus; aria-sort is updated in place.
  renderHead(cols) {
    const key = JSON.stringify(cols.map((c) => c.label));
    if (key !== this.headKey) {
      this.headKey = key;
      replace(this.thead, h('tr', null, cols.map((c) => {
        const button = h('button', { type: 'button', part: 'sort-button' }, c.label);
        button.addEventListener('click', () => {
          this.sort = { key: c.key, dir: this.sort.key === c.key && this.sort.dir === 'ascending' ? 'descending' : 'ascending' };
          this.onSort?.();
        });
        return h('th', { scope: 'col', 'data-key': c.key, class: c.type === 'text' ? 'kind' : null }, button);
      })));
    }
    for (const th of this.thead.querySelectorAll('th')) {
      th.setAttribute('aria-sort', th.getAttribute('data-key') === this.sort.key ? this.sort.dir : 'none');
    }
  }

  sorted(data, cols) {
    const col = cols.find((c) => c.key === this.sort.key);
    if (!col) return data;
    const value = (d) => {
      if (!d.r) return null;
      switch (col.key) {
        case 'model': return d.r.model.toLowerCase();
        case 'kind': return d.r.attentionKind;
        case 'layers': return d.r.numLayers.value;
        case 'kv': return d.g.kvSort;
        case 'head': return d.g.headSort;
        case 'bpt': return d.r.bytesPerToken;
        case 'weights': return d.r.weightBytes ?? 0;
        default: return d.mem[col.context];
      }
    };
    const sign = this.sort.dir === 'ascending' ? 1 : -1;
    return [...data].sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      if (va === null || vb === null) return va === null ? 1 : -1;  // errors last
      if (va < vb) return -sign;
      if (va > vb) return sign;
      return 0;
    });
  }

  renderRow(d, cols, fmt) {
    const cls = [d.row.pasted ? 'pasted' : '', d.row.current ? 'current' : ''].filter(Boolean).join(' ') || null;
    const nameCell = (name) => h('th', { scope: 'row' }, breakable(name),
      d.row.pasted ? h('span', { class: 'muted' }, ` (${d.row.pasted})`) : null);
    if (d.error) {
      return h('tr', { class: cls }, nameCell(d.row.label),
        h('td', { colspan: String(cols.length - 1), class: 'kind error' }, d.error));
    }
    const { r, g } = d;
    const cells = cols.slice(1).map((c) => {
      switch (c.key) {
        case 'kind': return h('td', { class: 'kind' }, r.attentionKind);
        case 'layers': return h('td', { class: 'num' }, fmt.int(r.numLayers.value));
        case 'kv': return h('td', { class: 'num' }, g.kvText);
        case 'head': return h('td', { class: 'num' }, g.headText);
        case 'bpt': return h('td', { class: 'num' }, fmt.bytes(r.bytesPerToken));
        case 'weights': return r.weightBytes != null
          ? h('td', { class: 'num', title: `${fmt.int(r.paramCount)} parameters, ${fmt.bytes(r.weightBytes)}` },
            `${fmt.binary(r.weightBytes)} (${fmt.params(r.paramCount)}, ${r.weightDtype})`)
          : h('td', { class: 'num' }, '—');
        default: return h('td', { class: 'num', title: fmt.bytes(d.mem[c.context]) },
          h('data', { value: String(d.mem[c.context]) }, fmt.binary(d.mem[c.context])));
      }
    });
    return h('tr', { class: cls }, nameCell(r.model), cells);
  }
}
