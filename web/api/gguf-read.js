// Reads a GGUF file's metadata in the page: the Blob (a picked or dropped File) is read in
// slices of 2 MB (huggingface.js's HTTP_CHUNK_SIZE), each from where the core's reader
// (core/config/gguf.hpp) asks, so long tokenizer arrays of fixed-width values are skipped
// unread and a 40 GB file is read for its few megabytes of metadata: never whole, and nothing
// leaves the page. A source of another kind ({ size, read(start, end, signal) }: a file on the
// Hugging Face Hub read by HTTP Range requests, web/api/hub.js) is read the same way. Fetched
// by the first readGguf() call only (web/api/api-calls.js).

import { KvCalcError } from './errors.js';

/** Bytes read per slice. */
export const SLICE_BYTES = 2_000_000;

// The promise, or a rejection as soon as `signal` aborts (a slice being read is left behind).
function unlessAborted(promise, signal, cancelled) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

// A source's bytes [start, end) (fewer only at the end of the file).
const blobSource = (blob) => ({ size: blob.size, name: blob.name, read: (start, end) => blob.slice(start, end).arrayBuffer() });

/**
 * The document of a GGUF file's metadata, which size() and the other calls take as a config
 * text, read by the module's GGUF reader (ggufOpen / ggufFeed / ggufClose).
 * @param {any} module  the Embind module
 * @param {Blob | {size: number, name?: string, read: (start: number, end: number, signal?: AbortSignal) => Promise<ArrayBuffer | Uint8Array>}} input
 * @param {{onProgress?: (p: object) => void, signal?: AbortSignal}} [options]
 */
export async function readGguf(module, input, options) {
  const { onProgress, signal } = options ?? {};
  const source = input instanceof Blob ? blobSource(input) : input;
  if (typeof source?.read !== 'function' || !Number.isSafeInteger(source.size) || source.size < 0) {
    throw new KvCalcError({ code: 'bad_option', message: 'readGguf: give a Blob or File (a .gguf a reader picked or dropped), or a source { size, read(start, end) }', field: 'file' });
  }
  const file = typeof source.name === 'string' && source.name ? source.name : 'the GGUF file';
  const cancelled = () => new KvCalcError({ code: 'cancelled', message: `Reading ${file} was cancelled.`, field: 'file' });
  if (signal?.aborted) throw cancelled();
  const size = source.size;
  const handle = module.ggufOpen(size);
  let bytesRead = 0;
  try {
    for (let next = 0; ;) {
      if (signal?.aborted) throw cancelled();
      const bytes = new Uint8Array(await unlessAborted(source.read(next, Math.min(size, next + SLICE_BYTES), signal), signal, cancelled));
      bytesRead += bytes.length;
      const status = JSON.parse(module.ggufFeed(handle, next, bytes));
      if (status.error) throw new KvCalcError({ ...status.error, message: `${file}: ${status.error.message}` });
      if (status.state === 'done') {
        const text = status.document;
        const name = JSON.parse(text).gguf.metadata['general.name'];
        const metadataBytes = status.metadata_bytes;
        onProgress?.({ offset: metadataBytes, size, bytesRead, key: '', index: 0, count: 0, done: true });
        return { text, name: typeof name === 'string' && name ? name : file, bytesRead, metadataBytes };
      }
      onProgress?.({ offset: status.offset, size, bytesRead, key: status.key, index: status.index, count: status.count, done: false });
      next = status.next_offset;
    }
  } finally {
    module.ggufClose(handle);
  }
}
