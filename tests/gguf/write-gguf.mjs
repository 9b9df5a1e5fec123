// Writes GGUF files from the JSON descriptions in tests/fixtures/gguf/ (written test data: the
// keys and values each description's "source" published, in the GGUF layout of the spec and
// llama.cpp's gguf.cpp), in both byte orders. The tensor infos and data are not written: the
// reader stops where the key-value section ends. Multi-megabyte tokenizer arrays are generated
// from their published counts and sizes, so no binary is committed.
//
//   node tests/gguf/write-gguf.mjs OUT_DIR      writes NAME.gguf and NAME.be.gguf for each one
//
// A description: {"source", "written_from", "version", "tensor_count", "metadata": [[key, type,
// value], ...]}. type is a GGUF type name ("uint32", "string", ...) or [element type] for an
// array. A value may be {"hex": "ff00"} (a string's raw bytes), {"float": "NaN" | "Infinity" |
// "-Infinity"}, a decimal string for a 64-bit integer, or, for an array, a generator:
// {"strings": COUNT, "bytes": TOTAL} (COUNT strings of TOTAL bytes in all) or {"fill": VALUE,
// "count": COUNT}.
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

export const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'gguf');

const types = ['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'float32', 'bool', 'string', 'array',
  'uint64', 'int64', 'float64'];
const widths = { uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, float32: 4, bool: 1, uint64: 8,
  int64: 8, float64: 8 };

// A growing byte buffer with the file's byte order.
class Out {
  constructor(bigEndian) {
    this.le = !bigEndian;
    this.buf = Buffer.alloc(1 << 16);
    this.at = 0;
  }
  room(n) {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.alloc(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }
  bytes(b) {
    this.room(b.length);
    b.copy(this.buf, this.at);
    this.at += b.length;
  }
  u32(v) { this.room(4); this.le ? this.buf.writeUInt32LE(v, this.at) : this.buf.writeUInt32BE(v, this.at); this.at += 4; }
  u64(v) {
    this.room(8);
    this.le ? this.buf.writeBigUInt64LE(BigInt(v), this.at) : this.buf.writeBigUInt64BE(BigInt(v), this.at);
    this.at += 8;
  }
  string(s) {
    const b = typeof s === 'object' && s.hex !== undefined ? Buffer.from(s.hex, 'hex') : Buffer.from(String(s), 'utf8');
    this.u64(b.length);
    this.bytes(b);
  }
  scalar(type, v) {
    const n = widths[type];
    this.room(n);
    const b = this.buf, at = this.at, le = this.le;
    const f = typeof v === 'object' && v !== null && 'float' in v ? Number(v.float) : v;
    switch (type) {
      case 'uint8': b.writeUInt8(v, at); break;
      case 'int8': b.writeInt8(v, at); break;
      case 'bool': b.writeUInt8(typeof v === 'number' ? v : v ? 1 : 0, at); break;
      case 'uint16': le ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at); break;
      case 'int16': le ? b.writeInt16LE(v, at) : b.writeInt16BE(v, at); break;
      case 'uint32': le ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at); break;
      case 'int32': le ? b.writeInt32LE(v, at) : b.writeInt32BE(v, at); break;
      case 'float32': le ? b.writeFloatLE(f, at) : b.writeFloatBE(f, at); break;
      case 'float64': le ? b.writeDoubleLE(f, at) : b.writeDoubleBE(f, at); break;
      case 'uint64': le ? b.writeBigUInt64LE(BigInt(v), at) : b.writeBigUInt64BE(BigInt(v), at); break;
      case 'int64': le ? b.writeBigInt64LE(BigInt(v), at) : b.writeBigInt64BE(BigInt(v), at); break;
      default: throw new Error(`no scalar type ${type}`);
    }
    this.at += n;
  }
  value(type, v) {
    if (type === 'string') this.string(v);
    else this.scalar(type, v);
  }
}

// The elements of an array value: given, or generated.
function* elements(type, v) {
  if (Array.isArray(v)) { yield* v; return; }
  if (v.fill !== undefined) { for (let i = 0; i < v.count; i++) yield v.fill; return; }
  if (v.strings !== undefined) {
    // COUNT strings sharing TOTAL bytes as evenly as they can, each different ("t12" padded).
    const base = Math.floor(v.bytes / v.strings), extra = v.bytes % v.strings;
    for (let i = 0; i < v.strings; i++) {
      const n = base + (i < extra ? 1 : 0);
      const id = `t${i}`;
      yield id.length >= n ? id.slice(0, n) : id + 'x'.repeat(n - id.length);
    }
    return;
  }
  throw new Error(`no elements in ${JSON.stringify(v)}`);
}

function count(v) {
  return Array.isArray(v) ? v.length : v.fill !== undefined ? v.count : v.strings;
}

// The GGUF file of `description` as a Buffer.
export function writeGguf(description, { bigEndian = false } = {}) {
  const out = new Out(bigEndian);
  out.bytes(Buffer.from('GGUF'));
  out.u32(description.version ?? 3);
  out.u64(description.tensor_count ?? 0);
  const pairs = description.metadata;
  out.u64(description.metadata_kv_count ?? pairs.length);
  for (const [key, type, value] of pairs) {
    out.string(key);
    if (Array.isArray(type)) {
      out.u32(types.indexOf('array'));
      out.u32(types.indexOf(type[0]));
      out.u64(count(value));
      for (const e of elements(type[0], value)) out.value(type[0], e);
    } else {
      out.u32(types.indexOf(type));
      out.value(type, value);
    }
  }
  return out.buf.subarray(0, out.at);
}

export function readDescription(name) {
  return JSON.parse(readFileSync(join(fixtureDir, `${name}.json`), 'utf8'));
}

export function descriptionNames() {
  return readdirSync(fixtureDir).filter((f) => f.endsWith('.json')).map((f) => basename(f, '.json')).sort();
}

// Writes every description to `dir` as NAME.gguf (little-endian) and NAME.be.gguf.
export function writeAll(dir) {
  mkdirSync(dir, { recursive: true });
  for (const name of descriptionNames()) {
    const d = readDescription(name);
    writeFileSync(join(dir, `${name}.gguf`), writeGguf(d));
    writeFileSync(join(dir, `${name}.be.gguf`), writeGguf(d, { bigEndian: true }));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.length !== 3) {
    console.error('usage: node tests/gguf/write-gguf.mjs OUT_DIR');
    process.exit(2);
  }
  writeAll(process.argv[2]);
}
