/**
 * <kv-calc>: an embeddable KV-cache calculator. Exact figures from the kvcalc core (one
 * wasm instance per page, shared by every element), rendered as text, under a strict CSP.
 *
 * Usage: `<script type="module" src="/dist/kvcalc.js"></script>` and
 * `<kv-calc model="Qwen/Qwen2.5-7B-Instruct" view="formula">fallback text</kv-calc>`.
 * The light-DOM content is the no-JS fallback (shown until the first result). An inline
 * config goes in a child `<script type="application/json">{...}</script>`.
 *
 * @summary KV-cache size: formula, per-model table, GQA demo, context-versus-pool check.
 * @tag kv-calc
 *
 * @attr model - Bundled preset id, e.g. `Qwen/Qwen2.5-7B-Instruct` (default). An inline config wins over it.
 * @attr context - Tokens per sequence: a whole number or `4K`, `128K`, `1M` (K = 1,024). Default: the model's max context.
 * @attr batch - Sequences held at once. Default 1.
 * @attr kv-dtype - KV cache dtype: `auto` (the model's dtype), `bf16`, `fp16`, `fp32`, `fp8`, `fp8_e4m3`, `fp8_e5m2`, `int8`, `int4`, `fp8_ds_mla`. Default `auto`.
 * @attr tp - Tensor-parallel GPUs. Default 1.
 * @attr view - `formula` (default), `table`, `gqa`, `check`, or `all`.
 * @attr models - Table rows: preset ids separated by commas or spaces. Default: every bundled preset.
 * @attr pool-tokens - The engine's KV pool in tokens, for the check and the chart's pool line.
 * @attr max-context - The advertised max context the check tests. Default: the model's max context.
 * @attr accounting - `resident` (default: tokens each layer keeps), `naive` (bytes per token × context), `vllm` (whole blocks reserved).
 *
 * @prop {object|null} result - The last size result (the JS API's `size()` shape), read-only.
 * @prop {Promise<boolean>} updateComplete - Resolves once every section shows the current state (the view's first section does when kvcalc-change fires; the chart, table and GQA rows may follow a task later).
 * @prop {object|null} checkResult - The last check result, read-only.
 * @prop {string|object|null} config - A config.json (text or object) to use instead of the model; `null` clears it.
 *
 * @event kvcalc-change - A new result is on screen. `event.result` is the size result, `event.check` the check result (or null), `event.state` the inputs. Bubbles, composed.
 *
 * @part base - The element's inner wrapper.
 * @part header - The model line: its name as the config gives it, attention kind, layers.
 * @part model-name - The model's name.
 * @part error - Errors about attributes or the inline config.
 * @part controls - The shared inputs.
 * @part input - Every input, select and textarea.
 * @part model-select - The model select.
 * @part button - Every button.
 * @part shortcut - The 4K / 32K / 128K / 1M context buttons.
 * @part config - The paste / drop / open config.json panel.
 * @part dropzone - Where a config.json can be dropped.
 * @part config-text - The config.json text area.
 * @part config-file - The config.json file input.
 * @part config-error - The error next to the config input, naming the field.
 * @part view - Each view's section.
 * @part formula - The formula view.
 * @part source - The formula's "where this value comes from" line.
 * @part results - The formula's per-token, per-sequence and batch figures.
 * @part table - The per-model table view, and every table.
 * @part table-wrap - The box the per-model table scrolls in.
 * @part sort-button - The per-model table's column buttons.
 * @part gqa - The GQA view.
 * @part gqa-range - The KV-heads slider.
 * @part gqa-readout - The chosen KV-head count and its cache.
 * @part gqa-picture - The query heads grouped onto KV heads.
 * @part gqa-table - The cache for each KV-head count.
 * @part check - The context-versus-pool view.
 * @part verdict - The check's verdict (role="status").
 * @part check-results - The pool, max concurrency and safe max context.
 * @part check-error - Why there is no verdict (a bad log, a missing input).
 * @part check-bar - One max-length request against the pool.
 * @part advice - The check's advice lines.
 * @part pool-steps - How the pool was found: the log lines read, or the derivation.
 * @part chart - The memory-against-context chart view.
 * @part chart-svg - The chart itself.
 * @part legend - The chart's legend.
 *
 * @cssprop --kv-color - Text colour.
 * @cssprop --kv-background - Background.
 * @cssprop --kv-surface - Panels, table heads, highlighted rows.
 * @cssprop --kv-muted-color - Notes and axis labels.
 * @cssprop --kv-border-color - Borders and grid lines.
 * @cssprop --kv-accent - Focusable formula values, pressed buttons.
 * @cssprop --kv-accent-contrast - Text on the accent colour.
 * @cssprop --kv-ok-color - The "fits" verdict and the request bar when it fits.
 * @cssprop --kv-bad-color - Errors, "does not fit".
 * @cssprop --kv-focus-color - The focus ring.
 * @cssprop --kv-series-1 - The chart's first line (the chosen KV dtype).
 * @cssprop --kv-series-2 - The chart's second line.
 * @cssprop --kv-series-3 - The chart's third line.
 * @cssprop --kv-pool-color - The pool line.
 * @cssprop --kv-radius - Corner radius.
 * @cssprop --kv-gap - Spacing between parts.
 * @cssprop --kv-font-family - The font.
 * @cssprop --kv-mono-font-family - The config text area's font.
 * @cssprop --kv-font-size - Base font size.
 */

