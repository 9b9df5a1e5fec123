// The live <kv-calc>: everything the element does once it is near the viewport (or
// loading="eager"): reads its attributes, the URL hash and an inline config, sizes through
// the page's one wasm instance, and draws its view's sections (drawing.js) in its shadow
// root, replacing in one step what the element showed until then: the light-DOM fallback
// (through a slot), or the first render `kvcalc bake` wrote as its declarative shadow root,
// which the same code drew and whose style sheet it keeps. web/element/element.js, which
// every page loads, holds the element class and its documentation, and hands over to this
// file; the element's interface is documented there.

import { contentWidth, h, replace } from './dom.js';
import { readAttributes } from './state.js';
import { readHash, writeHash } from './hash.js';
import { engine, loadedEngine } from './engine.js';
import { formatterFor } from './format.js';
import { INLINE, PASTED } from './controls.js';
import { describeError } from './error-text.js';
import { Drawing, sizeOptions, usesLlamacpp } from './drawing.js';
import { SECTIONS, loadSections, sectionModule } from './sections.js';
import { KvCalcChangeEvent } from './change-event.js';
import { bakedRender, readerInput, restoreInput, styleSheet } from './baked.js';
import { HubOffer } from './hub-offer.js';

// Attributes the reader can change, written to the URL hash after an edit.
const SHARED_ATTRIBUTES = ['model', 'context', 'batch', 'kv-dtype', 'tp', 'accounting', 'pool-tokens', 'max-context',
  'engine', 'parallel', 'cache-type-k', 'cache-type-v', 'flash-attn'];

const HASH_DELAY_MS = 250;

