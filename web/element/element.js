/**
 * <kv-calc>: an embeddable KV-cache calculator. Exact figures from the kvcalc core (one
 * wasm instance per page, shared by every element), rendered as text, under a strict CSP.
 *
 * Usage: `<script type="module" src="/dist/kvcalc.js"></script>` and
 * `<kv-calc model="Qwen/Qwen2.5-7B-Instruct" view="formula">fallback text</kv-calc>`.
 * The light-DOM content is the no-JS fallback: it stays on screen until the live element,
 * fully drawn, replaces it in one step. An inline config goes in a child
 * `<script type="application/json">{...}</script>`. `kvcalc bake` writes, besides a
 * fallback in words, the element's first render as its declarative shadow root
 * (`<template shadowrootmode="open">`), styled by a linked kvcalc.css: the page shows the
 * calculator at first paint, and the live element, drawn by the same code under the same
 * style sheet, takes it over without moving anything; what a reader typed into it before
 * is kept.
 *
 * A page fetches only kvcalc.js until an element comes near the viewport (`loading="lazy"`,
 * the default, as `<img>` and `<model-viewer>` do): then the wasm module, the element's code
 * and its view's code, once per page whatever the number of elements. `loading="eager"`
 * fetches them at once. It asks nothing else of the network, but a model's config (or a GGUF
 * file's metadata) from the Hugging Face Hub when the reader uses its offer (see `hub`).
 *
 * @summary KV-cache size: formula, per-model table, GQA demo, context-versus-pool check.
 * @tag kv-calc
 *
 * @attr model - Bundled preset id, e.g. `Qwen/Qwen2.5-7B-Instruct` (default). An inline config wins over it.
 * @attr context - Tokens per sequence: a whole number or `4K`, `128K`, `1M` (K = 1,024). Default: the model's max context. With a llama.cpp engine, llama.cpp's `-c` (the whole cache, split among the slots unless unified; Ollama's `num_ctx`, one slot's), default llama-server's (the model's max), Ollama's 4096 or LM Studio's 4096.
 * @attr engine - Whose allocation is sized: `vllm` (default), `sglang`, `llamacpp` (llama-server), `ollama` or `lmstudio` (llama.cpp with Ollama's and LM Studio's defaults). Without it, a GGUF file (picked, dropped or inline) is sized as llama.cpp allocates it, which the engine input says. With a llama.cpp engine the formula shows llama.cpp's arithmetic (one cell's K and V in the cache types' blocks, the cells of a stream with the padding and slots, each memory object with the line its log prints), and `batch`, `kv-dtype` and `tp` do not apply.
 * @attr parallel - llama.cpp's `-np` (Ollama's `OLLAMA_NUM_PARALLEL`): slots, each its own stream of cells unless unified. Default: llama-server's 4 unified slots (b6931+), Ollama's and LM Studio's 1.
 * @attr cache-type-k - llama.cpp's `-ctk`: `f32`, `f16` (default), `bf16`, `q8_0` (34 B per 32 values), `q4_0`, `q4_1`, `q5_0`, `q5_1`, `iq4_nl`. Ollama takes one type for K and V (`OLLAMA_KV_CACHE_TYPE`).
 * @attr cache-type-v - llama.cpp's `-ctv`, the same types; a quantized V cache needs flash attention.
 * @attr flash-attn - llama.cpp's `-fa`: `auto` (default: on when the cache is made), `on` or `off` (which pads older builds' context to 32).
 * @attr swa-full - llama.cpp's `--swa-full` (`true`, `false`; present means true): sliding-window layers keep the whole context, as LM Studio does by default. An attribute only.
 * @attr ubatch-size - llama.cpp's `-ub` (default 512), which sliding-window layers keep beside the window. An attribute only.
 * @attr kv-unified - llama.cpp's `--kv-unified` (`true`, `false`; present means true): one stream shared by the slots. An attribute only.
 * @attr llamacpp-build - The llama.cpp build (its log's `build: N`) whose rules apply: padding, slots and SWA cells changed over the builds. Default: the current rules (Ollama: its bundled build). An attribute only.
 * @attr ollama-version - With engine `ollama`: its release, `0.30.0` or later (default `0.33.0`). An attribute only.
 * @attr batch - Sequences held at once. Default 1.
 * @attr kv-dtype - KV cache dtype: `auto` (the model's dtype), `bf16`, `fp16`, `fp32`, `fp8`, `fp8_e4m3`, `fp8_e5m2`, `int8`, `int4`, `fp8_ds_mla`. Default `auto`.
 * @attr tp - Tensor-parallel GPUs. Default 1.
 * @attr view - `formula` (default), `table`, `gqa`, `check`, or `all`.
 * @attr models - Table rows: preset ids separated by commas or spaces. Default: every bundled preset.
 * @attr pool-tokens - The engine's KV pool in tokens, for the check and the chart's pool line.
 * @attr max-context - The advertised max context the check tests. Default: the model's max context.
 * @attr accounting - `resident` (default: tokens each layer keeps), `naive` (bytes per token × context), `vllm` (whole blocks reserved), `llamacpp` (what llama.cpp allocates: the default with its engines).
 * @attr loading - `lazy` (default): fetch the wasm and the view's code when the element comes within a screen's height of the viewport; until then the fallback shows. `eager`: fetch at once.
 * @attr theme - `auto` (default): dark when the page is (a `dark` class or `data-theme="dark"` on the root element, or `color-scheme: dark`), light when the page says light, else as the reader's system prefers. `light` or `dark` forces it.
 * @attr hub - `on` (default): when the reader types in the model search the id of a model that is not bundled (`OWNER/NAME`, `OWNER/NAME@REVISION`, `OWNER/NAME/FILE.gguf` or its page's address), the element offers to fetch its config.json from the Hugging Face Hub, with the address shown; nothing is fetched until the reader uses the offer. The config is sized as a pasted one; a repository of GGUF files is listed, and the chosen file's metadata read with HTTP Range requests, never the whole file. Configs fetched are remembered while the page is open. Every failure (gated, not found, offline, the page's CSP, a timeout...) is said under the offer with what to do, and the figures stay. The page's Content-Security-Policy must allow the endpoint in `connect-src` (and, for GGUF files, `https://*.hf.co`). `off` removes the offer.
 * @attr hub-endpoint - The Hub's address for the offer: a mirror such as `https://hf-mirror.com` (the `HF_ENDPOINT` convention). Default `https://huggingface.co`.
 *
 * @prop {object|null} result - The last size result (the JS API's `size()` shape), read-only.
 * @prop {Promise<boolean>} updateComplete - Resolves once every section shows the current state (every section does when kvcalc-change fires, but on an element's first render its main figure shows first, and the other sections and the model list follow in slices that leave the page's main thread free between them; a change made before they are all drawn shows at once in the sections drawn, and in the others as they are drawn). A lazy element not yet near the viewport has not started: it resolves after the element goes live.
 * @prop {object|null} checkResult - The last check result, read-only.
 * @prop {string|object|null} config - A config.json (text or object) to use instead of the model; `null` clears it.
 *
 * @event kvcalc-change - A new result is on screen, in every section (on an element's first render, and on a change before that render's other sections are all drawn, in the sections drawn so far: await updateComplete for the others). `event.result` is the size result, `event.check` the check result (or null), `event.state` the inputs. Bubbles, composed.
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
 * @part config - The paste / drop / open panel for a config.json or a .gguf file.
 * @part dropzone - Where a config.json can be dropped.
 * @part config-text - The config.json text area.
 * @part config-file - The file input (a config.json or a .gguf).
 * @part config-progress - The progress of a .gguf file's metadata being read (shown while it is read).
 * @part config-error - The error next to the config input, naming the field.
 * @part hub - The offer to fetch a model that is not bundled from the Hugging Face Hub, under the model search, with its address, its buttons, and what it says.
 * @part hub-error - Why the Hub's config was not used, and what to do.
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
 * @part gqa-bars - The cache for each KV-head count as bars, and the MLA point (the figure kv.svg() draws with chart 'gqa').
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
 * @part download - The chart's and the GQA view's Download SVG buttons (a standalone .svg of the figure, as kv.svg() draws it).
 *
 * @cssstate live - The live element has replaced the fallback (`kv-calc:state(live)`); style the fallback's box with `kv-calc:not(:state(live))`.
 * @cssstate dark - The element shows its dark colours (see the `theme` attribute).
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
 * @cssprop --kv-mono-font-family - The config text area's font, and llama.cpp's log lines'.
 * @cssprop --kv-font-size - Base font size (default: the size of the text around the element).
 */