import { h, replace, setText } from './element/dom.js';
import { sheetFor, styleSheet } from './element/styles.js';
import { ATTRIBUTES, DEFAULT_MODEL, readAttributes, readHash, writeHash } from './element/state.js';
import { engine, loadedEngine } from './element/engine.js';
import { formatterFor } from './element/format.js';
import { Controls, INLINE, PASTED } from './element/controls.js';
import { describeError } from './element/error-text.js';

// Which sections each view shows.
const SECTIONS = {
  formula: ['formula', 'chart'],
  table: ['table'],
  gqa: ['gqa'],
  check: ['check', 'chart'],   // in this order on screen
  all: ['formula', 'chart', 'table', 'gqa', 'check'],
};

// Each view's code is a file of its own, loaded when an element first shows it: a page loads
// the code of the views it shows, and of no other. The chart has no file: the formula and
// check views, which show it, each carry it (their `chart` export).
const SECTION_CODE = {
  formula: () => import('./element/formula-view.js'),
  table: () => import('./element/table-view.js'),
  gqa: () => import('./element/gqa-view.js'),
  check: () => import('./element/check-view.js'),
};
const lazyLoads = {};   // section -> Promise of its module
const lazyModules = {}; // section -> its module, once loaded
const loadSections = (names) => Promise.all(names.filter((n) => SECTION_CODE[n]).map((n) =>
  (lazyLoads[n] ??= SECTION_CODE[n]().then((m) => (lazyModules[n] = m), (err) => {
    delete lazyLoads[n];  // a later render retries
    throw err;
  }))));
// A section's module: the chart's is in whichever file of its views came first.
const sectionModule = (name) => (name === 'chart' ? (lazyModules.formula ?? lazyModules.check)?.chart : lazyModules[name]);

// Attributes the reader can change, written to the URL hash after an edit.
const SHARED_ATTRIBUTES = ['model', 'context', 'batch', 'kv-dtype', 'tp', 'accounting', 'pool-tokens', 'max-context'];

const HASH_DELAY_MS = 250;

// The option fields of size() that a bad attribute can name.
const OPTION_ATTRIBUTE = { context: 'context', batch: 'batch', kv_dtype: 'kv-dtype', kvDtype: 'kv-dtype', tp: 'tp', accounting: 'accounting' };

/** The `kvcalc-change` event: a new result is on screen. */
export class KvCalcChangeEvent extends Event {
  constructor(result, check, state) {
    super('kvcalc-change', { bubbles: true, composed: true });
    this.result = result;
    this.check = check;
    this.state = state;
  }
}

