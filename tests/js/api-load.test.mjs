// load(): one module per page, safe from many callers at once, instructive before it has
// resolved, and retryable after a failure. The tests run in order in this one process, so
// the module-level state is exactly what a fresh page has.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { dist, heapOf, importDist } from './support.mjs';

const kvcalc = await importDist();
const wasmBinary = readFileSync(join(dist, 'kvcalc_core.wasm'));

test('calling the API before load() says what to do', () => {
  for (const call of [() => kvcalc.size('Qwen/Qwen3-8B'), () => kvcalc.formula('Qwen/Qwen3-8B'), () => kvcalc.presets(),
    () => kvcalc.presetConfig('Qwen/Qwen3-8B'), () => kvcalc.check('Qwen/Qwen3-8B', { maxContext: 4096, poolTokens: 4096 }),
    () => kvcalc.table(['Qwen/Qwen3-8B']), () => kvcalc.gpuPresets()]) {
    assert.throws(call, {
      name: 'KvCalcError', code: 'not_loaded',
      message: 'kvcalc is not loaded: call load() first and await it (const kv = await load(); kv.size(...))',
    });
  }
});

test('wasmBinary must be bytes; the failed load can be retried', async () => {
  await assert.rejects(kvcalc.load({ wasmBinary: 'kvcalc_core.wasm' }), {
    name: 'KvCalcError', code: 'bad_option', field: 'wasmBinary',
    message: 'wasmBinary: must be an ArrayBuffer or a typed array (the bytes of kvcalc_core.wasm)',
  });
  assert.throws(() => kvcalc.size('Qwen/Qwen3-8B'), { code: 'not_loaded' });
});

test('bytes that are not a wasm module reject with load_failed; the next load() retries', async () => {
  const { warn, error } = console; // Emscripten logs the compile failure before rejecting
  console.warn = console.error = () => {};
  try {
    await assert.rejects(kvcalc.load({ wasmBinary: new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9]) }), (e) => {
      assert.equal(e.name, 'KvCalcError');
      assert.equal(e.code, 'load_failed');
      assert.match(e.message, /^kvcalc: could not load the wasm module: .*\(in Node, pass load\(\{ wasmBinary: readFileSync\(wasmUrl\) \}\)\)$/);
      return true;
    });
  } finally {
    Object.assign(console, { warn, error });
  }
});

test('20 concurrent load() calls share one promise and one instance', async () => {
  const promises = Array.from({ length: 20 }, () => kvcalc.load({ wasmBinary }));
  // While it loads, the API says so, and the promise is the same object for every caller.
  assert.throws(() => kvcalc.size('Qwen/Qwen3-8B'), {
    code: 'not_loaded', message: 'kvcalc is still loading: await the promise from load() before calling it (const kv = await load())',
  });
  for (const p of promises) assert.equal(p, promises[0]);
  const apis = await Promise.all(promises);
  for (const kv of apis) assert.equal(kv, apis[0]);
  // Later calls, with or without options, resolve to that same instance.
  assert.equal(await kvcalc.load(), apis[0]);
  assert.equal(await kvcalc.load({ wasmBinary: new Uint8Array(1) }), apis[0]);
  assert.ok(Object.isFrozen(apis[0]));
  // One wasm instance: its heap, seen through any of them, is one heap.
  assert.deepEqual(heapOf(apis[19]), heapOf(apis[0]));
});

test('after load() the module-level functions answer too', async () => {
  const kv = await kvcalc.load();
  assert.deepEqual(kvcalc.size('Qwen/Qwen3-8B', { context: 4096 }), kv.size('Qwen/Qwen3-8B', { context: 4096 }));
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 (head_dim) x 2 B = 147,456 B per token.
  assert.equal(kvcalc.size('Qwen/Qwen3-8B').bytesPerToken, 147_456);
  assert.equal(kvcalc.presets().length, kv.presets().length);
});

test('load() has no other options: core, and the side cores\' URLs and heapStats, are gone', async () => {
  const kv = await kvcalc.load({ core: 'size' });  // an unknown option is ignored, as any other
  assert.equal(kv, await kvcalc.load());
  for (const name of ['sizeWasmUrl', 'tableWasmUrl', 'checkWasmUrl', 'heapStats']) assert.equal(kvcalc[name], undefined, name);
  assert.deepEqual(Object.keys(kv).sort(), ['check', 'formula', 'gpuPresets', 'model', 'presetConfig', 'presets', 'readGguf', 'size', 'svg', 'table']);
  // The heap hook is a symbol-keyed property of its own, for the tests.
  assert.deepEqual(Object.keys(heapOf(kv)).sort(), ['inUse', 'memoryBytes']);
});

test('the wasm URL is beside kvcalc.js, and the page loads nothing else', () => {
  assert.equal(kvcalc.wasmUrl.href, new URL('kvcalc_core.wasm', new URL(`file://${dist}/`)).href);
  assert.deepEqual(readdirSync(dist).filter((f) => f.endsWith('.wasm')), ['kvcalc_core.wasm']);
  // kvcalc.js, what every page fetches, is the API's entry and the element's class; it
  // imports lazily the API's calls with the Embind glue (api-calls.js, at load()), the
  // element's code (live.js, when an element goes live), each view's code, which live.js
  // imports too (with the paste panel's), and the element's styles (styles.js, on a page
  // without a baked render's kvcalc.css). What exists once per page, the lazy files import
  // from kvcalc.js itself; kv.svg() imports the figure's code (svg.js) when first called, and
  // kv.readGguf() the GGUF file reader (gguf-read.js). No file evals or writes HTML, and only the wasm is fetched:
  // by kvcalc.js in a page (WebAssembly.compileStreaming, while the calls' code downloads),
  // or by the glue in api-calls.js given a wasmUrl; the page's CSP allows both for 'self'.
  // Except what a reader asks of the Hugging Face Hub: the element's Hub offer (in live.js)
  // imports its fetching code (hub-panel.js) when the reader first uses it.
  const js = readdirSync(dist).filter((f) => f.endsWith('.js')).sort();
  // llamacpp-view.js: llama.cpp's inputs and arithmetic, fetched where that engine shows.
  const views = ['./check-view.js', './formula-view.js', './gqa-view.js', './table-view.js', './llamacpp-view.js'];
  const imports = {
    'kvcalc.js': ['./api-calls.js', ...views, './styles.js', './live.js'],
    'api-calls.js': ['./kvcalc.js', './svg.js', './gguf-read.js'],
    'svg.js': ['./kvcalc.js'],
    'gguf-read.js': ['./kvcalc.js'],
    'live.js': ['./config-input.js', './hub-panel.js', ...views, './styles.js', './kvcalc.js'],
    'hub-panel.js': ['./kvcalc.js'],
  };
  assert.deepEqual(js, ['api-calls.js', 'check-view.js', 'config-input.js', 'formula-view.js', 'gguf-read.js', 'gqa-view.js', 'hub-panel.js', 'kvcalc.js', 'live.js',
    'llamacpp-view.js', 'styles.js', 'svg.js', 'table-view.js']);
  for (const file of js) {
    const text = readFileSync(join(dist, file), 'utf8');
    assert.ok(!/XMLHttpRequest|\beval\(|new Function|innerHTML/.test(text), file);
    assert.equal(/\bfetch\(/.test(text), ['api-calls.js', 'kvcalc.js', 'hub-panel.js'].includes(file), file);
    const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(specs)].sort(), (imports[file] ?? []).sort(), file);
  }
});
