// Paste, drop or open a config.json. The text goes to onConfig(text), which returns null
// when the core read it, or the error to show next to the input (naming the field). The
// widget keeps its previous model on an error, so it never stops working.
// Loaded when a reader first opens the element's "Use your own config.json" panel (or a
// config comes in the URL hash): most readers never do, so kvcalc.js does not carry it.

import { h, setText, uid } from './dom.js';
import { describeError } from './error-text.js';

export class ConfigInput {
  // root: the panel's <details> (its <summary> is already there); the input goes inside.
  constructor(root, onConfig) {
    this.onConfig = onConfig;
    const id = uid('kv-config');
    this.textarea = h('textarea', {
      id, name: 'config', rows: '6', spellcheck: 'false', autocomplete: 'off', part: 'input config-text',
      placeholder: '{ "num_hidden_layers": 32, "num_attention_heads": 32, ... }',
      'aria-describedby': `${id}-error ${id}-hint`,
    });
    this.file = h('input', { id: `${id}-file`, type: 'file', accept: '.json,application/json', part: 'input config-file' });
    this.useButton = h('button', { type: 'button', part: 'button' }, 'Use this config');
    this.error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', part: 'config-error' });
    this.status = h('p', { class: 'note', id: `${id}-hint` }, 'Nothing leaves this page: the config is read here.');
    this.zone = h('div', { class: 'dropzone', part: 'dropzone' },
      h('label', { for: id }, 'config.json (paste the text or drop the file here)'),
      this.textarea,
      h('div', { class: 'row' },
        this.useButton,
        h('label', { for: `${id}-file` }, 'or open a file:'), this.file),
      this.error, this.status);
    this.root = root;
    root.append(this.zone);

    this.textarea.addEventListener('input', (ev) => {
      if (ev.inputType === 'insertFromPaste' || ev.inputType === 'insertFromDrop') this.apply(this.textarea.value);
    });
    this.useButton.addEventListener('click', () => this.apply(this.textarea.value));
    this.file.addEventListener('change', async () => {
      const f = this.file.files && this.file.files[0];
      if (f) this.applyText(await f.text(), f.name);
    });
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
      if (f) this.applyText(await f.text(), f.name);
      else if (dt) this.applyText(dt.getData('text/plain'), null);
    });
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