// Outside a browser (Node importing dist/kvcalc.js for the API) there is no HTMLElement:
// the class still exists, and define() does nothing.
const ElementBase = globalThis.HTMLElement ?? class {};

export class KvCalcElement extends ElementBase {
  static observedAttributes = Object.keys(ATTRIBUTES);

  /** Defines the element under `tag` in `registry`, unless that tag is already defined. */
  static define(tag = 'kv-calc', registry = globalThis.customElements) {
    return define(tag, registry);
  }

  #shadow;
  #queued = false;
  #engine = null;
  #preparing = null;     // the sections whose code (and the wasm) is loading
  #loadError = null;
  #ui = null;
  #started = false;
  #inline = null;        // text of the child <script type="application/json">
  #pasted = null;        // text of a pasted / dropped / hash config
  #source = null;        // 'pasted' | 'inline' | 'preset' (null: inline if present)
  #userEdited = false;   // write the hash only after the reader changed something
  #lastKey = '';
  #result = null;
  #check = null;
  #options = {};         // the size() options of the last render
  #hashTimer = 0;
  #deferTimer = 0;       // the secondary sections' task
  #settled = null;       // updateComplete's promise while work is pending
  #resolveSettled = null;
  #observer = null;
  #onHashChange = () => this.#readHash();

  constructor() {
    super();
    this.#shadow = this.attachShadow({ mode: 'open' });
    this.#shadow.adoptedStyleSheets = [styleSheet()];
    // Until the first result, the light-DOM fallback shows through.
    this.#shadow.append(h('slot'));
  }

  /** Resolves when every section shows the current state (the first section shows it as
   * soon as kvcalc-change fires; the chart, table and GQA figures may follow a task later). */
  get updateComplete() {
    return this.#settled ?? Promise.resolve(true);
  }

  get result() { return this.#result; }
  get checkResult() { return this.#check; }

  get config() {
    return this.#pasted ?? this.#inline;
  }

  set config(value) {
    this.#pasted = value === null || value === undefined ? null
      : typeof value === 'string' ? value : JSON.stringify(value);
    this.#source = this.#pasted !== null ? 'pasted' : null;
    this.#queue();
  }

  connectedCallback() {
    if (!this.#started) {
      this.#started = true;
      this.#readHash();
      this.#readInline();
      // The first Intl.NumberFormat costs milliseconds (locale data): build it while the
      // wasm module compiles, not after.
      formatterFor(this);
    }
    window.addEventListener('hashchange', this.#onHashChange);
    this.#observer ??= new MutationObserver(() => {
      if (this.#readInline()) this.#queue();
    });
    this.#observer.observe(this, { childList: true, subtree: true, characterData: true });
    this.#queue();
  }

  disconnectedCallback() {
    window.removeEventListener('hashchange', this.#onHashChange);
    this.#observer?.disconnect();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue !== newValue) this.#queue();
  }

  // Several attribute changes in one task become one render.
  #queue() {
    this.#settled ??= new Promise((ok) => { this.#resolveSettled = ok; });
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (this.isConnected) this.#render();
      else this.#settle();
    });
  }

  // Nothing left to draw: updateComplete resolves (unless the module is still loading).
  #settle() {
    if (this.#queued || this.#deferTimer || this.#preparing || (!this.#engine && !this.#loadError)) return;
    const ok = this.#resolveSettled;
    this.#settled = null;
    this.#resolveSettled = null;
    ok?.(true);
  }

