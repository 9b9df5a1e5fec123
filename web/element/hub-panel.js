// What the element's Hugging Face offer (hub-offer.js) does once a reader uses it, loaded
// then: fetches the model's config.json (web/api/hub.js) and sizes it as a pasted one; for a
// repository of GGUF files, lists them and reads the chosen one's metadata with HTTP Range
// requests through the core's GGUF reader (the API's readGguf), never the whole file, with its
// progress and a cancel button. A failure is said under the offer, with what to do; the model
// and the figures stay as they were until a config is read and sized.

import { h, replace, setText, uid } from './dom.js';
import { describeError } from './error-text.js';
import { fileUrl } from '../api/hub-ref.js';
import { ggufLabel, ggufSource, openModel, sizeText } from '../api/hub.js';
const KEPT = 'Not used: the figures are still those of the model before.';
const CANCELLED = 'Cancelled: the figures are still those of the model before.';

export class HubPanel {
  constructor(offer) {
    this.offer = offer;
    this.work = null;    // the AbortController of what runs
    this.models = [];    // the GGUF models listed
    const id = uid('kv-hub-gguf');
    this.select = h('select', { id, part: 'input' });
    this.readButton = h('button', { type: 'button', part: 'button' }, 'Read its metadata');
    this.choose = h('div', { class: 'row', hidden: true }, h('label', { for: id }, 'GGUF file'), this.select, this.readButton);
    this.progress = h('progress', { max: '1', value: '0', 'aria-label': 'GGUF metadata read' });
    this.cancelButton = h('button', { type: 'button', part: 'button' }, 'Cancel');
    this.working = h('div', { class: 'row', hidden: true }, this.progress, this.cancelButton);
    offer.root.insertBefore(this.choose, offer.status);
    offer.root.insertBefore(this.working, offer.status);
    this.readButton.addEventListener('click', () => {
      const m = this.models[this.select.selectedIndex];
      if (m && this.ref) this.read(this.ref, m);
    });
    this.cancelButton.addEventListener('click', () => {
      const focused = this.cancelButton.getRootNode().activeElement === this.cancelButton;
      this.cancel();
      setText(this.offer.status, CANCELLED);
      // The button goes: keyboard focus stays in the offer.
      if (focused) this.offer.fetchButton.focus();
    });
  }

  // Stops what runs, and hides its rows.
  cancel() {
    this.work?.abort();
    this.work = null;
    this.working.hidden = true;
    this.choose.hidden = true;
  }

  // A request's context: the endpoint, and the signal that cancels it.
  start(text, progress = false) {
    this.cancel();
    this.work = new AbortController();
    this.working.hidden = false;
    this.progress.hidden = !progress;
    this.progress.value = 0;
    setText(this.offer.error, '');
    setText(this.offer.status, text);
    return { endpoint: this.offer.endpoint, signal: this.work.signal };
  }

  // Ends what runs with an error (or a cancel), unless something else took its place.
  fail(hub, e) {
    if (hub.signal !== this.work?.signal) return;
    this.work = null;
    this.working.hidden = true;
    setText(this.offer.error, e.code === 'cancelled' ? '' : e instanceof Error && e.name === 'HubError' ? e.message : describeError(e));
    setText(this.offer.status, e.code === 'cancelled' ? CANCELLED : KEPT);
  }

  // A config text read: sized as a pasted one (the core may still refuse it).
  apply(hub, key, text, note) {
    if (hub.signal !== this.work?.signal) return;
    this.work = null;
    this.working.hidden = true;
    const err = this.offer.use(text);
    if (err) {
      setText(this.offer.error, describeError(err));
      setText(this.offer.status, KEPT);
      return;
    }
    this.offer.used(key, text);
    setText(this.offer.status, note);
  }

  // The offer was used: the config.json (or the file named), or the list of GGUF files.
  async open(ref, ggufs) {
    this.ref = ref;
    const hub = this.start(ggufs ? `Listing the GGUF files of ${ref.id}…` : `Fetching ${fileUrl(this.offer.endpoint, ref, ref.path ?? 'config.json')}…`);
    try {
      const r = await openModel(hub, ref, { ggufs });
      if (hub.signal !== this.work?.signal) return;
      if (r.kind === 'config') this.apply(hub, ref.key, r.text, `Using ${ref.id}: ${r.url}`);
      else if (r.kind === 'gguf') await this.read(ref, { path: r.path, size: r.size, parts: 1 });
      else this.list(hub, ref, r.models);
    } catch (e) {
      this.fail(hub, e);
    }
  }

  // A repository's GGUF models, to choose one: a file, or a split model's first part.
  list(hub, ref, models) {
    this.work = null;
    this.working.hidden = true;
    this.models = models;
    replace(this.select, models.map((m) => h('option', null, ggufLabel(m))));
    this.choose.hidden = false;
    setText(this.offer.status, `${ref.id} has ${models.length === 1 ? 'one GGUF model' : `${models.length} GGUF models`}${ref.path ? '' : ' (and no config.json)'}: choose one; only its metadata is read.`);
    this.select.focus();
  }

  // A GGUF file's metadata, by Range requests through the core's GGUF reader.
  async read(ref, model) {
    const key = `${ref.key}${ref.path ? '' : `/${model.path}`}`;
    const name = model.path.split('/').pop();
    const hub = this.start(`Reading the metadata of ${name} (only its header and metadata are read)…`, true);
    let received = 0;
    try {
      const source = await ggufSource(hub, ref, model.path, model.size, (n) => { received += n; });
      const { text, name: title } = await this.offer.readGguf(source, {
        signal: hub.signal,
        onProgress: (p) => {
          if (hub.signal !== this.work?.signal) return;
          this.progress.max = p.size || 1;
          this.progress.value = p.offset;
          const where = p.count ? `${p.key}: ${p.index.toLocaleString('en-US')} of ${p.count.toLocaleString('en-US')}, ` : '';
          setText(this.offer.status, `Reading the metadata of ${name}: ${where}${sizeText(received)} read`);
        },
      });
      this.apply(hub, key, text, `Using ${title}: the metadata of ${name} (${sizeText(received)} read of ${sizeText(source.size)}, by Range requests).`);
    } catch (e) {
      this.fail(hub, e);
    }
  }
}
