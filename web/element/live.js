// The live <kv-calc>: everything the element does once it is near the viewport (or
// loading="eager"): reads its attributes, the URL hash and an inline config, sizes through
// the page's one wasm instance, and draws its view's sections (drawing.js) in its shadow
// root, replacing in one step what the element showed until then: the light-DOM fallback
// (through a slot), or the first render `kvcalc bake` wrote as its declarative shadow root,
// which the same code drew and whose style sheet it keeps. web/element/element.js, which
// every page loads, holds the element class and its documentation, and hands over to this
// file; the element's interface is documented there.

import { h, replace } from './dom.js';
import { readAttributes } from './state.js';
import { readHash, writeHash } from './hash.js';
import { engine, loadedEngine } from './engine.js';
import { formatterFor } from './format.js';
import { INLINE, PASTED } from './controls.js';
import { describeError } from './error-text.js';
import { Drawing } from './drawing.js';
import { SECTIONS, loadSections, sectionModule } from './sections.js';
import { KvCalcChangeEvent } from './change-event.js';
import { bakedRender, readerInput, restoreInput, styleSheet } from './baked.js';
import { HubOffer } from './hub-offer.js';

// Attributes the reader can change, written to the URL hash after an edit.
const SHARED_ATTRIBUTES = ['model', 'context', 'batch', 'kv-dtype', 'tp', 'accounting', 'pool-tokens', 'max-context'];

const HASH_DELAY_MS = 250;

// An element went live in this task (see #render).
let firstRenderInTask = false;

// Work for idle time (with a bound, so a busy page still gets it), else the next task.
const IDLE_TIMEOUT_MS = 150;
const whenIdle = (fn) => {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(fn, { timeout: IDLE_TIMEOUT_MS });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, 0);
  return () => clearTimeout(id);
};

export class Live {
  #host;
  #shadow;
  #queued = false;
  #engine = null;
  #preparing = null;     // the sections whose code (and the wasm) is loading
  #loadError = null;
  #drawing = null;       // the nodes the element shows (drawing.js), once built
  #hub = null;           // the offer to fetch a model from the Hugging Face Hub (hub-offer.js)
  #configInputs = null;  // the paste panel's ConfigInput (a promise), once opened
  #shown = false;        // the live content has replaced the fallback or the baked render
  #baked;                // the baked render (baked.js), or null
  #sheet = null;         // the element's style sheet once here: the baked render's, or adopted
  #placeholders = new Map();  // section -> the baked section holding its place until drawn
  #inline = null;        // text of the child <script type="application/json">
  #pasted = null;        // text of a pasted / dropped / hash config
  #source = null;        // 'pasted' | 'inline' | 'preset' (null: inline if present)
  #userEdited = false;   // write the hash only after the reader changed something
  #lastKey = '';
  #result = null;
  #check = null;
  #options = {};         // the size() options of the last render
  #hashTimer = 0;
  #deferTimer = 0;       // the task that draws this element when another went live in this one
  #later = null;         // cancels the idle callback that draws the first render's other sections
  #cold;                 // the page's wasm module was not ready when this element started
  #settled = null;       // updateComplete's promise while work is pending
  #resolveSettled = null;
  #observer = null;
  #onHashChange = () => this.#readHash();
  #state;
  #shownCallback;
  #scrollTo = false;    // the URL's fragment set this element's state: scroll to it once drawn

  // host: the <kv-calc>; shadow: its shadow root, which shows the fallback through a slot,
  // or the baked render, until the first render replaces it; config: a config the page set
  // before (or null); state(name, on): sets the host's custom states; shown(): called once
  // the live content is on screen (the element then follows the page's theme, and takes in
  // a fallback a Markdown renderer put after it).
  constructor(host, shadow, { config, state, shown }) {
    this.#host = host;
    this.#shadow = shadow;
    this.#state = state;
    this.#shownCallback = shown;
    this.#baked = bakedRender(shadow);
    this.#cold = !loadedEngine();
    // The first Intl.NumberFormat costs milliseconds (locale data): build it while the wasm
    // module compiles, not after.
    formatterFor(host);
    this.#readHash();
    this.#readInline();
    if (config !== null) this.config = config;
    if (host.isConnected) this.connected();
    else this.#queue();
  }

  /** Resolves when every section shows the current state (the first section shows it as
   * soon as kvcalc-change fires; on a first render, the others follow in idle time). */
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

