// The npm command's hf:OWNER/NAME, against a local stand-in for the Hugging Face Hub
// (tests/hub-server.mjs) named by HF_ENDPOINT, with HF_TOKEN sent as a bearer token: the
// config fetched prints what the same config read from a file prints, in size, check, table
// and svg; a repository of GGUF files is read by Range requests (the bytes counted) into the
// document a local GGUF file gives; each refusal has its message. The native CLI, which reads
// no network, says to use the npm command.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, expectedFixtures } from '../expected/expected.mjs';
import { startHub } from '../hub-server.mjs';
import { readDescription, writeGguf } from '../gguf/write-gguf.mjs';

const native = join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const nodeCli = join(repoRoot, 'dist', 'cli.mjs');
const fixturePath = (name) => join(repoRoot, 'tests/fixtures/configs', name);
const NEMO = 'mistralai--Mistral-Nemo-Instruct-2407.json';
const GEMMA = 'google--gemma-2-9b-it.json';
const GiB = 1024 ** 3;
const TOKEN = 'hf_test_token_of_an_account_with_access';
// The Llama 3 8B test file that tests/gguf/write-gguf.mjs writes (8,330,772 B of metadata).
const llama = writeGguf(readDescription('llama-3-8b-instruct'));

let hub, dir;
before(async () => {
  hub = await startHub({
    token: TOKEN,
    repos: {
      // Real published configs (tests/fixtures/configs); Gemma 2 gated, as it is on the Hub.
      'mistralai/Mistral-Nemo-Instruct-2407': { files: { 'config.json': readFileSync(fixturePath(NEMO), 'utf8') }, revisions: ['main', 'v1.0'] },
      'google/gemma-2-9b-it': { gated: true, files: { 'config.json': readFileSync(fixturePath(GEMMA), 'utf8') } },
      // Written: repositories of GGUF files (the Llama 3 8B test metadata at the head of an
      // 8 GiB file), one with a single model, one with two (one of them split).
      'test-org/Llama-3-8B-GGUF': { files: { 'README.md': '# GGUF', 'Llama-3-8B-Q4_K_M.gguf': { gguf: llama, size: 8 * GiB } } },
      'test-org/Llama-3-8B-quants-GGUF': {
        files: {
          'Llama-3-8B-Q4_K_M.gguf': { gguf: llama, size: 8 * GiB },
          'Q8_0/Llama-3-8B-Q8_0-00001-of-00002.gguf': { gguf: llama, size: 5 * GiB },
          'Q8_0/Llama-3-8B-Q8_0-00002-of-00002.gguf': { gguf: Buffer.alloc(0), size: 3 * GiB },
        },
      },
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'kvcalc-hub-cli-'));
  writeFileSync(join(dir, 'llama.gguf'), llama);
});
after(async () => {
  await hub?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The npm command, asynchronously (the local Hub answers in this process), with HF_ENDPOINT
// pointing at it and HF_TOKEN as given.
function npx(args, { token = null, endpoint } = {}) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HF_ENDPOINT: endpoint ?? hub.endpoint };
    delete env.HF_TOKEN;
    if (token !== null) env.HF_TOKEN = token;
    const child = spawn(process.execPath, [nodeCli, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end();
  });
}
const since = (n) => hub.requests.slice(n);

test('size hf:ORG/NAME --context N: the config fetched prints as the same config read from a file', async () => {
  const n = hub.requests.length;
  const r = await npx(['size', 'hf:mistralai/Mistral-Nemo-Instruct-2407', '--context', '4096', '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  const local = await npx(['size', fixturePath(NEMO), '--context', '4096', '--json']);
  assert.equal(r.stdout, local.stdout);
  // 2 (K and V) x 40 layers x 8 KV heads x 128 (head_dim) x 2 B = 163,840 B a token; x 4,096.
  const e = expectedFixtures().find((f) => f.path.endsWith(NEMO));
  const report = JSON.parse(r.stdout);
  assert.equal(report.bytes_per_token, e.bytesPerToken);
  assert.equal(report.kv_bytes, 163840 * 4096);
  // The Hub's layout: resolve, then its 307 to the cached file, no token where none is set.
  assert.deepEqual(since(n).map((q) => [q.path, q.authorization]), [
    ['/mistralai/Mistral-Nemo-Instruct-2407/resolve/main/config.json', null],
    ['/api/resolve-cache/models/mistralai/Mistral-Nemo-Instruct-2407/0123456789abcdef0123456789abcdef01234567/config.json', null],
  ]);
  // A revision, and the text output.
  const text = await npx(['size', 'hf:mistralai/Mistral-Nemo-Instruct-2407@v1.0', '--context', '4096']);
  assert.equal(text.stdout, (await npx(['size', fixturePath(NEMO), '--context', '4096'])).stdout);
  assert.equal(since(n).at(-2).path, '/mistralai/Mistral-Nemo-Instruct-2407/resolve/v1.0/config.json');
});

test('HF_TOKEN is sent as a bearer token: a gated model is read with it, refused without', async () => {
  const id = 'google/gemma-2-9b-it';
  let n = hub.requests.length;
  const r = await npx(['size', `hf:${id}`, '--context', '4096', '--json'], { token: TOKEN });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, (await npx(['size', fixturePath(GEMMA), '--context', '4096', '--json'])).stdout);
  assert.ok(since(n).length >= 2 && since(n).every((q) => q.authorization === `Bearer ${TOKEN}`));

  n = hub.requests.length;
  const without = await npx(['size', `hf:${id}`, '--json']);
  assert.equal(without.status, 1);
  const message = `${id} is gated: the Hub gives its files only to signed-in accounts that accepted its conditions at ${hub.endpoint}/${id}. Set HF_TOKEN to an access token of an account that has access.`;
  assert.equal(without.stderr, `kvcalc: ${message}\n`);
  assert.deepEqual(JSON.parse(without.stdout), { error: { code: 'hub_gated', field: 'config', message } });
  assert.equal(since(n)[0].authorization, null);

  // An account without access (another token): the Hub's 403.
  const other = await npx(['size', `hf:${id}`], { token: 'hf_someone_else' });
  assert.equal(other.status, 1);
  assert.equal(other.stderr, `kvcalc: ${id} is gated: the Hub gives its files only to signed-in accounts that accepted its conditions at ${hub.endpoint}/${id}. The account of HF_TOKEN has no access to it (or the token cannot read).\n`);
});

test('a repository of GGUF files: its file read by Range requests, as the same file read locally', async (t) => {
  const n = hub.requests.length;
  hub.served.storage = 0;
  const r = await npx(['size', 'hf:test-org/Llama-3-8B-GGUF', '--context', '4096', '--json'], { token: TOKEN });
  const local = await npx(['size', join(dir, 'llama.gguf'), '--context', '4096', '--json']);
  // The same document reaches the core as from the local file: the same report, byte for
  // byte: 2 (K and V) x 32 layers x 8 KV heads x 128 (4096 / 32) x 2 B = 131,072 B a token.
  assert.deepEqual(r, local);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).bytes_per_token, 131072);
  const storage = since(n).filter((q) => q.server === 'storage');
  t.diagnostic(`${storage.length} Range requests, ${hub.served.storage} bytes of the 8 GiB file; exit ${r.status}`);
  // 2 MB slices from where the core's reader asks: the metadata's 8,330,772 B, less the arrays
  // it skips, plus at most one slice's rest; never the whole file.
  assert.ok(storage.length >= 2 && storage.length <= 6, `${storage.length} Range requests`);
  assert.ok(storage.every((q) => /^bytes=\d+-\d+$/.test(q.range)));
  assert.ok(hub.served.storage <= 8330772 + 2000000 && hub.served.storage >= 8330772 - 1026048, `${hub.served.storage} bytes`);
  // The token goes to the Hub, and not to the storage it redirects to (another origin: fetch
  // drops Authorization on a cross-origin redirect).
  assert.ok(since(n).filter((q) => q.server === 'hub').every((q) => q.authorization === `Bearer ${TOKEN}`));
  assert.ok(storage.every((q) => q.authorization === null));
  assert.equal(since(n)[1].path, '/api/models/test-org/Llama-3-8B-GGUF/revision/main?blobs=true');
});

