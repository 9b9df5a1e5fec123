// A GGUF file as a CONFIG, natively and in the npm command (dist/cli.mjs, the same CLI in wasm
// under Node): sparse 40 GiB files with a real header (the GGUF test files that
// tests/gguf/write-gguf.mjs writes) are read for their metadata only, in memory that does not
// grow with the file; a GGUF file is known by its magic, not its name; a truncated or corrupt
// one is refused with its offset and key.
//
// What the core does with the document (sizing it) is the GGUF mapping's; these tests check
// the reading up to handing the document over: the read bytes, the memory, the errors, and
// that the core is given the document (its answer is never a reading error).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, writeFileSync, truncateSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../expected/expected.mjs';
import { writeAll } from '../gguf/write-gguf.mjs';

const native = join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const nodeCli = join(repoRoot, 'dist', 'cli.mjs');
const GiB = 1024 ** 3;

let dir;
const file = (name) => join(dir, name);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kvcalc-gguf-'));
  writeAll(dir);
  // 40 GiB files whose first megabytes are the real header and metadata: sparse, so they take
  // only those megabytes on disk. One named .bin, to show the magic decides, not the name.
  for (const [name, size] of [['llama-3-8b-instruct', 40], ['gpt-oss-120b', 40], ['lfm2-1.2b', 8]]) {
    const to = file(`${name}.${size}g.gguf`);
    writeFileSync(to, readFileSync(file(`${name}.gguf`)));
    truncateSync(to, size * GiB);
  }
  writeFileSync(file('llama.40g.bin'), readFileSync(file('llama-3-8b-instruct.gguf')));
  truncateSync(file('llama.40g.bin'), 40 * GiB);
});

after(() => rmSync(dir, { recursive: true, force: true }));

// Runs a command under sh and reads, after it exits, the shell's /proc/PID/io, which then
// counts the reaped child's reads too (rchar: every byte read() returned). `limitKiB` caps the
// command's address space (ulimit -v).
function measured(argv, { limitKiB } = {}) {
  const out = file('out.txt');
  const script = `${limitKiB ? `ulimit -v ${limitKiB}; ` : ''}"$@" >"${out}"; s=$?; cat /proc/$$/io; exit $s`;
  const r = spawnSync('/bin/sh', ['-c', script, 'sh', ...argv], { encoding: 'utf8' });
  const rchar = Number(/^rchar: (\d+)$/m.exec(r.stdout)?.[1]);
  assert.ok(Number.isFinite(rchar), r.stdout);
  return { status: r.status, stderr: r.stderr, stdout: readFileSync(out, 'utf8'), rchar };
}

// The core's answer to the document: a report (once the GGUF mapping reads it) or an error
// that is about the model, never about reading the file.
function handedOver(r, what, bytesPerToken) {
  const report = JSON.parse(r.stdout);
  if (report.error) {
    assert.notEqual(report.error.code, 'malformed_gguf', `${what}: ${r.stderr}`);
  } else {
    assert.equal(r.status, 0, what);
    if (bytesPerToken !== undefined) assert.equal(report.bytes_per_token, bytesPerToken, what);
  }
}

test('the GGUF test files were written, sparse where large', () => {
  assert.equal(statSync(file('llama-3-8b-instruct.40g.gguf')).size, 40 * GiB);
  // Sparse: the 40 GiB file holds about its 8 MB of metadata on disk.
  assert.ok(statSync(file('llama-3-8b-instruct.40g.gguf')).blocks * 512 < 64 * 1024 * 1024);
});

test('native: a 40 GiB GGUF is read for its metadata only, in memory that does not grow with the file', () => {
  assert.ok(existsSync(native), `${native}: build it first`);
  const baseline = measured([native, 'size', join(repoRoot, 'tests/fixtures/configs/microsoft--phi-2.json'), '--json']);
  for (const [name, metadataBytes] of [['llama-3-8b-instruct.40g.gguf', 8330772], ['gpt-oss-120b.40g.gguf', 11853322],
    ['llama.40g.bin', 8330772]]) {
    // 64 MiB of address space: the CLI and the core's 1 MiB chunk, not the file, nor its 8-12 MB
    // of tokenizer arrays held.
    const r = measured([native, 'size', file(name), '--json'], { limitKiB: 65536 });
    // Llama 3 8B, once sized: 2 (K and V) x 32 layers x 8 KV heads x 128 (4096 / 32) x 2 B = 131,072 B a token.
    handedOver(r, name, name.startsWith('llama') ? 131072 : undefined);
    const read = r.rchar - baseline.rchar;
    // Llama 3's scores and token_type (1,026,048 B) are skipped, not read; at most the last 1 MiB
    // chunk runs past the metadata.
    assert.ok(read <= metadataBytes + (1 << 20), `${name}: read ${read} B for ${metadataBytes} B of metadata`);
    assert.ok(read >= metadataBytes - 1026048 - (1 << 20), `${name}: read ${read} B`);
  }
});