  connected() {
    window.addEventListener('hashchange', this.#onHashChange);
    this.#observer ??= new MutationObserver(() => {
      if (this.#readInline()) this.#queue();
    });
    this.#observer.observe(this.#host, { childList: true, subtree: true, characterData: true });
    this.#queue();
  }

  disconnected() {
    window.removeEventListener('hashchange', this.#onHashChange);
    this.#observer?.disconnect();
  }

  attributeChanged(name, oldValue, newValue) {
    if (name !== 'theme' && oldValue !== newValue) this.#queue();
  }

  // Several attribute changes in one task become one render.
  #queue() {
    this.#settled ??= new Promise((ok) => { this.#resolveSettled = ok; });
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (this.#host.isConnected) this.#render();
      else this.#settle();
    });
  }

  // Nothing left to draw: updateComplete resolves (unless the module is still loading).
  #settle() {
    if (this.#queued || this.#deferTimer || this.#later || this.#preparing || (!this.#engine && !this.#loadError)) return;
    const ok = this.#resolveSettled;
    this.#settled = null;
    this.#resolveSettled = null;
    ok?.(true);
  }

  #hashPrefix() {
    if (this.#host.id) return this.#host.id;
    const all = [...document.querySelectorAll(this.#host.localName)];
    const i = all.indexOf(this.#host);
    return i > 0 ? `${this.#host.localName}-${i + 1}` : this.#host.localName;
  }

  #readHash() {
    const { attributes, config } = readHash(this.#hashPrefix());
    if (config !== null || Object.keys(attributes).length) this.#scrollTo = true;
    for (const [name, value] of Object.entries(attributes)) {
      if (this.#host.getAttribute(name) !== value) this.#host.setAttribute(name, value);
    }
    if (config !== null && config !== this.#pasted) {
      this.#pasted = config;
      this.#source = 'pasted';
      this.#queue();
    }
  }

  // Returns true when the inline config changed.
  #readInline() {
    const script = [...this.#host.children].find((c) => c.localName === 'script' && c.type === 'application/json');
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
      else if (this.#hub?.pick(value)) return;  // a config fetched from the Hub before
      else {
        this.#source = 'preset';
        this.#host.setAttribute('model', value);
      }
      this.#queue();
      return;
    }
    // An emptied input (null) goes back to the default, and what was said about its value goes.
    if (value === null) this.#host.removeAttribute(attribute);
    else if (this.#host.getAttribute(attribute) !== value) this.#host.setAttribute(attribute, value);
    this.#queue();
  }

  // The config is tried with the element's current options (its context, dtype...), so an
  // error shows next to the config input before anything else changes: its figures only,
  // the render that follows builds the report.
  #usePastedConfig(text) {
    const e = this.#engine;
    try {
      e.figures(text, this.#options);
    } catch (err) {
      return err;
    }
    this.#pasted = text;
    this.#source = 'pasted';
    this.#userEdited = true;
    this.#queue();
    return null;
  }

  // The live content replaces what the element showed in one step, with its styles, once its
  // sections are drawn, so the page never sees a half-drawn section. pending: the sections
  // of a cold first render still to draw (in idle time). Over a baked render (the same
  // nodes, the same style sheet: the same box), the baked sections still to draw hold their
  // place until they are, and what the reader typed into the baked controls is typed into
  // the live ones. Over a fallback, the live content keeps at least the box the fallback
  // had, so the pending sections appear in it without moving the page.
  #show(pending = []) {
    if (this.#shown) return;
    this.#shown = true;
    const base = this.#drawing.base;
    const baked = this.#baked;
    const height = !baked && pending.length ? this.#host.getBoundingClientRect().height : 0;
    const typed = baked && readerInput(baked.base, this.#shadow);
    if (this.#sheet !== baked?.link?.sheet) this.#shadow.adoptedStyleSheets = [this.#sheet, ...this.#shadow.adoptedStyleSheets];
    if (baked) {
      for (const name of pending) {
        const place = baked.sections[name];
        if (!place) continue;
        this.#drawing.section(name).root.before(place);
        this.#placeholders.set(name, place);
      }
    }
    // The baked render's link stays where it is (a link moved is a style sheet loaded again).
    const keep = this.#sheet === baked?.link?.sheet ? baked.link : null;
    for (const node of [...this.#shadow.childNodes]) if (node !== keep) node.remove();
    this.#shadow.append(base);
    this.#baked = null;
    // The pictures (chart, GQA heads, check bar) were drawn at a guessed width: now on the
    // page, they are drawn again at their own, before any frame shows them.
    const drawn = Object.values(this.#drawing.sections).filter((view) => view.size);
    for (const view of drawn) view.size.measure();
    for (const view of drawn) view.size.fit();
    this.#state('live', true);
    this.#shownCallback();
    if (height) {
      // The host's box (border-box) stays as tall: its content box, less the live padding
      // and border.
      const cs = getComputedStyle(this.#host);
      const frame = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth'].reduce((sum, k) => sum + parseFloat(cs[k]), 0);
      base.style.minHeight = `${Math.max(0, height - frame)}px`;
    }
    if (typed) restoreInput(base, typed, [...this.#placeholders.values()]);
  }

  // The baked sections that held the place of sections now drawn (all of them: names null).
  #dropPlaceholders(names = null) {
    for (const [name, place] of this.#placeholders) {
      if (names && !names.includes(name)) continue;
      place.remove();
      this.#placeholders.delete(name);
    }
  }

  // Resolves to the paste panel's ConfigInput, loading its code the first time.
  #configInput() {
    const panel = this.#drawing.configPanel;
    this.#configInputs ??= import('./config-input.js').then(
      ({ ConfigInput }) => new ConfigInput(panel, (text) => this.#usePastedConfig(text),
        (file, options) => this.#engine.kv.readGguf(file, options)),
      (err) => {
        this.#configInputs = null;  // opening the panel again retries
        replace(panel, panel.firstChild, h('p', { class: 'field-error', role: 'alert' },
          `kvcalc could not load the config input: ${describeError(err)}`));
        throw err;
      });
    return this.#configInputs;
  }

  #render() {
    if (this.#loadError) {
      const error = h('div', { class: 'error load-error', role: 'alert', part: 'error' },
        `kvcalc could not load: ${describeError(this.#loadError)}`);
      if (this.#baked) {
        // Above the baked render, which stays.
        [...this.#shadow.children].find((c) => c.matches('.load-error'))?.remove();
        this.#baked.base.before(error);
      } else {
        replace(this.#shadow, error, h('slot'));
      }
      this.#settle();
      return;
    }
    const { values, errors } = readAttributes(this.#host);
    if (!this.#prepared(SECTIONS[values.view ?? 'formula'])) return;
    clearTimeout(this.#deferTimer);
    this.#deferTimer = 0;
    // A render before the first one's other sections were drawn draws them all now; the
    // box the fallback had, or the baked sections, go (see #drawLater).
    if (this.#later) {
      this.#later();
      this.#later = null;
    }
    if (this.#shown) {
      this.#drawing.base.style.minHeight = '';
      this.#dropPlaceholders();
    }
    // Elements that go live together (the wasm arrived for all of them) do so one per task,
    // so the page can paint the first before the others are drawn.
    if (!this.#shown) {
      if (firstRenderInTask) {
        this.#deferTimer = setTimeout(() => {
          this.#deferTimer = 0;
          this.#queue();
        }, 0);
        return;
      }
      firstRenderInTask = true;
      setTimeout(() => { firstRenderInTask = false; }, 0);
    }
    this.#drawing ??= new Drawing({
      set: (a, v) => this.#userSet(a, v),
      redraw: () => this.#queue(),
      openConfig: () => this.#configInput().catch(() => {}),
    });
    const e = this.#engine;
    const drawing = this.#drawing;
    // The offer to fetch a model that is not bundled from the Hugging Face Hub, under the
    // search (live only: hidden until the reader types an id, it is no part of a baked render).
    if (!this.#hub) {
      this.#hub = new HubOffer(drawing.controls.modelSearch, (text) => this.#usePastedConfig(text),
        (source, options) => e.kv.readGguf(source, options), () => e.lists.presets);
      drawing.controls.fields.model.el.insertBefore(this.#hub.root, drawing.controls.fields.model.error);
    }
    this.#hub.update(values, errors.some((x) => x.attribute === 'hub-endpoint'));
    const sections = SECTIONS[values.view ?? 'formula'];
    // The first render of an element that waited for the wasm module draws the view's main
    // section and replaces the fallback (or the baked render) with it: the other sections
    // (the chart, the table of every preset, the GQA rows, the check) follow in idle time,
    // one per callback, in their order on screen, each shown once drawn. Other renders (and
    // the first of an element that starts once the module is here) draw every section in
    // their task (a few core calls: the size, one series for the chart, one for the GQA
    // rows, the table's new column, the check), so no frame shows some sections at the new
    // state and others at the old.
    const pending = this.#shown || !this.#cold ? [] : sections.slice(1);
    // The full preset list fills the select after the first result is on screen.
    const presetsReady = e.lists.presets !== undefined;
    const drawn = drawing.draw(e, formatterFor(this.#host), {
      values, errors, source: this.#source, pasted: this.#pasted, inline: this.#inline,
      fetched: { key: this.#hub.selected(this.#pasted), choices: this.#hub.choices() },
    }, { pending, presetsReady });
    if (!drawn) {
      this.#show();
      this.#settle();
      return;
    }
    const { r, check, state, source, config, options, extra, selected, ctx } = drawn;
    this.#options = options;
    if (source === 'pasted') {
      const text = this.#pasted;
      this.#configInput().then((input) => input.show(text), () => {});
    }
    this.#show(pending);
    if (this.#scrollTo) {
      this.#scrollTo = false;
      this.#host.scrollIntoView();
    }

    this.#result = r;
    this.#check = check;
    if (this.#userEdited) this.#scheduleHash(source);
    const key = JSON.stringify([source, config.length, options, state.view, check && [check.poolTokens, check.maxContext], r.kvBytes]);
    if (key !== this.#lastKey) {
      this.#lastKey = key;
      this.#host.dispatchEvent(new KvCalcChangeEvent(r, check, state));
    }
    // The preset list sizes every bundled preset: it fills the model select in idle time,
    // after the sections.
    if (pending.length || !presetsReady) {
      this.#drawLater(ctx, [...pending, () => drawing.controls.setModels(e.presetList, extra, selected)]);
    } else {
      this.#settle();
    }
  }

  // Draws the first render's other sections (names) and runs the other steps (functions),
  // one per idle callback, each drawn section taking the place of the baked one that held it.
  // Over a fallback, the box keeps at least the fallback's height until the next render
  // (where a page gave the fallback a height of its own, shrinking now, perhaps in view,
  // would move the page; the next render follows a change, which may).
  #drawLater(ctx, steps) {
    this.#later = whenIdle(() => {
      const step = steps.shift();
      if (typeof step === 'function') step();
      else {
        this.#drawing.drawSection(step, ctx);
        this.#dropPlaceholders([step]);
        // Drawn at its last known width (a guess the first time): now at its own.
        const view = this.#drawing.section(step);
        view.size?.measure();
        view.size?.fit();
      }
      if (steps.length) {
        this.#drawLater(ctx, steps);
        return;
      }
      this.#later = null;
      this.#settle();
    });
  }

  // True when the wasm module, the view's section code and the element's style sheet are
  // here; else starts loading them (the element renders again when they arrive) and returns
  // false.
  #prepared(sections) {
    this.#engine ??= loadedEngine();
    if (this.#engine && this.#sheet && sections.every((s) => sectionModule(s))) return true;
    const key = String(sections);
    if (this.#preparing !== key) {
      this.#preparing = key;
      Promise.all([engine(), loadSections(sections), this.#sheet ?? styleSheet(this.#baked)]).then(([e, , sheet]) => {
        if (this.#preparing === key) this.#preparing = null;
        this.#engine = e;
        this.#sheet = sheet;
        this.#queue();
      }, (err) => {
        if (this.#preparing === key) this.#preparing = null;
        this.#loadError = err;
        this.#queue();
      });
    }
    return false;
  }

  // The hash is written a moment after the last edit: history.replaceState is slow and
  // rate-limited in browsers, and typing a number is many edits.
  #scheduleHash(source) {
    clearTimeout(this.#hashTimer);
    this.#hashTimer = setTimeout(() => {
      const attrs = {};
      for (const a of SHARED_ATTRIBUTES) attrs[a] = this.#host.getAttribute(a);
      if (source !== 'preset') attrs.model = null;
      writeHash(this.#hashPrefix(), attrs, source === 'pasted' && this.#pasted.length <= 32768 ? this.#pasted : null);
    }, HASH_DELAY_MS);
  }
}
