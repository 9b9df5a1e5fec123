// Standalone SVG figures (kv.svg(), `kvcalc svg`): the element's chart drawn by the element's
// own code (chart-view.js: plot() makes the same nodes, here as markup text); the GQA figure
// by the GQA view's (gqa-view.js: its figures from gqaData(), its bars from plotBars(), its
// heads picture from plotHeads()); for pages where
// no script runs: a README, a newsletter, slides, a PDF. One file: <title> and <desc> say the
// figures in words; light and dark follow prefers-color-scheme inside the file, in the
// element's colours; no font, script or anything else is fetched. The same input gives the
// same bytes.

import { chartData, chartHeight, describe, plot } from '../element/chart-view.js';
import { HEADS_HEIGHT, describeGqa, gqaData, plotBars, plotHeads } from '../element/gqa-view.js';
import { BASE_CSS, CHART_CSS, GQA_CSS } from '../element/styles.js';
import { Formatter } from '../element/format.js';
import { KvCalcError } from './errors.js';
import { escapeHtml as escape } from './html-text.mjs';

export const CHARTS = ['context', 'gqa', 'check'];
const WIDTH = 720;
const LEGEND_ROW = 18;


// Markup already made (a node), as against text to escape.
class Markup {
  constructor(text) {
    this.text = text;
  }
}
const markup = (c) => (c instanceof Markup ? c.text : Array.isArray(c) ? c.map(markup).join('') : escape(c));

// plot()'s node builder, writing markup: attributes in the order given, text escaped.
function node(tag, attrs, ...children) {
  const a = Object.entries(attrs ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== false)
    .map(([k, v]) => ` ${k}="${escape(v)}"`).join('');
  const inner = children.filter((c) => c !== undefined && c !== null && c !== false).map(markup).join('');
  return new Markup(inner ? `<${tag}${a}>${inner}</${tag}>` : `<${tag}${a}/>`);
}

