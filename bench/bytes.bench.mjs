// Where the wasm module's bytes go: its sections, the code by function (largest first) and by
// the namespace or library the function comes from, and the data. Read from the module built
// with its functions' names (build-wasm/kvcalc_wasm_names.wasm: the shipped flags plus
// --profiling-funcs, which adds a name section and leaves the code as shipped; its code section
// is printed beside the shipped module's to show it). Each figure is given raw and as what it
// adds to the gzip (-9) of its section: the section's gzip less the gzip of the section without
// it, since gzip is what a page fetches and text and repeated code shrink far more than the rest.
// Run: node bench/bytes.bench.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildWasm = join(root, process.env.KVCALC_WASM_BUILD_DIR || 'build-wasm');
const named = join(buildWasm, 'kvcalc_wasm_names.wasm');
const shipped = join(buildWasm, 'kvcalc_core.wasm');
if (!existsSync(named)) {
  console.log(`no ${named}: build it with cmake --build ${buildWasm} --target kvcalc_wasm_names (scripts/bench.sh does)`);
  process.exit(0);
}

// The module's sections, and in them the function bodies, the function names and the data
// segments (the WebAssembly binary format: a section is an id byte and a LEB128 size).
function readModule(bytes) {
  let at = 8;
  const u32 = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++];
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  const name = () => {
    const n = u32();
    const s = new TextDecoder().decode(bytes.subarray(at, at + n));
    at += n;
    return s;
  };
  const module = { sections: [], imports: 0, bodies: [], code: [], names: new Map(), data: [] };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = u32();
    const end = at + size;
    const section = { id, size: size + 1 + (at - (end - size) > 0 ? 0 : 0) };
    if (id === 0) section.name = name();
    if (id === 2) {  // imports: functions imported come first in the function index space
      for (let n = u32(); n > 0; n--) {
        name(); name();
        const kind = bytes[at++];
        if (kind === 0) { module.imports++; u32(); }
        else if (kind === 1) { at++; const f = u32(); u32(); if (f & 1) u32(); }
        else if (kind === 2) { const f = u32(); u32(); if (f & 1) u32(); }
        else if (kind === 3) { at += 2; }
      }
    } else if (id === 10) {  // code
      for (let n = u32(); n > 0; n--) {
        const s = u32();
        module.bodies.push(s);
        module.code.push(bytes.subarray(at, at + s));
        at += s;
      }
    } else if (id === 11) {  // data: active segments (flags 0 or 2, with an offset expression) or passive (1)
      for (let n = u32(); n > 0; n--) {
        const flags = u32();
        if (flags === 2) u32();
        if (flags !== 1) while (bytes[at++] !== 0x0b);
        const s = u32();
        module.data.push(bytes.subarray(at, at + s));
        at += s;
      }
    } else if (id === 0 && section.name === 'name') {
      while (at < end) {
        const sub = bytes[at++];
        const subSize = u32();
        const subEnd = at + subSize;
        if (sub === 1) for (let n = u32(); n > 0; n--) { const i = u32(); module.names.set(i, name()); }
        at = subEnd;
      }
    }
    section.size = size;
    module.sections.push(section);
    at = end;
  }
  return module;
}

// gzip -9 of byte arrays laid end to end, and what some of them add to it: the gzip of all
// less the gzip of the others.
const gz = (parts) => gzipSync(Buffer.concat(parts), { level: 9 }).length;
const added = (parts, isPart) => gz(parts) - gz(parts.filter((p, i) => !isPart(p, i)));

const SECTION = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'data count'];
const bytes = readFileSync(named);
const m = readModule(bytes);
const ship = readModule(readFileSync(shipped));
const codeSize = (mod) => mod.sections.find((s) => s.id === 10)?.size ?? 0;
const kb = (n) => `${(n / 1024).toFixed(1).padStart(6)} KB`;

const codeGzip = gz(m.code);
const dataGzip = gz(m.data);
console.log(`# wasm bytes: ${shipped.replace(`${root}/`, '')} ${readFileSync(shipped).length} B (gzip ${gzipSync(readFileSync(shipped), { level: 9 }).length})`);
console.log(`code section: shipped ${codeSize(ship)} B, named build ${codeSize(m)} B (${codeSize(m) === codeSize(ship) ? 'the same code' : 'differs: the figures below are the named build\'s'})`);
console.log('  section                 raw       gzip alone');
for (const s of ship.sections) {
  const alone = s.id === 10 ? codeGzip : s.id === 11 ? dataGzip : null;
  console.log(`  ${(s.name ? `custom "${s.name}"` : SECTION[s.id] ?? s.id).padEnd(18)} ${kb(s.size)}${alone === null ? '' : ` ${kb(alone)}`}`);
}

// Names, demangled in one c++filt call.
const mangled = m.bodies.map((_, i) => m.names.get(i + m.imports) ?? `(function ${i + m.imports})`);
const filt = spawnSync('c++filt', [], { input: mangled.join('\n'), encoding: 'utf8', maxBuffer: 64 << 20 });
const names = filt.status === 0 ? filt.stdout.split('\n') : mangled;
const functions = m.bodies.map((size, i) => ({ size, name: names[i], index: i }));
const total = functions.reduce((a, f) => a + f.size, 0);

