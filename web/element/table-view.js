// The per-model table: attention kind, layers, KV heads / query heads, head size, bytes
// per token, one sequence's cache at 4K / 32K / 128K and at the chosen context, and the
// weights, for the models the `models` attribute lists (default: every bundled preset),
// with the reader's own config as a row. The figures are the JS API's table(): the same
// report `kvcalc table` bakes into docs pages, so the live table and a baked one agree.
// Columns sort by their header button; aria-sort says how.

import { h, replace, setText, uid } from './dom.js';
import { describeError } from './error-text.js';
import { hostName } from './state.js';
import { runSteps } from './steps.js';

export const TABLE_CONTEXTS = [4096, 32768, 131072];

// Rows built in one step of steps(): a few milliseconds of a slow phone's main thread.
const ROWS_PER_STEP = 8;

// A model id that breaks after its "/" only ("meta-llama/" "Llama-3.1-8B"), not at hyphens.
function breakable(name) {
  const parts = String(name).split('/');
  return parts.flatMap((p, i) => {
    const piece = h('span', { class: 'nobreak' }, i < parts.length - 1 ? `${p}/` : p);
    return i < parts.length - 1 ? [piece, h('wbr')] : [piece];
  });
}

// The table's contexts: the fixed three and the chosen one, ascending.
export function tableContexts(chosen) {
  const list = [...TABLE_CONTEXTS];
  if (chosen && !list.includes(chosen)) list.push(chosen);
  return list.sort((a, b) => a - b);
}

export class TableView {
  constructor() {
    this.sort = { key: null, dir: 'ascending' };
    // The caption sits outside the scrolling box, so a phone shows it whole.
    this.caption = h('p', { class: 'caption', id: uid('kv-table-caption') });
    this.thead = h('thead');
    this.tbody = h('tbody');
    this.note = h('p', { class: 'note' });
    // Shown until the table is seen to fit (most tables are wider than a page's column); its
    // line stays, so the page does not move when it goes.
    const hint = h('p', { class: 'note' }, 'The table scrolls sideways (focus it and use the arrow keys): more columns to the right.');
    const table = h('table', { part: 'table', 'aria-labelledby': this.caption.id }, this.thead, this.tbody);
    // A table wider than the element scrolls sideways, its first column kept in view; the
    // box takes keyboard focus (arrow keys scroll it), and the hint shows while it is needed.
    const wrap = this.wrap = h('div', { class: 'table-wrap', part: 'table-wrap', tabindex: '0', role: 'region' }, table);
    if (typeof ResizeObserver === 'function') {  // not where the first render is baked (Node)
      const fits = new ResizeObserver(() => hint.classList.toggle('unneeded', wrap.scrollWidth <= wrap.clientWidth));
      fits.observe(table);
      fits.observe(wrap);
    }
    this.root = h('section', { class: 'view table', part: 'view table' },
      h('h2', null, 'Per-model table'), this.caption, hint, wrap, this.note);
    this.headKey = '';
    this.bodyKey = '';
  }

  columns(contexts, fmt, withWeights) {
    const cols = [
      { key: 'model', label: 'Model', type: 'text' },
      { key: 'kind', label: 'Attention', type: 'text' },
      { key: 'layers', label: 'Layers', type: 'num' },
      { key: 'kv', label: 'KV heads / query heads', type: 'num' },
      { key: 'head', label: 'Head size', type: 'num' },
      { key: 'bpt', label: 'Bytes per token', type: 'num' },
      ...contexts.map((c, i) => ({ key: `c${c}`, label: `Memory at ${fmt.shortTokens(c)}`, type: 'num', index: i })),
    ];
    if (withWeights) cols.push({ key: 'weights', label: 'Weights', type: 'num' });
    return cols;
  }

  // Draws the element's render context c: the rows it names (the presets unless `models`
  // says), the page's or reader's own config first, at the table's contexts.
  render(c) {
    runSteps(this.steps(c));
  }