// The element's colours (its --_* properties, light and dark), read from its style sheet.
function palette(block) {
  const out = [];
  for (const m of block.matchAll(/--(_[a-z0-9-]+):\s*var\(--kv-[a-z0-9-]+,\s*(#[0-9a-fA-F]+)\)/g)) out.push(`--${m[1]}:${m[2]}`);
  return out.join(';');
}
// The element's figure rules (the chart's .chart .grid, .chart .series, ...; the GQA view's
// .gqa-bars .bar, .heads .q, ...), not those of the element's box.
const RULES = { chart: [CHART_CSS, /^\.chart \.(?!plot)/], gqa: [GQA_CSS, /^\.(gqa-bars|heads) /] };
const css = {};  // figureCss(kind), made once each
function figureCss(kind) {
  const elementCss = BASE_CSS;
  const dark = elementCss.indexOf(':host(:state(dark))');
  const light = palette(elementCss.slice(elementCss.indexOf(':host'), dark));
  const [sheet, own] = RULES[kind];
  const rules = [...sheet.matchAll(/([^{}]+)\{([^}]*)\}/g)].filter((m) => own.test(m[1].trim()))
    .map((m) => `${m[1].trim()}{${m[2].trim()}}`).join('').replace(/\s+/g, ' ');
  return `svg{${light};color-scheme:light}` +
    `@media (prefers-color-scheme: dark){svg{${palette(elementCss.slice(dark, elementCss.indexOf('}', dark)))};color-scheme:dark}}` +
    `.bg{fill:var(--_bg)}text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}.legend-text{fill:var(--_fg);font-size:12px}${rules}`;
}

/**
 * The SVG figure of one model. api: the loaded JS API; options: the size options, with
 * chart ('context', or 'check': with the pool line and the advertised context) and, for the
 * check, poolTokens and maxContext.
 */
export function svgFigure(api, config, options = {}) {
  const { chart = 'context', poolTokens, maxContext, ...sizeOptions } = options;
  if (!CHARTS.includes(chart)) {
    throw new KvCalcError({ code: 'bad_option', message: `chart: must be one of ${CHARTS.join(', ')}, got ${JSON.stringify(String(chart))}`, field: 'chart' });
  }
  for (const [name, value] of [['poolTokens', poolTokens], ['maxContext', maxContext]]) {
    if (chart === 'check' && value === undefined) {
      throw new KvCalcError({ code: 'bad_option', message: `${name}: a check figure needs poolTokens and maxContext`, field: name });
    }
  }
  const fmt = new Formatter('en');
  const model = api.model(config);
  const r = model.size(sizeOptions);
  if (chart === 'gqa') return gqaFigure(model, r, sizeOptions, fmt);
  const { kvDtype, tp, pp } = sizeOptions;
  const checkOptions = Object.fromEntries(Object.entries({ kvDtype, tp, pp, poolTokens, maxContext }).filter(([, v]) => v !== undefined));
  const check = chart === 'check' ? api.check(config, checkOptions) : null;
  const data = chartData((...a) => model.series(...a.slice(1)), config, r, {
    options: sizeOptions, kvDtype, poolTokens: check ? check.poolTokens : undefined, maxContext: check ? check.maxContext : undefined,
  }, fmt);
  const drawn = plot(data, WIDTH, node);
  const H = chartHeight(WIDTH);
  const legend = [...data.series.map((s, i) => ({ cls: `series s${i + 1}`, label: s.label })),
    ...(data.pool ? [{ cls: 'pool-line', label: data.pool.label }] : [])];
  const height = H + 8 + legend.length * LEGEND_ROW;
  const title = chart === 'check'
    ? `${r.model}: ${fmt.int(check.maxContext)} tokens advertised against a pool of ${fmt.tokens(check.poolTokens)}`
    : `KV cache memory against context for ${r.model}`;
  let desc = describe(data);
  if (check) {
    desc += ` ${check.fits ? 'Fits' : 'Does not fit'}: one ${fmt.int(check.maxContext)}-token request ${check.fits ? 'fits' : 'needs more than'} the pool ` +
      `(max concurrency ${fmt.ratio(check.maxConcurrency)}); safe max context ${fmt.tokens(check.maxSafeContext)}.`;
  }
  desc += ` ${fmt.bytes(r.bytesPerToken)} per token (${r.kvDtype}).`;
  const rows = legend.map((l, i) => {
    const y = H + 8 + i * LEGEND_ROW + 9;
    return [node('line', { class: l.cls, x1: '64', x2: '88', y1: String(y), y2: String(y) }),
      node('text', { class: 'legend-text', x: '94', y: String(y + 4) }, l.label)];
  });
  return figure('chart', title, desc, height, node('g', { class: 'chart' }, drawn ? drawn.nodes : [], rows));
}

// The file around a figure's nodes (kind: 'chart' or 'gqa', whose rules it takes): its title,
// description, style sheet and background.
function figure(kind, title, desc, height, ...nodes) {
  const body = [
    node('title', { id: 'kvcalc-title' }, title),
    node('desc', { id: 'kvcalc-desc' }, desc),
    node('style', null, new Markup((css[kind] ??= figureCss(kind)))),
    node('rect', { class: 'bg', x: '0', y: '0', width: String(WIDTH), height: String(height) }),
    ...nodes,
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" ` +
    `role="img" aria-labelledby="kvcalc-title kvcalc-desc">${markup(body)}</svg>\n`;
}

// The GQA figure, as the element's GQA view draws it: the cache for each KV-head count from
// MQA to MHA as bars, the MLA point on the same scale, then the model's query heads grouped
// onto its configured KV heads.
function gqaFigure(model, r, sizeOptions, fmt) {
  const options = { ...sizeOptions, context: r.context };
  const data = gqaData((axes) => model.series(options, axes), r, fmt);
  if (data.none) {
    throw new KvCalcError({ code: 'bad_option', message: `chart: ${r.model} has no attention layers with KV heads to vary`, field: 'chart' });
  }
  if (data.error) throw data.error;
  const bars = plotBars(data, WIDTH, node);
  const d = data.ownKv ?? data.q;
  const heads = plotHeads(data.q, d, WIDTH, fmt, node);
  const height = bars.height + 12 + HEADS_HEIGHT;
  const title = `${r.model}: KV cache at ${fmt.tokens(r.context)} for each KV-head count, from MQA to MHA${data.mla ? ', and MLA' : ''}`;
  const desc = `${describeGqa(data)}${data.ownKv ? '' : ' The picture shows the attention MLA compresses, at MHA.'}`;
  return figure('gqa', title, desc, height, node('g', { class: 'gqa-bars' }, bars.nodes),
    node('g', { class: 'heads', transform: `translate(0 ${bars.height + 12})` }, heads));
}