test('native: size, check and table take a GGUF wherever they take a CONFIG', () => {
  const big = file('lfm2-1.2b.8g.gguf');
  for (const args of [['size', big, '--json'], ['check', big, '--max-context', '4096', '--pool-tokens', '8192', '--json']]) {
    const r = spawnSync(native, args, { encoding: 'utf8' });
    handedOver(r, args.join(' '));
  }
  const t = spawnSync(native, ['table', big, join(repoRoot, 'tests/fixtures/configs/microsoft--phi-2.json'), '--format', 'json'],
    { encoding: 'utf8' });
  assert.doesNotMatch(t.stderr, /GGUF:/, t.stderr);
  // stdin too, read through (it cannot seek).
  const s = spawnSync(native, ['size', '-', '--json'], { input: readFileSync(file('deepseek-r1-mla.be.gguf')), encoding: 'utf8' });
  handedOver(s, 'stdin');
});

test('native: a truncated or corrupt GGUF is refused with its offset and key, exit 1', () => {
  const whole = readFileSync(file('llama-3-8b-instruct.gguf'));
  const cut = file('cut.gguf');
  writeFileSync(cut, whole.subarray(0, 7000000));  // inside tokenizer.ggml.merges' strings
  let r = spawnSync(native, ['size', cut, '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  const e = JSON.parse(r.stdout).error;
  assert.equal(e.code, 'malformed_gguf');
  assert.equal(e.field, 'tokenizer.ggml.merges');
  assert.match(e.message, new RegExp(`^${cut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: GGUF: (a string at offset [0-9,]+ would run past the end of the file \\(7,000,000 bytes\\)|the file ends at offset 7,000,000), in the value of tokenizer\\.ggml\\.merges \\(element [0-9,]+ of 280,147\\)$`));
  assert.equal(r.stderr, `kvcalc: ${e.message}\n`);
  const v1 = file('v1.gguf');
  writeFileSync(v1, Buffer.from('GGUF\x01\0\0\0\0\0\0\0\0\0\0\0', 'latin1'));
  r = spawnSync(native, ['size', v1], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `kvcalc: ${v1}: GGUF: version 1 (GGUFv1) is no longer supported by llama.cpp; convert the model again with a current llama.cpp\n`);
});

test('npm kvcalc (wasm under Node): the same reading, the same answers, metadata only', () => {
  assert.ok(existsSync(nodeCli), `${nodeCli}: run scripts/build.sh`);
  const node = process.execPath;
  const baseline = measured([node, nodeCli, 'size', join(repoRoot, 'tests/fixtures/configs/microsoft--phi-2.json'), '--json']);
  for (const name of ['llama-3-8b-instruct.40g.gguf', 'llama.40g.bin']) {
    const r = measured([node, nodeCli, 'size', file(name), '--json']);
    const n = spawnSync(native, ['size', file(name), '--json'], { encoding: 'utf8' });
    assert.equal(r.stdout, n.stdout, name);
    assert.equal(r.status, n.status, name);
    handedOver(r, name);
    const read = r.rchar - baseline.rchar;
    assert.ok(read <= 8330772 + (1 << 20), `${name}: read ${read} B`);
  }
  const cut = file('cut-node.gguf');
  writeFileSync(cut, readFileSync(file('gpt-oss-120b.gguf')).subarray(0, 5000000));
  const w = spawnSync(node, [nodeCli, 'size', cut, '--json'], { encoding: 'utf8' });
  const n = spawnSync(native, ['size', cut, '--json'], { encoding: 'utf8' });
  assert.equal(w.status, 1);
  assert.equal(w.stdout, n.stdout);
  assert.equal(w.stderr, n.stderr);
});
