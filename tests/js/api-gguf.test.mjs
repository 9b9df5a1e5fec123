// kv.readGguf(blob, { onProgress, signal }) on the production dist/, in Node (Blob is the
// page's): the GGUF test files (tests/gguf/write-gguf.mjs) read in slices to the same document
// the native CLI hands to the core, only the metadata sliced, progress through the tokenizer
// arrays, cancellation at once, and every refusal a KvCalcError after which the instance
// keeps working.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { heapOf, loadDist } from './support.mjs';
import { readDescription, writeGguf } from '../gguf/write-gguf.mjs';

let kv, kvcalc;
before(async () => {
  ({ kv, kvcalc } = await loadDist());
});

const llama = writeGguf(readDescription('llama-3-8b-instruct'));

// A Blob of `size` bytes that starts with `head` and counts the bytes its slices hand out,
// without holding the rest (the sparse file of a page: a huge File whose tail is never read).
function countingBlob(head, size, name = 'model.gguf') {
  const file = new File([head], name);
  const counted = { bytes: 0, slices: 0 };
  const blob = Object.create(File.prototype, {
    size: { value: size },
    name: { value: name },
    slice: {
      value(start = 0, end = size) {
        counted.slices += 1;
        counted.bytes += Math.max(0, Math.min(end, size) - start);
        // Past the head: zeros, as a sparse file reads.
        if (start >= head.length) return new Blob([new Uint8Array(Math.max(0, Math.min(end, size) - start))]);
        const part = file.slice(start, Math.min(end, head.length));
        return end > head.length ? new Blob([part, new Uint8Array(Math.min(end, size) - head.length)]) : part;
      },
    },
  });
  return { blob, counted };
}

test('readGguf: the document, with general.name, from the metadata only of an 8 GiB file', async () => {
  const { blob, counted } = countingBlob(llama, 8 * 1024 ** 3);
  const progress = [];
  const read = await kv.readGguf(blob, { onProgress: (p) => progress.push(p) });
  // The keys web/kvcalc.d.ts declares (GgufRead, GgufProgress).
  assert.deepEqual(Object.keys(read).sort(), ['bytesRead', 'metadataBytes', 'name', 'text']);
  assert.deepEqual(Object.keys(progress[0]).sort(), ['bytesRead', 'count', 'done', 'index', 'key', 'offset', 'size']);
  assert.equal(read.name, 'Meta-Llama-3-8B-Instruct');
  assert.equal(read.metadataBytes, 8330772);
  const doc = JSON.parse(read.text).gguf;
  assert.equal(doc.metadata['llama.block_count'], 32);
  assert.deepEqual(doc.metadata['tokenizer.ggml.merges'], { gguf_array: 'string', count: 280147 });
  // Sliced: the metadata, less the skipped scores and token_type (1,026,048 B) where a 2 MB slice
  // did not already hold them, plus at most one slice past the end of the metadata.
  assert.equal(read.bytesRead, counted.bytes);
  assert.ok(counted.bytes <= 8330772 + 2000000, String(counted.bytes));
  assert.ok(counted.slices <= 6, String(counted.slices));
  // Progress through the merges (280,147 strings), the offset rising to the metadata's end.
  assert.ok(progress.some((p) => p.key === 'tokenizer.ggml.merges' && p.count === 280147 && p.index > 0 && p.index < p.count));
  assert.deepEqual(progress.map((p) => p.offset), [...progress.map((p) => p.offset)].sort((a, b) => a - b));
  assert.equal(progress.at(-1).done, true);
  assert.equal(progress.at(-1).offset, 8330772);
});

test('readGguf: a source { size, name, read(start, end) } is read as a Blob is: the same document, the same reads', async () => {
  const size = 8 * 1024 ** 3;
  const reads = [];
  const source = {
    size,
    name: 'remote.gguf',
    // As a Range request answers: the asked bytes, zeros past the head (resolved later, as a network would).
    read: async (start, end) => {
      reads.push([start, end]);
      await new Promise((ok) => setTimeout(ok, 0));
      const out = new Uint8Array(end - start);
      if (start < llama.length) out.set(llama.subarray(start, Math.min(end, llama.length)));
      return out;
    },
  };
  const fromSource = await kv.readGguf(source);
  const fromBlob = await kv.readGguf(countingBlob(llama, size).blob);
  assert.equal(fromSource.text, fromBlob.text);
  assert.equal(fromSource.bytesRead, fromBlob.bytesRead);
  assert.equal(reads.length, 5);
  assert.ok(reads.every(([start, end]) => end - start <= 2000000));
  // Not a source: a KvCalcError naming the argument.
  await assert.rejects(kv.readGguf({ size: 10 }), (e) => e instanceof kvcalc.KvCalcError && e.code === 'bad_option' && e.field === 'file');
});