// The main thread back to the page (a reader's input, a frame) before the next slice of a
// long piece of work. scheduler.yield() resumes ahead of other tasks; elsewhere a message the
// page posts itself (setTimeout would wait 4 ms once nested).
const nextSlice = () => (globalThis.scheduler?.yield ? globalThis.scheduler.yield() : new Promise((ok) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => ok();
  channel.port2.postMessage(null);
}));
// After the frame that shows what was just drawn (or a moment, where no frame comes: a
// hidden page), so that the slices that follow find the layout done and do not redo it.
const FRAME_WAIT_MS = 100;
const nextFrame = () => new Promise((ok) => {
  const timer = setTimeout(ok, FRAME_WAIT_MS);
  requestAnimationFrame(() => {
    clearTimeout(timer);
    ok();
  });
});
// A render's step that asks for the frame that shows what it drew before the steps go on.
const AFTER_FRAME = Symbol();
// A slice goes on with its next step while it has held the main thread less than this: on
// a fast machine several steps make one slice, on a slow phone each step is one.
const SLICE_MS = 12;

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
  #hashTimer = 0;
  #pending = [];         // the view's sections the first render left to its slices, not yet drawn
  #pendingView = null;   // the view they are of
  #modelsListed = false; // the model select lists every preset (a slice fills it)
  #generation = 0;       // counts renders: slices of an earlier one stop
  #slicing = 0;          // the generation whose slices are running (0: none)
  #placesStale;          // the baked render shows another state than the first render's
  #settled = null;       // updateComplete's promise while work is pending
  #resolveSettled = null;
  #observer = null;
  #onHashChange = () => this.#readHash();
  #state;
  #shownCallback;
  #scrollTo = false;    // the URL's fragment set this element's state: scroll to it once drawn

  // host: the <kv-calc>; shadow: its shadow root, which shows the fallback through a slot,
  // or the baked render, until the first render replaces it; config: a config the page set
  // before (or null); state(name, on): sets the host's custom states; shown(): called as
  // the live content goes on screen, in the task it does (the element then follows the
  // page's theme, and takes in a fallback a Markdown renderer put after it).
  constructor(host, shadow, { config, state, shown }) {
    this.#host = host;
    this.#shadow = shadow;
    this.#state = state;
    this.#shownCallback = shown;
    this.#baked = bakedRender(shadow);
    // The first Intl.NumberFormat costs milliseconds (locale data): build it while the wasm
    // module compiles, not after.
    formatterFor(host);
    this.#readHash();
    this.#readInline();
    if (config !== null) this.config = config;
    // A state from the URL or the page's script: the baked sections show another.
    this.#placesStale = this.#scrollTo || config !== null;
    if (host.isConnected) this.connected();
    else this.#queue();
  }

  /** Resolves when every section shows the current state (the first section shows it as
   * soon as kvcalc-change fires; on a first render, the others follow in slices). */
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
    if (this.#queued || this.#slicing || this.#preparing || (!this.#engine && !this.#loadError)) return;
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

  // The config is tried with the element's current options (its context, dtype, engine...), so an
  // error shows next to the config input before anything else changes: its figures only,
  // the render that follows builds the report.
  #usePastedConfig(text) {
    const e = this.#engine;
    try {
      e.figures(text, sizeOptions(readAttributes(this.#host).values, text).options);
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
  // of a first render still to draw (in slices). Over a baked render (the same nodes, the
  // same style sheet: the same box), the baked sections still to draw hold their place until
  // they are: they stay where they are, in the baked base, which the live nodes go into
  // (moved, they would be laid out again), and what the reader typed into the baked controls
  // is typed into the live ones. Over a fallback, the live content keeps at least the box
  // the fallback had, so the pending sections appear in it without moving the page.
  #show(pending = []) {
    if (this.#shown) return;
    this.#shown = true;
    const drawing = this.#drawing;
    const baked = this.#baked;
    const height = !baked && pending.length ? this.#host.getBoundingClientRect().height : 0;
    const typed = baked && readerInput(baked.base, this.#shadow);
    // Before the swap: what the host reads of the page (its colours, for its theme) is read
    // while the page's layout is still the last frame's; after, reading a computed style
    // would lay the new content out in this task.
    this.#shownCallback();
    if (this.#sheet !== baked?.link?.sheet) this.#shadow.adoptedStyleSheets = [this.#sheet, ...this.#shadow.adoptedStyleSheets];
    // The baked render's link stays where it is (a link moved is a style sheet loaded again).
    const keep = this.#sheet === baked?.link?.sheet ? baked.link : null;
    if (baked) {
      const base = baked.base;
      for (const name of pending) if (baked.sections[name]) this.#placeholders.set(name, baked.sections[name]);
      const places = [...this.#placeholders.values()];
      for (const node of [...base.childNodes]) if (!places.includes(node)) node.remove();
      // The live nodes in their order, each pending section's (made so far) before the baked one.
      const placeOf = new Map([...this.#placeholders].filter(([name]) => drawing.sections[name])
        .map(([name, place]) => [drawing.sections[name].root, place]));
      let at = base.firstChild;
      for (const node of [...drawing.base.childNodes]) {
        const place = placeOf.get(node);
        base.insertBefore(node, place ?? at);
        if (place) at = place.nextSibling;
      }
      base.removeAttribute('data-kvcalc-baked');
      drawing.base = base;
      for (const node of [...this.#shadow.childNodes]) if (node !== keep && node !== base) node.remove();
    } else {
      for (const node of [...this.#shadow.childNodes]) if (node !== keep) node.remove();
      this.#shadow.append(drawing.base);
    }
    this.#baked = null;
    if (this.#placesStale) this.#hideStalePlaces();
    // Without a baked render, the pictures (chart, GQA heads, check bar) were drawn at a
    // guessed width: now on the page, they are drawn again at their own, before any frame
    // shows them. (Over a baked render they were drawn at the baked base's.)
    if (!baked) {
      const drawn = Object.values(drawing.sections).filter((view) => view.size && !view.root.hidden);
      for (const view of drawn) view.size.measure();
      for (const view of drawn) view.size.fit();
    }
    this.#state('live', true);
    if (height) {
      // The host's box (border-box) stays as tall: its content box, less the live padding
      // and border, read before the frame that shows it lays it out (read now, it would be
      // laid out in this task, and again in that frame).
      requestAnimationFrame(() => {
        const cs = getComputedStyle(this.#host);
        const frame = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth'].reduce((sum, k) => sum + parseFloat(cs[k]), 0);
        drawing.base.style.minHeight = `${Math.max(0, height - frame)}px`;
      });
    }
    if (typed) restoreInput(drawing.base, typed, [...this.#placeholders.values()]);
  }

  // The baked sections still holding a place show a state that is no longer the element's:
  // they keep the place, showing nothing (a figure of another state would be a wrong one).
  #hideStalePlaces() {
    for (const place of this.#placeholders.values()) place.style.visibility = 'hidden';
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
    const needed = SECTIONS[values.view ?? 'formula'];
    if (!this.#prepared(usesLlamacpp(values, [this.#pasted, this.#inline]) ? [...needed, 'llamacpp'] : needed)) return;
    this.#drawing ??= new Drawing({
      set: (a, v) => this.#userSet(a, v),
      redraw: () => this.#queue(),
      openConfig: () => this.#configInput().catch(() => {}),
    });
    const drawing = this.#drawing;
    // The offer to fetch a model that is not bundled from the Hugging Face Hub, under the
    // search (live only: hidden until the reader types an id, it is no part of a baked render).
    if (!this.#hub) {
      const e = this.#engine;
      this.#hub = new HubOffer(drawing.controls.modelSearch, (text) => this.#usePastedConfig(text),
        (source, options) => e.kv.readGguf(source, options), () => e.lists.presets);
      drawing.controls.fields.model.el.insertBefore(this.#hub.root, drawing.controls.fields.model.error);
    }
    this.#hub.update(values, errors.some((x) => x.attribute === 'hub-endpoint'));
    const view = values.view ?? 'formula';
    const sections = SECTIONS[view];
    // The first render draws the view's main section and replaces the fallback (or the
    // baked render) with it: the other sections (the chart, the table of every preset, the
    // GQA rows, the check) and the full model list follow in slices that leave the main
    // thread to the page between them (#drawInSlices), in their order on screen, each shown
    // once drawn. A render while they are being drawn (the reader typed) draws the sections
    // drawn so far at once and leaves the others to slices that start again at its state:
    // stale slices stop. Other renders draw every section in their task (a few core calls:
    // the size, one series for the chart, one for the GQA rows, the table's new column, the
    // check), so no frame shows some sections at the new state and others at the old.
    this.#generation += 1;
    this.#slicing = 0;
    if (!this.#shown) {
      this.#pending = sections.slice(1);
      // Over a baked render, the main section's pictures are drawn at the width its base
      // shows them at: the live base's, which it becomes (see #show).
      if (this.#baked) drawing.section(sections[0]).size?.fit(contentWidth(this.#baked.base));
    } else {
      if (this.#pendingView !== view) {
        // Another view: the sections the first render left are no longer those to draw.
        this.#pending = [];
        this.#dropPlaceholders();
      }
      if (!this.#pending.length) drawing.base.style.minHeight = '';
      this.#hideStalePlaces();
    }
    this.#pendingView = view;
    const steps = this.#renderSteps(values, errors);
    if (!this.#shown) {
      this.#drawInSlices(steps);
      return;
    }
    // What is on screen is drawn now; what the first render left, in slices after a frame.
    let step;
    do step = steps.next(); while (!step.done && step.value !== AFTER_FRAME);
    if (step.done) this.#settle();
    else this.#drawInSlices(steps, step.value);
  }

  // A render's steps (see #render): the sizing and the sections to draw at once, the live
  // content shown and kvcalc-change sent, then (after a frame: AFTER_FRAME) the sections
  // and the model list the first render left.
  * #renderSteps(values, errors) {
    const drawing = this.#drawing;
    const e = this.#engine;
    const pending = this.#pending;
    const drawn = yield* drawing.drawSteps(e, formatterFor(this.#host), {
      values, errors, source: this.#source, pasted: this.#pasted, inline: this.#inline,
      fetched: { key: this.#hub.selected(this.#pasted), choices: this.#hub.choices() },
    }, { pending, presetsReady: this.#modelsListed });
    if (!drawn) {
      this.#show();
      return;
    }
    const { r, check, state, source, config, options, extra, selected, ctx } = drawn;
    if (source === 'pasted') {
      const text = this.#pasted;
      this.#configInput().then((input) => input.show(text), () => {});
    }
    if (!this.#shown) yield;
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
    if (!pending.length && this.#modelsListed) return;
    yield AFTER_FRAME;
    yield* this.#slices(ctx, extra, selected);
  }

  // Runs steps (a generator: #renderSteps) in slices, each given the main thread after the
  // page has had it (after a frame where a step asks: AFTER_FRAME), until they are done
  // (updateComplete then resolves) or a later render starts steps of its own state.
  async #drawInSlices(steps, wait = null) {
    const generation = this.#generation;
    this.#slicing = generation;
    for (let step = { done: false, value: wait }; !step.done;) {
      if (step.value === AFTER_FRAME) await nextFrame();
      await nextSlice();
      if (this.#generation !== generation) return;
      const start = performance.now();
      do step = steps.next(); while (!step.done && step.value !== AFTER_FRAME && performance.now() - start < SLICE_MS);
    }
    this.#slicing = 0;
    this.#settle();
  }

  // What the first render left, step by step: each pending section, made and drawn hidden,
  // then shown in the place of the baked section that held it; then the model select's full
  // list (the preset list reads every bundled preset). Over a fallback, the box keeps at
  // least the fallback's height until a render after the last (where a page gave the
  // fallback a height of its own, shrinking now, perhaps in view, would move the page; a
  // render follows a change, which may).
  * #slices(ctx, extra, selected) {
    const drawing = this.#drawing;
    // The pictures drawn at the width they will have: the base's (a section takes its
    // width), read while the layout is the frame's.
    const width = contentWidth(drawing.base);
    while (this.#pending.length) {
      const name = this.#pending[0];
      const view = drawing.section(name);
      this.#placeholders.get(name)?.before(view.root);
      view.size?.fit(width);
      yield;
      yield* drawing.sectionSteps(name, ctx);
      view.root.hidden = false;
      this.#dropPlaceholders([name]);
      this.#pending.shift();
      // Each section laid out in a frame of its own.
      yield AFTER_FRAME;
    }
    if (!this.#modelsListed) {
      const read = ctx.e.lists.presets !== undefined;
      const presets = ctx.e.presetList;
      if (!read) yield;
      drawing.controls.setModels(presets, extra, selected);
      this.#modelsListed = true;
    }
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
      // The render waits for a slice of its own: the module's instantiation (its compiled
      // code arrives with the task that ends its download) takes the task it ends in.
      const ready = Promise.all([engine(), loadSections(sections), this.#sheet ?? styleSheet(this.#baked)]);
      ready.then((all) => nextSlice().then(() => all)).then(([e, , sheet]) => {
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