import { h, replace } from './dom.js';
import { ATTRIBUTES } from './state.js';
import { loadSections, SECTIONS } from './sections.js';
import { load } from '../api/api.js';
import { plainEnglish } from './plain-english.js';
import { followTheme } from './theme.js';

// The element's change event, exported with it; live.js, which dispatches it, imports its
// module, not this one (which imports live.js).
export { KvCalcChangeEvent } from './change-event.js';

// How near the viewport a lazy element starts loading: a screen's height ahead, so that on
// a page read from the top it is drawn before it scrolls into view (#watch checks the same).
const NEAR = '100% 0px';

// Outside a browser (Node importing dist/kvcalc.js for the API) there is no HTMLElement:
// the class still exists, and define() does nothing.
const ElementBase = globalThis.HTMLElement ?? class {};

let warmed = false;
const warmNumbers = (el) => {
  if (warmed) return;
  warmed = true;
  const lang = el.closest('[lang]')?.getAttribute('lang') || 'en';
  if (plainEnglish(lang)) return;  // written without Intl (element/format.js)
  try {
    new Intl.NumberFormat(lang).format(1);
  } catch {
    // the live element falls back to English
  }
};

// The element's code beyond this file (web/element/live.js), loaded once per page.
let liveCode = null;
const loadLive = () => (liveCode ??= import('./live.js').catch((err) => {
  liveCode = null;  // an element that starts later retries
  throw err;
}));

