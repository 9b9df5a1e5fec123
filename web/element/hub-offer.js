// The offer to size a model that is not bundled from the Hugging Face Hub: when the model
// search names a model (OWNER/NAME, or its page's address) that is no preset, a button under
// it offers to fetch its config.json, with the address shown. Nothing is fetched until the
// reader uses the offer (a click, or Enter on it); the code that fetches (hub-panel.js, with
// web/api/hub.js) loads then. hub="off" removes the offer; hub-endpoint names a mirror.
//
// Configs fetched are remembered in memory for the life of the page, by all its elements
// (the model select lists them; choosing one again asks nothing of the network). Not in
// sessionStorage: that is the host site's storage, which its own scripts read and which a
// sandboxed frame or a reader's settings can refuse; a reload keeps the config in use through
// the URL's fragment, as a pasted one.

import { h, setText } from './dom.js';
import { describeError } from './error-text.js';
import { HUB_ENDPOINT, fileUrl, hubRef } from '../api/hub-ref.js';

const RECENT = 8;
const recent = new Map();   // `${endpoint} ${key}` -> { endpoint, key, text }, the latest last

export class HubOffer {
  // search: the model search input; use(text): sizes a fetched config as a pasted one, and
  // answers null or the error; readGguf(source, options): the API's; presets(): the bundled
  // presets ([{id}]), undefined until listed.
  constructor(search, use, readGguf, presets) {
    this.search = search;
    this.use = use;
    this.readGguf = readGguf;
    this.presets = presets;
    this.endpoint = HUB_ENDPOINT;
    this.on = true;
    this.ref = null;        // the model the offer is for
    this.panel = null;      // its code, once the offer was used
    this.url = h('span');
    this.fetchButton = h('button', { type: 'button', part: 'button' });
    this.ggufButton = h('button', { type: 'button', part: 'button' }, 'List its GGUF files');
    // Live regions (role status and alert) while the offer shows: a hidden offer is no
    // element's status.
    this.status = h('p', { class: 'note' });
    this.error = h('p', { class: 'field-error', part: 'hub-error' });
    this.root = h('div', { class: 'field', part: 'hub', hidden: true },
      h('p', { class: 'note' }, this.url), h('div', { class: 'row' }, this.fetchButton, this.ggufButton), this.status, this.error);
    search.addEventListener('input', () => this.show());
    this.fetchButton.addEventListener('click', () => this.act(false));
    this.ggufButton.addEventListener('click', () => this.act(true));
  }

  // The element's attributes: hub ("off" removes the offer), hub-endpoint (a mirror; one that
  // does not read removes the offer too, its error shown with the element's others).
  update({ hub, hubEndpoint = HUB_ENDPOINT }, badEndpoint) {
    this.on = hub !== 'off' && !badEndpoint;
    const endpoint = hubEndpoint;
    if (endpoint !== this.endpoint) {
      this.endpoint = endpoint;
      this.ref = null;
    }
    this.show();
  }

  // Shown for a model that is no preset; a new model clears what was said about the last one
  // (and cancels its fetch).
  show() {
    // Until the presets are listed (in the slices after the first render), no offer.
    const presets = this.presets();
    const ref = this.on && presets ? hubRef(this.search.value) : null;
    const id = ref?.id.toLowerCase();
    const shown = ref && !presets.some((p) => p.id.toLowerCase() === id) ? ref : null;
    if (shown?.key !== this.ref?.key) {
      this.panel?.cancel();
      setText(this.status, '');
      setText(this.error, '');
    }
    this.ref = shown;
    this.root.hidden = !shown;
    for (const [el, role] of [[this.status, 'status'], [this.error, 'alert']]) {
      if (shown) el.setAttribute('role', role);
      else el.removeAttribute('role');
    }
    if (!shown) return;
    const gguf = shown.path && /\.gguf$/i.test(shown.path);
    const known = recent.has(`${this.endpoint} ${shown.key}`);
    setText(this.fetchButton, known ? `Use ${shown.key.slice(3)} (fetched before)`
      : gguf ? 'Read its GGUF metadata from Hugging Face' : `Fetch ${shown.path ?? 'config.json'} from Hugging Face`);
    this.ggufButton.hidden = Boolean(shown.path);
    setText(this.url, `${fileUrl(this.endpoint, shown, shown.path ?? 'config.json')}${gguf ? ' (its metadata only, by Range requests)' : ''}`);
  }

  // The reader's request: the fetching code loads, then fetches (or lists the GGUF files).
  async act(ggufs) {
    const ref = this.ref;
    if (!ref || (!ggufs && this.pick(ref.key))) return;
    setText(this.error, '');
    try {
      this.panel ??= new (await import('./hub-panel.js')).HubPanel(this);
    } catch (e) {
      setText(this.error, navigator.onLine === false
        ? `You are offline: kvcalc could not reach ${new URL(this.endpoint).origin}. Connect and try again, or paste the model's config.json in "Use your own config".`
        : `kvcalc could not load its Hugging Face code: ${e.message}`);
      setText(this.status, 'Not used: the figures are still those of the model before.');
      return;
    }
    if (this.ref === ref) this.panel.open(ref, ggufs);
  }

  // A config the panel fetched and the core read: remembered.
  used(key, text) {
    const k = `${this.endpoint} ${key}`;
    recent.delete(k);
    recent.set(k, { endpoint: this.endpoint, key, text });
    if (recent.size > RECENT) recent.delete(recent.keys().next().value);
  }

  // The model select's entries for the configs fetched from this endpoint, the latest first.
  choices() {
    return [...recent.values()].filter((r) => r.endpoint === this.endpoint).reverse()
      .map((r) => ({ value: r.key, label: `${r.key.slice(3)} (Hugging Face)` }));
  }

  // The entry of a config in use (text), when it is one fetched; else undefined.
  selected(text) {
    return [...recent.values()].find((r) => r.endpoint === this.endpoint && r.text === text)?.key;
  }

  // A fetched config chosen again (a select value hf:...): used with no request. True if it
  // was one.
  pick(key) {
    const r = recent.get(`${this.endpoint} ${key}`);
    if (!r) return false;
    const err = this.use(r.text, key);
    setText(this.error, err ? describeError(err) : '');
    return true;
  }
}
