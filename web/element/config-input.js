// Paste, drop or open a config.json, or pick or drop a GGUF file. The text (a GGUF file's
// metadata document, read in slices by readGguf(file, { onProgress, signal }): the JS API's
// kv.readGguf) goes to onConfig(text), which returns null when the core read it, or the error
// to show next to the input (naming the field). A GGUF file shows its progress and can be
// cancelled (a button, announced). The widget keeps its previous model on an error, so it
// never stops working.
// Loaded when a reader first opens the element's "Use your own config" panel (or a config
// comes in the URL hash): most readers never do, so kvcalc.js does not carry it.

import { h, setText, uid } from './dom.js';
import { describeError } from './error-text.js';

// A file that is not GGUF is read whole as a config.json only below this (the core reads a
// config text of 1 MiB at most; a bigger one gets its message there).
const MAX_CONFIG_FILE = 16 * 1024 * 1024;
const mb = (n) => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB`;

export class ConfigInput {
  // root: the panel's <details> (its <summary> is already there); the input goes inside.
  constructor(root, onConfig, readGguf) {
    this.onConfig = onConfig;
    this.readGguf = readGguf;
    this.reading = null;  // the AbortController of the GGUF file being read
    const id = uid('kv-config');
    this.textarea = h('textarea', {
      id, name: 'config', rows: '6', spellcheck: 'false', autocomplete: 'off', part: 'input config-text',
      placeholder: '{ "num_hidden_layers": 32, "num_attention_heads": 32, ... }',
      'aria-describedby': `${id}-error ${id}-hint`,
    });
    this.file = h('input', { id: `${id}-file`, type: 'file', accept: '.json,.gguf,application/json', part: 'input config-file' });
    this.useButton = h('button', { type: 'button', part: 'button' }, 'Use this config');
    this.error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', part: 'config-error' });
    this.status = h('p', { class: 'note', id: `${id}-hint`, role: 'status' }, 'Nothing leaves this page: the config is read here.');
    // A GGUF file's progress, and the button that cancels it: shown while one is read.
    this.progress = h('progress', { max: '1', value: '0', 'aria-label': 'GGUF metadata read', part: 'config-progress' });
    this.progressText = h('span', { class: 'muted' });
    this.cancelButton = h('button', { type: 'button', part: 'button' }, 'Cancel reading');
    this.readingRow = h('div', { class: 'row', hidden: true }, this.progress, this.progressText, this.cancelButton);
    this.zone = h('div', { class: 'dropzone', part: 'dropzone' },
      h('label', { for: id }, 'config.json (paste the text, or drop it or a .gguf here)'),
      this.textarea,
      h('div', { class: 'row' },
        this.useButton,
        h('label', { for: `${id}-file` }, 'or open a file:'), this.file),
      this.readingRow, this.error, this.status);
    this.root = root;
    root.append(this.zone);

    this.textarea.addEventListener('input', (ev) => {
      if (ev.inputType === 'insertFromPaste' || ev.inputType === 'insertFromDrop') this.apply(this.textarea.value);
    });
    this.useButton.addEventListener('click', () => this.apply(this.textarea.value));
    this.file.addEventListener('change', () => {
      const f = this.file.files && this.file.files[0];
      if (f) this.applyFile(f);
    });
    this.cancelButton.addEventListener('click', () => this.reading?.abort());
    this.zone.addEventListener('dragover', (ev) => {
      ev.preventDefault();
      this.zone.classList.add('dragging');
    });
    this.zone.addEventListener('dragleave', () => this.zone.classList.remove('dragging'));
    this.zone.addEventListener('drop', async (ev) => {
      ev.preventDefault();
      this.zone.classList.remove('dragging');
      const dt = ev.dataTransfer;
      const f = dt && dt.files && dt.files[0];
      if (f) this.applyFile(f);
      else if (dt) this.applyText(dt.getData('text/plain'), null);
    });
  }

  // A picked or dropped file: a GGUF file (known by its magic, not its name) is read for its
  // metadata in slices; anything else as a config.json's text, unless far too large for one.
  async applyFile(f) {
    this.reading?.abort();
    const head = new Uint8Array(await f.slice(0, 4).arrayBuffer());
    if (String.fromCharCode(...head) === 'GGUF') return this.applyGguf(f);
    if (f.size > MAX_CONFIG_FILE) {
      this.showError(`${f.name}: ${f.size.toLocaleString('en-US')} bytes is not a config.json (kvcalc reads those up to 1 MiB) nor a GGUF file`);
      setText(this.status, 'Not used: the figures are still those of the config before.');
      return undefined;
    }
    return this.applyText(await f.text(), f.name);
  }

  async applyGguf(f) {
    const reading = (this.reading = new AbortController());
    this.showError('');
    this.progress.value = 0;
    setText(this.progressText, '');
    this.readingRow.hidden = false;
    setText(this.status, `Reading the metadata of ${f.name} (only its header and metadata are read, here in this page)`);
    let error = null;
    let note;
    try {
      const read = await this.readGguf(f, { signal: reading.signal, onProgress: (p) => this.showProgress(p) });
      error = this.onConfig(read.text);
      note = error ? null : `Using ${read.name}: the metadata of ${f.name} (${mb(read.bytesRead)} read of ${mb(f.size)}).`;
    } catch (e) {
      if (e && e.code === 'cancelled') note = `Cancelled: ${f.name} was not used; the figures are still those of the config before.`;
      else error = e;
    }
    if (this.reading !== reading) return;  // another file took its place
    this.reading = null;
    const focused = this.root.getRootNode().activeElement === this.cancelButton;
    this.readingRow.hidden = true;
    if (focused) this.file.focus();  // the button goes: keyboard focus stays in the panel
    this.textarea.value = '';
    this.showError(error ? describeError(error) : '');
    setText(this.status, note ?? 'Not used: the figures are still those of the config before.');
  }

  // "tokenizer.ggml.merges: 12,345 of 280,147 (3.1 of 8.3 MB)" beside the bar.
  showProgress(p) {
    this.progress.max = p.size || 1;
    this.progress.value = p.offset;
    const where = p.count ? `${p.key}: ${p.index.toLocaleString('en-US')} of ${p.count.toLocaleString('en-US')}, ` : '';
    setText(this.progressText, `${where}${mb(p.offset)} of ${mb(p.size)}`);
  }

  applyText(text, fileName) {
    this.textarea.value = text;
    this.apply(text, fileName);
  }

  apply(text, fileName = null) {
    const err = text.trim() ? this.onConfig(text) : 'config.json: the text is empty';
    this.showError(err ? describeError(err) : '');
    // After an error the calculator keeps the config it had: the note says so, not "Using".
    setText(this.status, err ? 'Not used: the figures are still those of the config before.'
      : fileName ? `Using ${fileName}.` : 'Using the pasted config.');
  }

  showError(text) {
    setText(this.error, text);
    if (text) this.textarea.setAttribute('aria-invalid', 'true');
    else this.textarea.removeAttribute('aria-invalid');
  }

  // Shows a config that came from the URL hash, so the reader sees what is in use.
  show(text) {
    if (this.textarea.value !== text) this.textarea.value = text;
  }
}