test('readGguf: both byte orders and every test file give the document the native reader gives', async () => {
  for (const name of ['lfm2-1.2b', 'gemma-3n-e2b', 'deepseek-r1-mla', 'codellama-7b-v2', 'every-type']) {
    const d = readDescription(name);
    const le = await kv.readGguf(new File([writeGguf(d)], `${name}.gguf`));
    const be = await kv.readGguf(new File([writeGguf(d, { bigEndian: true })], `${name}.be.gguf`));
    const a = JSON.parse(le.text), b = JSON.parse(be.text);
    assert.equal(b.gguf.byte_order, 'big');
    b.gguf.byte_order = 'little';
    assert.deepEqual(a, b, name);
  }
  const lfm2 = JSON.parse((await kv.readGguf(new File([writeGguf(readDescription('lfm2-1.2b'))], 'lfm2.gguf'))).text);
  assert.deepEqual(lfm2.gguf.metadata['lfm2.attention.head_count_kv'], [0, 0, 8, 0, 0, 8, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0]);
});

test('readGguf: cancelled at once by its signal, a KvCalcError (cancelled); the instance keeps working', async () => {
  const controller = new AbortController();
  const { blob, counted } = countingBlob(llama, 8 * 1024 ** 3, 'big.gguf');
  const reading = kv.readGguf(blob, { signal: controller.signal, onProgress: () => controller.abort() });
  await assert.rejects(reading, (e) => e instanceof kvcalc.KvCalcError && e.code === 'cancelled' && e.field === 'file'
    && e.message === 'Reading big.gguf was cancelled.');
  assert.equal(counted.slices, 1);  // aborted after the first slice's progress: nothing more read
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(kv.readGguf(blob, { signal: aborted.signal }), { code: 'cancelled' });
  assert.equal((await kv.readGguf(new File([llama], 'again.gguf'))).metadataBytes, 8330772);
});

test('readGguf: a truncated or corrupt file, or not a Blob, is a KvCalcError naming the offset and key', async () => {
  await assert.rejects(kv.readGguf(new File([llama.subarray(0, 7000000)], 'cut.gguf')), (e) => e instanceof kvcalc.KvCalcError
    && e.code === 'malformed_gguf' && e.field === 'tokenizer.ggml.merges'
    && /^cut\.gguf: GGUF: (a string at offset [\d,]+ would run past the end of the file \(7,000,000 bytes\)|the file ends at offset 7,000,000), in the value of tokenizer\.ggml\.merges \(element [\d,]+ of 280,147\)$/.test(e.message));
  await assert.rejects(kv.readGguf(new File([Buffer.from('GGUF\x01\0\0\0\0\0\0\0\0\0\0\0', 'latin1')], 'v1.gguf')), {
    code: 'malformed_gguf', field: 'gguf',
    message: 'v1.gguf: GGUF: version 1 (GGUFv1) is no longer supported by llama.cpp; convert the model again with a current llama.cpp',
  });
  await assert.rejects(kv.readGguf(new File(['{"num_hidden_layers": 2}'], 'config.json')), {
    code: 'malformed_gguf', message: 'config.json: GGUF: not a GGUF file: it does not start with "GGUF"',
  });
  await assert.rejects(kv.readGguf('model.gguf'), { code: 'bad_option', field: 'file' });
  // The instance keeps working, and closed every reader it opened.
  assert.equal(kv.size('Qwen/Qwen3-8B', { context: 4096 }).bytesPerToken, 147456);
});

test('readGguf: the document is handed to the core as a config text', async () => {
  const read = await kv.readGguf(new File([writeGguf(readDescription('lfm2-1.2b'))], 'lfm2.gguf'));
  // Until the GGUF mapping reads the document, the core answers it with an error about the
  // model, never about the file; once it does, with a report.
  try {
    assert.ok(kv.size(read.text, { context: 4096 }).bytesPerToken > 0);
  } catch (e) {
    assert.ok(e instanceof kvcalc.KvCalcError);
    assert.notEqual(e.code, 'malformed_gguf');
    assert.notEqual(e.code, 'internal_error');
  }
});

test('readGguf: many reads, refused, cancelled or whole, leave the wasm heap as it was', async () => {
  const cut = new File([llama.subarray(0, 7000000)], 'cut.gguf');
  const whole = new File([writeGguf(readDescription('gemma-3n-e2b'))], 'gemma.gguf');
  const round = async () => {
    await assert.rejects(kv.readGguf(cut), { code: 'malformed_gguf' });
    const controller = new AbortController();
    await assert.rejects(kv.readGguf(new File([llama], 'big.gguf'), { signal: controller.signal, onProgress: () => controller.abort() }),
      { code: 'cancelled' });
    assert.equal((await kv.readGguf(whole)).name, 'Gemma 3n E2B It');
  };
  await round();
  const before = heapOf(kv);
  for (let i = 0; i < 20; i++) await round();
  assert.deepEqual(heapOf(kv), before);
});