const largest = [...functions].sort((a, b) => b.size - a.size).slice(0, 25);
for (const f of largest) f.gzip = added(m.code, (_, i) => i === f.index);
console.log(`\n## code by function: ${functions.length} functions, ${total} B (gzip ${codeGzip}); the 25 largest, raw and what each adds to the gzip`);
for (const f of largest) {
  console.log(`${kb(f.size)} ${kb(f.gzip)}  ${f.name.length > 100 ? `${f.name.slice(0, 97)}...` : f.name}`);
}

// Where a function comes from, by the first namespace of its qualified name (template
// arguments and a template's return type set aside): kvcalc's core, the bindings
// (wasm/bindings.cpp's anonymous namespace), nlohmann's JSON, Embind, the C++ library, the
// allocator, or the C library and runtime (names with no namespace).
const origin = (n) => {
  let head = n.split('(anonymous namespace)').join('anon').split('(')[0];
  for (let prev; prev !== head;) { prev = head; head = head.replace(/<[^<>]*>/g, ''); }
  if (/\boperator (new|delete)/.test(n)) return 'C++ library (std::)';
  const qualified = head.trim().split(' ').pop();
  if (qualified.startsWith('byn$')) return 'functions binaryen merged';
  const first = qualified.includes('::') ? qualified.split('::')[0] : '';
  if (first === 'kvcalc') return 'kvcalc (core/)';
  if (first === 'anon') return 'bindings (wasm/bindings.cpp)';
  if (first === 'nlohmann') return 'nlohmann::json';
  if (first === 'emscripten' || /embind/.test(qualified)) return 'Embind';
  if (first === 'std' || first.startsWith('__cxxabi')) return 'C++ library (std::)';
  if (/^(dl(malloc|free|realloc|memalign)|emmalloc_\w+|malloc|free|realloc|sbrk|emscripten_builtin_\w+)$/.test(qualified)) return 'allocator (emmalloc)';
  if (/^\(function \d+\)$/.test(n)) return 'unnamed';
  return first ? `other (${first}::)` : 'C library and runtime';
};
const byOrigin = new Map();
for (const f of functions) {
  f.origin = origin(f.name);
  const e = byOrigin.get(f.origin) ?? { size: 0, count: 0 };
  e.size += f.size;
  e.count += 1;
  byOrigin.set(f.origin, e);
}
console.log('\n## code by origin: raw, and what it adds to the code\'s gzip');
for (const [o, e] of [...byOrigin].sort((a, b) => b[1].size - a[1].size)) {
  e.gzip = added(m.code, (_, i) => functions[i].origin === o);
  console.log(`${kb(e.size)} ${kb(e.gzip)}  ${String(e.count).padStart(5)} functions  ${o}`);
}

// The data: its segments, and how much of it is text (runs of 8 or more printable bytes), by
// kind: embedded JSON texts (bundled configs: "{\"..." runs), mangled C++ type names (type_info
// names, which -fno-rtti leaves out), and the rest (messages, names, sources).
const data = m.data.reduce((a, d) => a + d.length, 0);
const runs = m.data.flatMap((d) => [...Buffer.from(d).toString('latin1').matchAll(/[\x20-\x7e\n]{8,}/g)].map((r) => r[0]));
const text = runs.reduce((a, r) => a + r.length, 0);
console.log(`\n## data: ${m.data.length} segment${m.data.length === 1 ? '' : 's'}, ${data} B (gzip ${dataGzip}); ${text} B of it text (runs of 8+ printable bytes), ${data - text} B other`);
const KINDS = [
  ['JSON texts (embedded configs)', (r) => r.startsWith('{"')],
  ['C++ type names (RTTI)', (r) => /^N?St3__2|^N?8nlohmann|^N?6kvcalc|^N10__cxxabiv1|^\d+[A-Za-z_]\w*$/.test(r) && !r.includes(' ')],
  ['other text', () => true],
];
const kindOf = (r) => KINDS.find(([, test]) => test(r))[0];
const dataText = Buffer.from(Buffer.concat(m.data)).toString('latin1');
const dataBytes = (keep) => Buffer.from(dataText.replace(/[\x20-\x7e\n]{8,}/g, (r) => (keep(r) ? r : '')), 'latin1');
const dataKinds = {};
console.log('  raw        gzip it adds');
for (const [kind] of KINDS) {
  const raw = runs.filter((r) => kindOf(r) === kind).reduce((a, r) => a + r.length, 0);
  const gzip = dataGzip - gz([dataBytes((r) => kindOf(r) !== kind)]);
  dataKinds[kind] = { raw, gzip };
  console.log(`${kb(raw)} ${kb(gzip)}  ${kind}`);
}
console.log('the 8 longest texts:');
for (const run of runs.sort((a, b) => b.length - a.length).slice(0, 8)) {
  console.log(`${kb(run.length)}  ${JSON.stringify(run.slice(0, 90))}${run.length > 90 ? '...' : ''}`);
}

console.log(`BENCH_JSON ${JSON.stringify({ bytes: {
  wasm: readFileSync(shipped).length, wasm_gzip: gzipSync(readFileSync(shipped), { level: 9 }).length,
  code: codeSize(ship), code_gzip: codeGzip, data, data_gzip: dataGzip,
  data_text: text, data_kinds: dataKinds, functions: functions.length,
  by_origin: Object.fromEntries([...byOrigin].map(([o, e]) => [o, { raw: e.size, gzip: e.gzip }])),
  largest: largest.slice(0, 10).map((f) => ({ name: f.name.slice(0, 200), size: f.size, gzip: f.gzip })),
} })}`);