test('several GGUF models: the error lists them and how to name one; named, it is read', async () => {
  const r = await npx(['size', 'hf:test-org/Llama-3-8B-quants-GGUF']);
  assert.equal(r.status, 1);
  assert.equal(r.stderr, 'kvcalc: test-org/Llama-3-8B-quants-GGUF has no config.json and 2 GGUF models: name one, as hf:test-org/Llama-3-8B-quants-GGUF/Llama-3-8B-Q4_K_M.gguf\n' +
    '  Llama-3-8B-Q4_K_M.gguf (8.6 GB)\n  Q8_0/Llama-3-8B-Q8_0-00001-of-00002.gguf (2 parts)\n');
  const named = await npx(['size', 'hf:test-org/Llama-3-8B-quants-GGUF/Q8_0/Llama-3-8B-Q8_0-00001-of-00002.gguf', '--json']);
  assert.deepEqual(named, await npx(['size', join(dir, 'llama.gguf'), '--json']));
  const missing = await npx(['size', 'hf:test-org/Llama-3-8B-quants-GGUF/nope.gguf']);
  assert.equal(missing.stderr, `kvcalc: test-org/Llama-3-8B-quants-GGUF has no file nope.gguf at main: check its name on ${hub.endpoint}/test-org/Llama-3-8B-quants-GGUF.\n`);
});

