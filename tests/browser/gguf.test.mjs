// A GGUF file picked in "Use your own config" (the file input, as a reader picks it): a sparse
// 8 GiB file whose first megabytes are a real header and metadata (the Llama 3 8B test file
// that tests/gguf/write-gguf.mjs writes, with its 8.3 MB tokenizer arrays) is read in slices
// for its metadata only (every Blob.slice counted in the page), with progress; the reading is
// cancelled by its button from the keyboard; a truncated file gives its message and the
// element keeps working. Nothing leaves the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN } from './harness.mjs';
import { readDescription, writeGguf } from '../gguf/write-gguf.mjs';

const GiB = 1024 ** 3;
const llama = writeGguf(readDescription('llama-3-8b-instruct'));
let env, dir;

before(async () => {
  env = await startBrowser();
  dir = mkdtempSync(join(tmpdir(), 'kvcalc-gguf-browser-'));
  writeFileSync(join(dir, 'llama-3-8b.gguf'), llama);
  truncateSync(join(dir, 'llama-3-8b.gguf'), 8 * GiB);
  writeFileSync(join(dir, 'cut.gguf'), llama.subarray(0, 7000000));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The page with every Blob.slice counted (bytes and calls), the element live, its panel open.
async function openPanel() {
  const { page, log } = await openPage(env, '/formula.html');
  await page.evaluate(() => {
    const slice = Blob.prototype.slice;
    window.sliced = { bytes: 0, calls: 0 };
    Blob.prototype.slice = function (start = 0, end = this.size) {
      const part = slice.call(this, start, end);
      window.sliced.bytes += part.size;
      window.sliced.calls += 1;
      return part;
    };
  });
  await waitForWidgets(page);
  await page.locator('#qwen button', { hasText: /^4K$/ }).click();
  await page.locator('#qwen summary', { hasText: 'Use your own config.json' }).click();
  await page.locator('#qwen input[type=file]').waitFor();
  return { page, log };
}

const status = (page) => shadowText(page, '#qwen', '[role=status]');
const fieldError = (page) => shadowText(page, '#qwen', '.dropzone .field-error');

test('a picked sparse 8 GiB GGUF is read for its metadata only, and handed to the core', async () => {
  const { page, log } = await openPanel();
  const before = await page.$eval('#qwen', (el) => el.result.kvBytes);
  await page.locator('#qwen input[type=file]').setInputFiles(join(dir, 'llama-3-8b.gguf'));
  await page.waitForFunction(() => /^(Using|Not used)/.test(document.querySelector('#qwen').shadowRoot.querySelector('[role=status]').textContent));
  const sliced = await page.evaluate(() => window.sliced);
  // The 4-byte magic, then 2 MB slices from where the reader asks: the metadata (8,330,772 B)
  // less the skipped scores and token_type where no slice held them, plus at most one slice past.
  assert.ok(sliced.bytes <= 4 + 8330772 + 2000000, `${sliced.bytes} bytes sliced`);
  assert.ok(sliced.bytes >= 8330772 - 1026048, `${sliced.bytes} bytes sliced`);
  assert.ok(sliced.calls <= 8, `${sliced.calls} slices`);
  // The core has the document: sized once the GGUF mapping reads it, else its error about the
  // model (never about reading the file) beside the input, and the figures as before.
  const said = await status(page);
  if (said.startsWith('Using')) {
    assert.match(said, /^Using .*: the metadata of llama-3-8b\.gguf \(\d+(\.\d)? MB read of 8,589\.9 MB\)\.$/);
    assert.equal(await fieldError(page), '');
    // 2 (K and V) x 32 layers x 8 KV heads x 128 (4096 / 32) x 2 B = 131,072 B a token.
    assert.equal(await page.$eval('#qwen', (el) => el.result.bytesPerToken), 131072);
  } else {
    assert.equal(said, 'Not used: the figures are still those of the config before.');
    assert.doesNotMatch(await fieldError(page), /GGUF:/);
    assert.equal(await page.$eval('#qwen', (el) => el.result.kvBytes), before);
  }
  // The progress row is gone once read.
  assert.equal(await page.locator('#qwen progress').isVisible(), false);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the reading is cancelled from the keyboard, announced, and nothing more is read', async () => {
  const { page, log } = await openPanel();
  // Each slice waits for the test's go, so the reading is caught in the middle.
  await page.evaluate(() => {
    const read = Blob.prototype.arrayBuffer;
    window.held = [];
    Blob.prototype.arrayBuffer = function () {
      if (this.size <= 4) return read.call(this);
      return new Promise((resolve) => window.held.push(() => resolve(read.call(this))));
    };
  });
  await page.locator('#qwen input[type=file]').setInputFiles(join(dir, 'llama-3-8b.gguf'));
  await page.waitForFunction(() => window.held.length === 1);
  await page.evaluate(() => window.held.shift()());  // the first slice: progress shows
  await page.waitForFunction(() => window.held.length === 1);
  assert.match(await status(page), /^Reading the metadata of llama-3-8b\.gguf/);
  assert.match(await shadowText(page, '#qwen', '.dropzone progress + .muted'), /^tokenizer\.ggml\.tokens: [\d,]+ of 128,256, 2 MB of 8,589\.9 MB$/);
  const cancel = page.locator('#qwen button', { hasText: 'Cancel reading' });
  await cancel.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /^Cancelled/.test(document.querySelector('#qwen').shadowRoot.querySelector('[role=status]').textContent));
  assert.equal(await status(page), 'Cancelled: llama-3-8b.gguf was not used; the figures are still those of the config before.');
  const calls = await page.evaluate(() => window.sliced.calls);
  await page.evaluate(() => window.held.forEach((go) => go()));
  await page.waitForTimeout(50);
  assert.equal(await page.evaluate(() => window.sliced.calls), calls);  // no slice after the cancel
  assert.equal(await cancel.isVisible(), false);
  // Focus stayed in the panel (the button went): on the file input.
  assert.equal(await page.$eval('#qwen', (el) => el.shadowRoot.activeElement?.type), 'file');
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('a truncated GGUF gives its message beside the input, and the element keeps working', async () => {
  const { page, log } = await openPanel();
  const before = await page.$eval('#qwen', (el) => el.result.kvBytes);
  await page.locator('#qwen input[type=file]').setInputFiles(join(dir, 'cut.gguf'));
  await page.waitForFunction(() => /GGUF/.test(document.querySelector('#qwen').shadowRoot.querySelector('.dropzone .field-error').textContent));
  assert.match(await fieldError(page),
    /^cut\.gguf: GGUF: (a string at offset [\d,]+ would run past the end of the file \(7,000,000 bytes\)|the file ends at offset 7,000,000), in the value of tokenizer\.ggml\.merges \(element [\d,]+ of 280,147\)$/);
  assert.equal(await status(page), 'Not used: the figures are still those of the config before.');
  assert.equal(await page.$eval('#qwen', (el) => el.result.kvBytes), before);
  // and it keeps working: another context sizes as before
  await page.locator('#qwen button', { hasText: /^32K$/ }).click();
  await page.waitForFunction((b) => document.querySelector('#qwen').result.kvBytes === b * 8, before);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