  // render() in steps, for a caller that leaves the main thread between them (live.js): each
  // `yield` is a point where it may. Until the last step the table is as it was (the rows
  // are built apart and put in at the end), so steps left unfinished change nothing.
  * steps(c) {
    const { e, r, fmt, state } = c;
    let ids = c.models;
    if (!ids) {
      const read = e.lists.presets !== undefined;
      ids = e.presetList.map((p) => p.id);  // the first time, the core reads every bundled preset
      if (!read) yield;
    }
    const rows = ids.map((id) => ({
      key: id, label: id, config: id, current: c.source === 'preset' && id === c.presetId,
    }));
    if (c.source !== 'preset') {
      rows.unshift({ key: c.source, label: r.model, config: c.config, current: true,
        pasted: c.source === 'pasted' ? 'your config' : "this page's config" });
    }
    const contexts = tableContexts(c.options.context);
    // The options a table takes: all but the context (its columns), the batch and TP (one
    // sequence of the whole model).
    const base = { ...c.options };
    for (const k of ['context', 'batch', 'tp']) delete base[k];
    // The fixed columns are read once for a dtype and accounting (the engine keeps them);
    // a new chosen context asks the core for that one column only.
    const { report: fixedReport, rowOf: fixed } = tableFor(rows, (configs) => e.table(configs, { ...base, contexts: TABLE_CONTEXTS }));
    const chosen = contexts.find((x) => !TABLE_CONTEXTS.includes(x));
    if (chosen) yield;
    const own = chosen ? tableFor(rows, (configs) => e.table(configs, { ...base, contexts: [chosen] })).rowOf : null;
    const rowOf = fixed.map((f, i) => (!f.r || !own ? f : own[i].r ? {
      r: { ...f.r, kvBytes: contexts.map((x) => (x === chosen ? own[i].r.kvBytes[0] : f.r.kvBytes[TABLE_CONTEXTS.indexOf(x)])) },
    } : own[i]));
    yield* this.updateSteps({ rows, rowOf, contexts, fmt, state, fixed: fixedReport, r });
    // The scrolling box's name tells two tables of one page apart (axe: unique landmarks).
    this.wrap.setAttribute('aria-label', `Per-model table: ${rows.slice(0, 2).map((x) => x.label).join(', ')}` +
      `${rows.length > 2 ? ` and ${rows.length - 2} more` : ''}`);
  }

  // rows: [{ key, label, pasted, current }] in table order, and rowOf[i]: the API's table()
  // row for each, or { error }. fixed: the table() report at the fixed contexts (rowOf adds
  // the chosen context's column to its rows), the same object while the rows, dtype and
  // accounting stay (the engine keeps it): it stands for everything a row shows beside its
  // memory columns. r: the element's report (llama.cpp's allocation names the caption's settings).
  update(args) {
    runSteps(this.updateSteps(args));
  }