test('check, table and svg take hf: too', async () => {
  const nemo = 'hf:mistralai/Mistral-Nemo-Instruct-2407';
  const same = async (args) => {
    const r = await npx(args);
    const local = await npx(args.map((a) => (a === nemo ? fixturePath(NEMO) : a)));
    assert.deepEqual(r, local, args.join(' '));
    return r;
  };
  assert.equal((await same(['check', nemo, '--max-context', '131072', '--pool-tokens', '500000', '--json'])).status, 0);
  assert.equal((await same(['check', nemo, '--max-context', '131072', '--pool-tokens', '100000'])).status, 3);
  assert.equal((await same(['table', nemo, 'Qwen/Qwen3-8B', '--contexts', '4096,32768', '--format', 'csv'])).status, 0);
  const svg = await same(['svg', nemo, '--context', '32K']);
  assert.match(svg.stdout, /^<svg /);
});

test('refusals and bad input: each says what to do', async () => {
  let r = await npx(['size', 'hf:nobody/no-such-model', '--json']);
  assert.equal(r.status, 1);
  assert.deepEqual(JSON.parse(r.stdout).error.code, 'hub_not_found');
  assert.equal(r.stderr, `kvcalc: nobody/no-such-model: no such model on ${hub.endpoint}, or it is private (the Hub answers both alike to a client not signed in). Check the id; for a private model: set HF_TOKEN to an access token of an account that has access.\n`);
  r = await npx(['size', 'hf:mistralai/Mistral-Nemo-Instruct-2407@v9']);
  assert.equal(r.stderr, `kvcalc: mistralai/Mistral-Nemo-Instruct-2407 has no revision "v9" (a branch, tag or commit): check it on ${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407.\n`);
  r = await npx(['size', 'hf:no-slash']);
  assert.equal(r.stderr, 'kvcalc: "hf:no-slash" names no Hugging Face model: write hf:OWNER/NAME, hf:OWNER/NAME@REVISION, or hf:OWNER/NAME/FILE.gguf\n');
  r = await npx(['size', 'hf:a/b'], { endpoint: 'ftp://mirror' });
  assert.equal(r.stderr, 'kvcalc: HF_ENDPOINT: expected the http(s) address of the Hub or a mirror (https://hf-mirror.com), got "ftp://mirror"\n');
  // Nothing listens there (a port just freed): no answer.
  const closed = createServer();
  await new Promise((ok) => closed.listen(0, '127.0.0.1', ok));
  const nowhere = `http://127.0.0.1:${closed.address().port}`;
  await new Promise((ok) => closed.close(ok));
  r = await npx(['size', 'hf:a/b'], { endpoint: nowhere });
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `kvcalc: could not reach ${nowhere} (ECONNREFUSED): no network, or HF_ENDPOINT is wrong. Try again, or download ${nowhere}/a/b/resolve/main/config.json and give kvcalc its path.\n`);
});

test('--help says what hf: reads, HF_ENDPOINT and HF_TOKEN; the native CLI says to use the npm command', () => {
  for (const args of [['--help'], ['size', '--help']]) {
    const w = spawnSync(process.execPath, [nodeCli, ...args], { encoding: 'utf8' });
    assert.equal(w.status, 0);
    assert.match(w.stderr, /CONFIG may also be hf:OWNER\/NAME\[@REVISION\]\[\/FILE\] \(this npm command only/);
    assert.match(w.stderr, /\n {2}HF_ENDPOINT {2}the Hub's address \(default https:\/\/huggingface\.co\), or a mirror's\n {2}HF_TOKEN {5}an access token, sent as Authorization: Bearer/);
  }
  const n = spawnSync(native, ['size', 'hf:mistralai/Mistral-Nemo-Instruct-2407', '--json'], { encoding: 'utf8' });
  assert.equal(n.status, 1);
  const message = 'hf:mistralai/Mistral-Nemo-Instruct-2407: this kvcalc reads files and bundled presets, not the network; the npm command fetches Hugging Face ids ' +
    '(npx kvcalc with the same arguments; HF_TOKEN and HF_ENDPOINT honoured), or download the model\'s config.json and give its path';
  assert.equal(n.stderr, `kvcalc: ${message}\n`);
  assert.deepEqual(JSON.parse(n.stdout), { error: { code: 'invalid_value', field: 'config', message } });
  assert.match(spawnSync(native, ['--help'], { encoding: 'utf8' }).stderr, /the npm command \(npx kvcalc\) also takes\nhf:OWNER\/NAME, fetched from the Hugging Face Hub\./);
});