export class KvCalcElement extends ElementBase {
  static observedAttributes = Object.keys(ATTRIBUTES);

  /** Defines the element under `tag` in `registry`, unless that tag is already defined. */
  static define(tag = 'kv-calc', registry = globalThis.customElements) {
    return define(tag, registry);
  }

  // One observer for every lazy element of the page, made when the first one connects.
  static #nearby = null;

  #shadow = null;       // its shadow root: the baked one, or made when it starts
  #internals = null;
  #live = null;         // the live element (web/element/live.js), once its code is here
  #started = false;     // its code and the wasm are loading, or here
  #config = null;       // a config the page set before the element went live
  #whenLive;            // resolves to the live element (or null if its code did not load)
  #resolveLive;
  #theme = null;        // follows the page's light or dark mode once anything of its own shows

  constructor() {
    super();
    try {
      this.#internals = this.attachInternals();
    } catch {
      // no ElementInternals: no :state(live) for the page's style sheet
    }
    this.#whenLive = new Promise((ok) => { this.#resolveLive = ok; });
  }

  // The shadow root `kvcalc bake` wrote (declarative, attached by the HTML parser), else one
  // made now, whose slot shows the light-DOM fallback, unstyled by the element (its box is
  // the page's), until the live element replaces it. (attachShadow() on an element with a
  // declarative root would empty it: the baked render would go.)
  #root() {
    if (!this.#shadow) {
      this.#shadow = this.#internals?.shadowRoot ?? this.shadowRoot;
      if (!this.#shadow) {
        this.#shadow = this.attachShadow({ mode: 'open' });
        this.#shadow.append(h('slot'));
      }
    }
    return this.#shadow;
  }

  // A baked render shows: it takes the page's dark mode now, not when it goes live.
  #baked() {
    const shadow = this.#internals?.shadowRoot ?? this.shadowRoot;
    return Boolean(shadow && [...shadow.children].some((c) => c.matches('.kv[data-kvcalc-baked]')));
  }

  #setState(name, on) {
    try {
      this.#internals?.states[on ? 'add' : 'delete'](name);
    } catch {
      // an older engine that only takes dashed state names
    }
  }

  // What the element shows follows the page's light or dark mode (theme.js), from now on.
  #followTheme() {
    this.#theme ??= followTheme(this, (name, on) => this.#setState(name, on));
  }

  // A Markdown renderer that wrote the element inside a paragraph sends the fallback that
  // bake wrote inside it out of it: the HTML parser closes the paragraph, and the element
  // with it, at the fallback's first block, which then follows the element (or the
  // paragraph the element ended). The element takes it back in, where it does not show (a
  // baked or live shadow root shows no light DOM), so no figure shows twice.
  #takeBackFallback() {
    for (let at = this; at;) {
      let next = at.nextSibling;
      const skip = () => {
        while (next && next.nodeType === 3 && !next.data.trim()) next = next.nextSibling;
      };
      skip();
      const found = [];
      while (next && next.nodeType === 1 && next.hasAttribute('data-kvcalc-baked')) {
        found.push(next);
        next = next.nextSibling;
        skip();
      }
      if (found.length) {
        this.append(...found);
        return;
      }
      at = !next && at === this && at.parentElement?.localName === 'p' ? at.parentElement : null;
    }
  }

  /** Resolves once every section shows the current state (after the element went live). */
  get updateComplete() {
    return this.#live ? this.#live.updateComplete : this.#whenLive.then((live) => (live ? live.updateComplete : true));
  }

  get result() { return this.#live?.result ?? null; }
  get checkResult() { return this.#live?.checkResult ?? null; }

  get config() {
    if (this.#live) return this.#live.config;
    const inline = [...this.children].find((c) => c.localName === 'script' && c.type === 'application/json');
    return this.#config ?? (inline ? inline.textContent : null);
  }

  set config(value) {
    if (this.#live) this.#live.config = value;
    else this.#config = value ?? null;
  }

  connectedCallback() {
    if (this.#live) {
      this.#live.connected();
      this.#followTheme();
    } else {
      if (this.#baked()) {
        this.#followTheme();
        this.#takeBackFallback();
      }
      this.#watch();
    }
  }

  disconnectedCallback() {
    this.#live?.disconnected();
    KvCalcElement.#nearby?.unobserve(this);
    this.#theme?.forget();
    this.#theme = null;
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (name === 'theme') this.#theme?.apply();
    if (this.#live) this.#live.attributeChanged(name, oldValue, newValue);
    else if (name === 'loading') this.#watch();
  }

  // Starts now when eager (or where nothing can tell when the element is seen), else when
  // it comes near the viewport.
  #watch() {
    if (this.#started || !this.isConnected) return;
    // A link with this element's state in its fragment (element/hash.js) starts it at once:
    // the live element scrolls to itself.
    if (this.getAttribute('loading')?.trim() === 'eager' || typeof IntersectionObserver !== 'function' ||
        location.hash.includes(this.id ? `${this.id}.` : this.localName)) {
      this.#start();
      return;
    }
    // Once the page is parsed (kvcalc.js is a module: it runs then), an element already near
    // the viewport starts at once rather than an observer's frame later; the layout this
    // reads is the one the first paint needs.
    if (document.readyState !== 'loading') {
      const box = this.getBoundingClientRect();
      if (box.bottom >= -innerHeight && box.top <= 2 * innerHeight && box.right >= 0 && box.left <= innerWidth) {
        this.#start();
        return;
      }
    }
    KvCalcElement.#nearby ??= new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) entry.target.#start();
      }
    }, { rootMargin: NEAR });
    KvCalcElement.#nearby.observe(this);
  }

  // Fetches, all at once, the wasm, the element's code and its view's code; the live
  // element then draws, and replaces the fallback when it is done.
  #start() {
    if (this.#started) return;
    this.#started = true;
    KvCalcElement.#nearby?.unobserve(this);
    load().catch(() => {});  // the live element reports a failed load
    // The first number format of a page costs tens of milliseconds (the locale's data): it
    // is paid in the next task, while the files download, not when the live element formats
    // its figures.
    setTimeout(() => warmNumbers(this), 0);
    loadSections(SECTIONS[this.getAttribute('view')?.trim()] ?? SECTIONS.formula).catch(() => {});
    const shadow = this.#root();
    // Without a baked render (whose style sheet is here), the element's styles load too.
    if (!this.#baked()) import('./styles.js').catch(() => {});
    loadLive().then(({ Live }) => {
      this.#live = new Live(this, shadow, {
        config: this.#config,
        // The element's custom states: live, dark (kv-calc:state(live) in a page's CSS).
        state: (name, on) => this.#setState(name, on),
        shown: () => {
          this.#followTheme();
          this.#takeBackFallback();
        },
      });
      this.#resolveLive(this.#live);
    }, (err) => {
      // The fallback (or the baked render) stays, with the reason above it.
      const error = h('div', { role: 'alert', part: 'error' }, `kvcalc could not load: ${err?.message ?? err}`);
      if (this.#baked()) shadow.prepend(error);
      else replace(shadow, error, h('slot'));
      this.#started = false;
      this.#resolveLive(null);
    });
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