  * updateSteps({ rows, rowOf, contexts, fmt, state, fixed, r = null }) {
    const data = rows.map((row, i) => ({ row, ...rowOf[i] }));
    const withWeights = data.some((d) => d.r && d.r.weightBytes != null);
    const cols = this.columns(contexts, fmt, withWeights);
    // The rows are built when what they show beside the memory columns changes (the rows,
    // their order, the columns, the dtype); a new context changes one memory column, whose
    // cells are then set in place. A re-render for another view changes nothing.
    const order = this.sorted(data, cols);
    const shape = JSON.stringify([fmt.locale, this.sort, cols.map((c) => (c.index === undefined ? c.key : 'memory')),
      order.map((d) => [d.row.key, d.row.label, d.row.current, d.row.pasted ?? null, d.error ?? null])]);
    if (shape !== this.bodyKey || fixed !== this.bodyFixed) {
      // Built apart, ROWS_PER_STEP at a time, and put in at once.
      const built = [];
      for (let i = 0; i < order.length; i += ROWS_PER_STEP) {
        if (i) yield;
        for (const d of order.slice(i, i + ROWS_PER_STEP)) built.push(this.renderRow(d, cols, fmt));
      }
      this.renderHead(cols);
      this.bodyKey = shape;
      this.bodyFixed = fixed;
      replace(this.tbody, built);
    } else {
      this.renderHead(cols);
      const memory = cols.map((c, i) => [c, i]).filter(([c]) => c.index !== undefined);
      order.forEach((d, i) => {
        if (!d.r) return;
        const cells = this.tbody.rows[i].cells;
        for (const [c, j] of memory) patchMemoryCell(cells[j], d.r, c.index, fmt);
      });
    }
    const a = r?.llamacpp;
    setText(this.caption, a ? `What llama.cpp allocates per model (${hostName(a.host)}, the context as -c), ${fmt.int(a.nSeqMax)} ` +
      `${a.nSeqMax === 1 ? 'slot' : 'slots'}, K ${a.cacheTypeK}, V ${a.cacheTypeV}, ${state.accounting ?? 'llamacpp'} accounting. Weights at the config's dtype.`
      : `KV cache of one sequence per model (whole model), KV dtype ${state.kvDtype ?? 'auto'}, ` +
      `${state.accounting ?? 'resident'} accounting. Weights at the config's dtype.`);
    setText(this.note, `Memory columns are 1024-based (GiB = 2³⁰ bytes); each cell's title holds the exact byte count. ` +
      `"—": the context is above the model's own max.${state.batch > 1 || state.tp > 1 ? ' Batch and TP do not apply to this table.' : ''}`);
  }

  // The header is built when the columns change, and otherwise relabelled in place (a new
  // context renames its memory column), so a sort button pressed from the keyboard keeps
  // the focus; aria-sort is updated in place.
  renderHead(cols) {
    const key = JSON.stringify(cols.map((c) => (c.index === undefined ? c.key : 'memory')));
    if (key !== this.headKey) {
      this.headKey = key;
      replace(this.thead, h('tr', null, cols.map((c) => {
        const th = h('th', { scope: 'col', class: c.type === 'text' ? 'kind' : null }, h('button', { type: 'button', part: 'sort-button' }));
        th.firstChild.addEventListener('click', () => {
          const sortKey = th.getAttribute('data-key');
          this.sort = { key: sortKey, dir: this.sort.key === sortKey && this.sort.dir === 'ascending' ? 'descending' : 'ascending' };
          this.onSort?.();
        });
        return th;
      })));
    }
    [...this.thead.querySelectorAll('th')].forEach((th, i) => {
      if (th.getAttribute('data-key') !== cols[i].key) th.setAttribute('data-key', cols[i].key);
      setText(th.firstChild, cols[i].label);
      th.setAttribute('aria-sort', cols[i].key === this.sort.key ? this.sort.dir : 'none');
    });
  }

  sorted(data, cols) {
    const col = cols.find((c) => c.key === this.sort.key);
    if (!col) return data;
    const value = (d) => {
      if (!d.r) return null;
      switch (col.key) {
        case 'model': return d.r.model.toLowerCase();
        case 'kind': return d.r.attentionKind;
        case 'layers': return d.r.layers;
        case 'kv': return d.r.kvHeadsText;
        case 'head': return d.r.headSizeText;
        case 'bpt': return d.r.bytesPerToken;
        case 'weights': return d.r.weightBytes;
        default: return d.r.kvBytes[col.index];
      }
    };
    const sign = this.sort.dir === 'ascending' ? 1 : -1;
    // Numbers compare as numbers, text in the page's collation; errors and "—" go last.
    const numericText = (v) => (typeof v === 'string' ? parseFloat(v.replace(/[^0-9.]/g, '')) : v);
    return [...data].sort((a, b) => {
      let va = value(a);
      let vb = value(b);
      if (va === null || vb === null) return va === null ? (vb === null ? 0 : 1) : -1;
      if (col.key === 'kv' || col.key === 'head') { va = numericText(va); vb = numericText(vb); }
      if (typeof va === 'string') return sign * va.localeCompare(vb);
      return sign * (va - vb);
    });
  }