  #hashPrefix() {
    if (this.id) return this.id;
    const all = [...document.querySelectorAll(this.localName)];
    const i = all.indexOf(this);
    return i > 0 ? `${this.localName}-${i + 1}` : this.localName;
  }

  #readHash() {
    const { attributes, config } = readHash(this.#hashPrefix());
    for (const [name, value] of Object.entries(attributes)) {
      if (this.getAttribute(name) !== value) this.setAttribute(name, value);
    }
    if (config !== null && config !== this.#pasted) {
      this.#pasted = config;
      this.#source = 'pasted';
      this.#queue();
    }
  }

  // Returns true when the inline config changed.
  #readInline() {
    const script = [...this.children].find((c) => c.localName === 'script' && c.type === 'application/json');
    const text = script ? script.textContent : null;
    if (text === this.#inline) return false;
    this.#inline = text;
    return true;
  }

  // The reader changed an input: it becomes the attribute, and the hash remembers it.
  #userSet(attribute, value) {
    this.#userEdited = true;
    if (attribute === 'model') {
      if (value === PASTED) this.#source = 'pasted';
      else if (value === INLINE) this.#source = 'inline';
      else {
        this.#source = 'preset';
        this.setAttribute('model', value);
      }
      this.#queue();
      return;
    }
    if (this.getAttribute(attribute) !== value) this.setAttribute(attribute, value);
    else this.#queue();
  }

  // The config is tried with the element's current options (its context, dtype...), so an
  // error shows next to the config input before anything else changes.
  #usePastedConfig(text) {
    const e = this.#engine;
    try {
      e.size(text, this.#options);
    } catch (err) {
      return err;
    }
    this.#pasted = text;
    this.#source = 'pasted';
    this.#userEdited = true;
    this.#queue();
    return null;
  }

  #build() {
    const ui = {};
    ui.modelName = h('span', { class: 'model-name', part: 'model-name' });
    ui.modelFacts = h('span', { class: 'muted' });
    ui.header = h('div', { class: 'model-line', part: 'header' }, ui.modelName, ui.modelFacts);
    ui.error = h('div', { class: 'error', role: 'alert', part: 'error' });
    ui.controls = new Controls((a, v) => this.#userSet(a, v));
    // The paste panel's input is built (and its code loaded) when it is first opened.
    ui.configPanel = h('details', { class: 'config-input field wide', part: 'config' }, h('summary', null, 'Use your own config.json'));
    ui.configPanel.addEventListener('toggle', () => {
      if (ui.configPanel.open) this.#configInput().catch(() => {});
    });
    ui.controls.root.append(ui.configPanel);
    ui.sections = {};  // built when a view first shows them
    ui.base = h('div', { class: 'kv', part: 'base' }, ui.header, ui.error, ui.controls.root);
    replace(this.#shadow, ui.base);
    this.#ui = ui;
  }

  // Resolves to the paste panel's ConfigInput, loading its code the first time.
  #configInput() {
    const ui = this.#ui;
    ui.configInput ??= import('./element/config-input.js').then(
      ({ ConfigInput }) => new ConfigInput(ui.configPanel, (text) => this.#usePastedConfig(text)),
      (err) => {
        ui.configInput = null;  // opening the panel again retries
        replace(ui.configPanel, ui.configPanel.firstChild, h('p', { class: 'field-error', role: 'alert' },
          `kvcalc could not load the config input: ${describeError(err)}`));
        throw err;
      });
    return ui.configInput;
  }

  #section(name) {
    const ui = this.#ui;
    if (!ui.sections[name]) {
      const make = {
        formula: () => new lazyModules.formula.FormulaView(),
        chart: () => new (sectionModule('chart').ChartView)(),
        table: () => Object.assign(new lazyModules.table.TableView(), { onSort: () => this.#queue() }),
        gqa: () => new lazyModules.gqa.GqaView(() => this.#queue()),
        check: () => new lazyModules.check.CheckView((a, v) => this.#userSet(a, v), () => this.#queue()),
      };
      ui.sections[name] = make[name]();
      ui.base.append(ui.sections[name].root);
      // The view's own styles, each sheet adopted once.
      for (const css of sectionModule(name).styles) {
        const sheet = sheetFor(css);
        if (!this.#shadow.adoptedStyleSheets.includes(sheet)) this.#shadow.adoptedStyleSheets = [...this.#shadow.adoptedStyleSheets, sheet];
      }
    }
    return ui.sections[name];
  }

  #render() {
    if (this.#loadError) {
      replace(this.#shadow, h('div', { class: 'error', role: 'alert', part: 'error' },
        `kvcalc could not load: ${describeError(this.#loadError)}`), h('slot'));
      this.#settle();
      return;
    }
    const { values, errors } = readAttributes(this);
    if (!this.#prepared(SECTIONS[values.view ?? 'formula'])) return;
    clearTimeout(this.#deferTimer);
    this.#deferTimer = 0;
    if (!this.#ui) this.#build();
    const e = this.#engine;
    const ui = this.#ui;
    const fmt = formatterFor(this);
    const messages = errors.map((x) => x.message);

    // The config: pasted, else inline, else the preset the model attribute names.
    let source = this.#source;
    if (source === 'pasted' && this.#pasted === null) source = null;
    if (source === 'inline' && this.#inline === null) source = null;
    if (source === null) source = this.#inline !== null ? 'inline' : 'preset';
    let presetId = values.model ?? DEFAULT_MODEL;
    if (/^\s*[{["]/.test(presetId)) {
      // The core would read JSON text as a config; the attribute names a preset only.
      messages.push(`model: "${presetId}" is not a bundled preset id (a config goes in a <script type="application/json"> child); showing ${DEFAULT_MODEL}`);
      presetId = DEFAULT_MODEL;
    }
    const configFor = (s) => (s === 'pasted' ? this.#pasted : s === 'inline' ? this.#inline : presetId);
    let config = configFor(source);

    const options = {};
    if (values.context !== undefined) options.context = values.context;
    if (values.batch !== undefined) options.batch = values.batch;
    if (values.kvDtype !== undefined) options.kvDtype = values.kvDtype;
    if (values.tp !== undefined) options.tp = values.tp;
    if (values.accounting !== undefined) options.accounting = values.accounting;

    // Size; an option the core rejects is reported and left out, a config it cannot read is
    // reported and the preset used instead: always said, never silent.
    let r = null;
    let formula = null;
    for (let attempt = 0; attempt < 4 && !r; attempt += 1) {
      try {
        formula = e.formula(config, options);
        r = formula.report;
      } catch (err) {
        const attr = OPTION_ATTRIBUTE[err.field];
        if (attr && options[ATTRIBUTES[attr].prop] !== undefined) {
          // The core's message starts with the option's API name; the reader set an attribute.
          const text = err.message.replace(new RegExp(`^${err.field}:? `), '');
          messages.push(`${attr}: ${text}; not applied`);
          delete options[ATTRIBUTES[attr].prop];
        } else if (source === 'preset' && err.code === 'unknown_preset' && config !== DEFAULT_MODEL) {
          messages.push(`model: "${presetId}" is not a bundled preset; showing ${DEFAULT_MODEL}`);
          presetId = DEFAULT_MODEL;
          config = presetId;
        } else if (source !== 'preset') {
          messages.push(`${source === 'inline' ? 'inline config' : 'config'}: ${describeError(err)}; showing ${presetId}`);
          source = 'preset';
          config = presetId;
        } else {
          messages.push(describeError(err));
          break;
        }
      }
    }
    replace(ui.error, messages.length > 1 ? h('ul', null, messages.map((m) => h('li', null, m))) : messages[0] ?? '');
    if (!r) {
      this.#settle();
      return;
    }

    this.#options = options;
    const configText = source === 'preset' ? e.presetConfig(presetId) : config;
    // What is in use: the attributes, less the options the core refused.
    const applied = { ...values };
    for (const prop of ['context', 'batch', 'kvDtype', 'tp', 'accounting']) {
      if (options[prop] === undefined) delete applied[prop];
    }
    const state = { ...applied, view: values.view ?? 'formula', source, presetId };
    const isMla = r.groups.some((g) => g.kind === 'mla');

    // Header and controls.
    setText(ui.modelName, r.model);
    setText(ui.modelFacts, `${r.attentionKind} · ${fmt.int(r.numLayers.value)} layers` +
      `${r.maxContext ? ` · max context ${fmt.int(r.maxContext.value)}` : ''}`);
    const extra = [];
    if (this.#pasted !== null) extra.push({ value: PASTED, label: `Your config: ${source === 'pasted' ? r.model : 'pasted'}` });
    if (this.#inline !== null) extra.push({ value: INLINE, label: `This page's config${source === 'inline' ? `: ${r.model}` : ''}` });
    // The full preset list fills the select after the first result is on screen.
    const selected = source === 'pasted' ? PASTED : source === 'inline' ? INLINE : presetId;
    const presetsReady = e.lists.presets !== undefined;
    ui.controls.setModels(presetsReady ? e.presetList : [{ id: presetId }], extra, selected);
    ui.controls.update({ state, result: r, fmt, isMla });
    if (source === 'pasted') {
      const text = this.#pasted;
      this.#configInput().then((input) => input.show(text), () => {});
    }

    const sections = SECTIONS[state.view];
    // The table names its own rows; its header would name a model it may not show.
    const tableOnly = state.view === 'table';
    ui.header.hidden = tableOnly;
    ui.controls.fields.model.el.hidden = tableOnly;
    // The table is one sequence of the whole model, as `kvcalc table` bakes it.
    ui.controls.fields.batch.el.hidden = tableOnly;
    ui.controls.fields.tp.el.hidden = tableOnly;
    if (ui.order !== state.view) {
      // The view's sections, in its order (moving nodes keeps their state); others hidden.
      ui.order = state.view;
      for (const view of Object.values(ui.sections)) view.root.hidden = true;
      for (const name of sections) {
        const view = this.#section(name);
        view.root.hidden = false;
        ui.base.append(view.root);
      }
    }

    // The check is one core call; its result goes with the event, so it is run now.
    let check = null;
    let checkMessage = '';
    if (sections.includes('check')) {
      ({ check, message: checkMessage } = this.#section('check').run(e, config, state, r));
    }
    const ctx = {
      e, fmt, r, formula, state, options, config, configText, source, presetId, isMla, check, checkMessage,
      models: values.models, sizeOpts: (extra) => ({ ...options, ...extra }),
    };
    // The view's first section is drawn now; the others (the chart, the table, the GQA rows:
    // many core calls) in a task of their own, so an edit shows its main figures at once.
    const [first, ...rest] = sections;
    this.#renderSection(first, ctx);

    this.#result = r;
    this.#check = check;
    if (this.#userEdited) this.#scheduleHash(source);
    const key = JSON.stringify([source, config.length, options, state.view, check && [check.poolTokens, check.maxContext], r.kvBytes]);
    if (key !== this.#lastKey) {
      this.#lastKey = key;
      this.dispatchEvent(new KvCalcChangeEvent(r, check, state));
    }
    if (rest.length || !presetsReady) {
      this.#deferTimer = setTimeout(() => {
        this.#deferTimer = 0;
        if (!presetsReady) ui.controls.setModels(e.presetList, extra, selected);
        for (const name of rest) this.#renderSection(name, ctx);
        this.#settle();
      }, 0);
    } else {
      this.#settle();
    }
  }

  // True when the wasm module and the view's section code are here; else starts loading them
  // (the element renders again when they arrive) and returns false.
  #prepared(sections) {
    this.#engine ??= loadedEngine();
    if (this.#engine && sections.every((s) => sectionModule(s))) return true;
    const key = String(sections);
    if (this.#preparing !== key) {
      this.#preparing = key;
      Promise.all([engine(), loadSections(sections)]).then(([e]) => {
        if (this.#preparing === key) this.#preparing = null;
        this.#engine = e;
        this.#queue();
      }, (err) => {
        if (this.#preparing === key) this.#preparing = null;
        this.#loadError = err;
        this.#queue();
      });
    }
    return false;
  }

  #renderSection(name, c) {
    const view = this.#section(name);
    const { e, fmt, r, state } = c;
    if (name === 'formula') view.update({ result: r, formula: c.formula, fmt });
    else if (name === 'check') {
      view.setGpus(e.gpuList);
      view.update({ r, state, check: c.check, message: c.checkMessage, fmt });
    } else if (name === 'chart') this.#renderChart(e, c.config, r, state, c.check, fmt, c.sizeOpts);
    else if (name === 'table') view.render(c);
    else if (name === 'gqa') {
      view.update({ result: r, configText: c.configText, fmt, size: (cfg) => e.size(cfg, c.sizeOpts({ context: r.context })) });
    }
  }

  // The hash is written a moment after the last edit: history.replaceState is slow and
  // rate-limited in browsers, and typing a number is many edits.
  #scheduleHash(source) {
    clearTimeout(this.#hashTimer);
    this.#hashTimer = setTimeout(() => {
      const attrs = {};
      for (const a of SHARED_ATTRIBUTES) attrs[a] = this.getAttribute(a);
      if (source !== 'preset') attrs.model = null;
      writeHash(this.#hashPrefix(), attrs, source === 'pasted' && this.#pasted.length <= 32768 ? this.#pasted : null);
    }, HASH_DELAY_MS);
  }

  #renderChart(e, config, r, state, check, fmt, sizeOpts) {
    const poolTokens = check ? check.poolTokens : state.poolTokens;
    const { sampleContexts, chartDtypes } = sectionModule('chart');
    const contexts = sampleContexts(r, [poolTokens, check && check.maxContext].filter(Boolean));
    const chosen = state.kvDtype ?? 'auto';
    const series = [];
    for (const dtype of chartDtypes(r, chosen)) {
      try {
        const points = contexts.map((c) => ({ context: c, bytes: e.size(config, sizeOpts({ context: c, kvDtype: dtype })).kvBytes }));
        const probe = e.size(config, sizeOpts({ context: contexts[0], kvDtype: dtype }));  // per token: any context
        series.push({ dtype, points, current: dtype === chosen, label: `${dtype === 'auto' ? `auto (${probe.kvDtype})` : dtype}: ${fmt.bytes(probe.bytesPerToken)} per token` });
      } catch {
        // a dtype this model cannot use is left out of the chart
      }
    }
    let pool = null;
    // The pool's tokens at this model's bytes per token, against the whole model's cache.
    if (poolTokens) {
      const bytes = BigInt(poolTokens) * BigInt(r.bytesPerToken);
      if (bytes <= BigInt(Number.MAX_SAFE_INTEGER)) {
        pool = { bytes: Number(bytes), label: `pool ${fmt.tokens(poolTokens)} × ${fmt.bytes(r.bytesPerToken)} = ${fmt.binary(bytes)}`, short: `pool ${fmt.binary(bytes)}` };
      }
    }
    const markers = [{ context: r.context, label: `context ${fmt.shortTokens(r.context)}` }];
    if (check && check.maxContext !== r.context) markers.push({ context: check.maxContext, label: `advertised ${fmt.shortTokens(check.maxContext)}` });
    this.#section('chart').update({ r, series, pool, fmt, markers });
  }
}

// Properties mirror the attributes: `el.kvDtype = 'fp8'` sets kv-dtype="fp8"; reading gives
// the parsed value, or null when the attribute is absent or invalid.
for (const [attribute, { prop, read }] of Object.entries(ATTRIBUTES)) {
  Object.defineProperty(KvCalcElement.prototype, prop, {
    configurable: true,
    enumerable: true,
    get() {
      const raw = this.getAttribute(attribute);
      if (raw === null) return null;
      const r = read(raw);
      return r.error ? null : r.value;
    },
    set(value) {
      if (value === null || value === undefined) this.removeAttribute(attribute);
      else this.setAttribute(attribute, Array.isArray(value) ? value.join(',') : String(value));
    },
  });
}

/**
 * Defines `<kv-calc>` (or `tag`) in `registry` unless the tag is already taken; returns the
 * class registered under it (null where there is no registry, as in Node). A second tag
 * gets its own subclass, since a class registers only once.
 */
export function define(tag = 'kv-calc', registry = globalThis.customElements) {
  if (!registry) return null;
  const existing = registry.get(tag);
  if (existing) return existing;
  let cls = KvCalcElement;
  try {
    if (registry.getName && registry.getName(KvCalcElement)) cls = class extends KvCalcElement {};
  } catch {
    cls = class extends KvCalcElement {};
  }
  registry.define(tag, cls);
  return cls;
}
