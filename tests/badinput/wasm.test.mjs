// The bad-input corpus through the production wasm module (dist/kvcalc.js in Node): the
// same outcome as the CLI for every input, on one instance that keeps answering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cases } from './cases.mjs';
import { loadDist } from '../js/support.mjs';

const { kvcalc, kv } = await loadDist();

// JS options: numbers as numbers (the CLI takes them as text).
function jsOptions(c) {
  const o = {};
  for (const [k, v] of Object.entries(c.options)) {
    if (k === 'noContext') continue;
    o[k] = /^\d+$/.test(v) ? Number(v) : v;
  }
  if (!c.options.noContext && o.context === undefined) o.context = 4096;
  return o;
}

// A JS string cannot hold bytes that are not UTF-8 (they decode to U+FFFD), so that one
// input means something else in a page; every other input is passed as it is.
const comparable = cases.filter((c) => typeof c.input === 'string');
// GGUF files go through readGguf(), as a page reads a picked file.
const ggufFiles = cases.filter((c) => c.gguf);

test('all but the one non-UTF-8 input and the GGUF files reach the module as they are', () => {
  assert.equal(cases.length - comparable.length - ggufFiles.length, 1);
});

test('every bad GGUF file through readGguf() gives the CLI outcome', async () => {
  assert.ok(ggufFiles.length >= 15, String(ggufFiles.length));
  for (const c of ggufFiles) {
    await assert.rejects(kv.readGguf(new File([c.input], 'model.gguf')), (e) => e instanceof kvcalc.KvCalcError
      && e.code === c.expect.code && e.field === c.expect.field && e.message.startsWith('model.gguf: GGUF: '), c.name);
  }
  assert.equal(kv.size('Qwen/Qwen2.5-7B-Instruct', { context: 32768 }).kvBytes, 57344 * 32768);
});

test('every bad input through the wasm module gives the CLI outcome', () => {
  for (const c of comparable) {
    let result;
    let error;
    try {
      result = kv.size(c.input, jsOptions(c));
    } catch (e) {
      error = e;
    }
    if (c.expect.ok) {
      assert.equal(error, undefined, `${c.name}: ${error?.message}`);
      assert.equal(result.bytesPerToken, c.expect.bytesPerToken, c.name);
      const fields = result.warnings.map((w) => w.field);
      if (c.expect.warningField) assert.ok(fields.includes(c.expect.warningField), `${c.name}: ${fields}`);
      else assert.deepEqual(fields, [], c.name);
    } else {
      assert.ok(error instanceof kvcalc.KvCalcError, `${c.name}: no KvCalcError (${error})`);
      assert.equal(error.code, c.expect.code, `${c.name}: ${error.message}`);
      assert.ok(error.message.length > 0, c.name);
    }
  }
  // and the instance still answers exactly
  assert.equal(kv.size('Qwen/Qwen2.5-7B-Instruct', { context: 32768 }).kvBytes, 57344 * 32768);  // 1.75 GiB
});