  renderRow(d, cols, fmt) {
    const cls = [d.row.pasted ? 'pasted' : '', d.row.current ? 'current' : ''].filter(Boolean).join(' ') || null;
    const nameCell = (name) => h('th', { scope: 'row' }, breakable(name),
      d.row.pasted ? h('span', { class: 'muted' }, ` (${d.row.pasted})`) : null);
    if (!d.r) {
      return h('tr', { class: cls }, nameCell(d.row.label),
        h('td', { colspan: String(cols.length - 1), class: 'kind error' }, d.error));
    }
    const { r } = d;
    const cells = cols.slice(1).map((c) => {
      switch (c.key) {
        case 'kind': return h('td', { class: 'kind' }, r.attentionKind);
        case 'layers': return h('td', { class: 'num' }, fmt.int(r.layers));
        case 'kv': return h('td', { class: 'num' }, `${r.kvHeadsText} / ${fmt.int(r.queryHeads)}`);
        case 'head': return h('td', { class: 'num' }, r.headSizeText);
        case 'bpt': return h('td', { class: 'num' }, fmt.bytes(r.bytesPerToken));
        case 'weights': return r.weightBytes != null
          ? h('td', { class: 'num weights', title: `${fmt.int(r.paramCount)} parameters, ${fmt.bytes(r.weightBytes)}` },
            `${fmt.binary(r.weightBytes)} (${fmt.params(r.paramCount)}, ${r.weightDtype})`)
          : h('td', { class: 'num' }, '—');
        default: {
          const cell = memoryCell(r, c.index, fmt);
          return h('td', { class: 'num', title: cell.title }, cell.value === null ? cell.text : h('data', { value: cell.value }, cell.text));
        }
      }
    });
    return h('tr', { class: cls }, nameCell(r.model), cells);
  }
}

// What a memory cell shows: the binary figure with the exact bytes as its title, or "—"
// above the model's own max context.
function memoryCell(r, index, fmt) {
  const v = r.kvBytes[index];
  return v === null
    ? { text: '—', value: null, title: `above this model's max context (${r.maxContext === null ? 'none given' : fmt.int(r.maxContext)})` }
    : { text: fmt.binary(v), value: String(v), title: fmt.bytes(v) };
}

// Sets a memory cell (a <td> as renderRow builds it) to show row r's figure at contexts[index],
// touching what changed: a cell that already shows those exact bytes is left as it is.
function patchMemoryCell(td, r, index, fmt) {
  const v = r.kvBytes[index];
  if (v !== null && td.firstElementChild?.value === String(v)) return;
  const cell = memoryCell(r, index, fmt);
  if (td.title !== cell.title) td.title = cell.title;
  const data = td.firstElementChild;
  if (cell.value === null) {
    if (data) replace(td, cell.text);
  } else if (!data) {
    replace(td, h('data', { value: cell.value }, cell.text));
  } else {
    if (data.value !== cell.value) data.value = cell.value;
    setText(data, cell.text);
  }
}

// Runs table() over rows, leaving out a row the core cannot read and retrying, so one bad
// config shows as an error row while the others still get figures.
export function tableFor(rows, call, describe = describeError) {
  const rowOf = rows.map(() => null);
  let live = rows.map((_, i) => i);
  for (let attempt = 0; attempt <= rows.length; attempt += 1) {
    try {
      const report = call(live.map((i) => rows[i].config));
      live.forEach((i, j) => { rowOf[i] = { r: report.rows[j] }; });
      return { report, rowOf };
    } catch (err) {
      // The core names the row in its message: "configs[1]: ..."
      const m = /^configs\[(\d+)\]: /.exec(err.message || '');
      if (!m) throw err;
      const i = live[Number(m[1])];
      rowOf[i] = { error: describe({ ...err, message: err.message.slice(m[0].length) }) };
      live = live.filter((x) => x !== i);
      if (live.length === 0) return { report: null, rowOf };
    }
  }
  return { report: null, rowOf };
}
