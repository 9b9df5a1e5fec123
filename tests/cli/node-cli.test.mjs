// The npm package's `kvcalc` (dist/cli.mjs, Node over the wasm) against the native CLI: the
// same commands on the same inputs print the same stdout and stderr, byte for byte, and exit
// with the same code. Every shared config and every fixture config, every command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, configsDir } from '../expected/expected.mjs';
import { writeAll } from '../gguf/write-gguf.mjs';

const native = join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const nodeCli = join(repoRoot, 'dist', 'cli.mjs');
const fixtures = join(repoRoot, 'tests/fixtures/configs');
const logs = join(repoRoot, 'tests/fixtures/engine-logs');

const jsonFiles = (dir) => readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));
const sharedConfigs = [...jsonFiles(configsDir), ...jsonFiles(join(configsDir, 'reconstructed'))];

// Runs one command line both ways, the Node one asynchronously (a few run at once).
function runNode(args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [nodeCli, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

async function same(cases) {
  const queue = [...cases];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const [args, input] = c;
      const n = spawnSync(native, args, { input: input ?? '', encoding: 'utf8', maxBuffer: 64 << 20 });
      const w = await runNode(args, input);
      const line = `kvcalc ${args.join(' ')}`;
      assert.equal(w.status, n.status, `${line}: exit code (stderr: ${w.stderr})`);
      assert.equal(w.stdout, n.stdout, `${line}: stdout`);
      assert.equal(w.stderr, n.stderr, `${line}: stderr`);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
}

test('both CLIs are built', () => {
  assert.ok(existsSync(native), `${native}: run scripts/build.sh`);
  assert.ok(existsSync(nodeCli), `${nodeCli}: run scripts/build.sh`);
});

test('size (text and --json) and check of every shared config agree', async () => {
  assert.ok(sharedConfigs.length >= 30, String(sharedConfigs.length));
  const cases = [];
  for (const f of sharedConfigs) {
    cases.push([['size', f]]);
    cases.push([['size', f, '--context', '32768', '--batch', '4', '--tp', '2', '--json']]);
    // A pool that holds the context and one that does not (exit 3).
    cases.push([['check', f, '--max-context', '32768', '--pool-tokens', '1000000']]);
    cases.push([['check', f, '--max-context', '131072', '--pool-tokens', '20000', '--json']]);
  }
  await same(cases);
});

test('every fixture config, sized or refused by name, agrees', async () => {
  const files = jsonFiles(fixtures);
  assert.ok(files.length >= 40, String(files.length));
  await same(files.map((f) => [['size', f, '--context', '4096', '--json']]));
});

test('table in every format, presets, gpus, architectures, engine logs and stdin agree', async () => {
  const [first, second] = sharedConfigs;
  const manifest = JSON.parse(readFileSync(join(logs, 'manifest.json'), 'utf8'));
  const entry = manifest.find((e) => e.engine === 'vllm' && e.config);
  const cases = [
    ...['md', 'html', 'csv', 'json'].map((f) => [['table', first, second, 'Qwen/Qwen2.5-7B-Instruct', '--format', f]]),
    [['table', ...sharedConfigs, '--contexts', '4096,1048576']],
    [['presets']], [['presets', '--json']], [['gpus']], [['gpus', '--json']],
    [['architectures']], [['architectures', '--json']],
    [['size', '-'], readFileSync(first, 'utf8')],
    [['check', 'Qwen/Qwen2.5-7B-Instruct', '--max-context', '1048576', '--pool-tokens', '681280']],
    [['check', 'Qwen/Qwen2.5-7B-Instruct', '--max-context', '32768', '--gpu', 'h100-80gb', '--json']],
  ];
  cases.push([['check', join(logs, entry.config), '--engine-log', join(logs, entry.file), '--json']]);
  await same(cases);
});

test('GGUF files (both byte orders, cut, on stdin) read the same', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kvcalc-node-cli-gguf-'));
  try {
    writeAll(dir);
    const ggufs = readdirSync(dir).filter((f) => f.endsWith('.gguf')).sort().map((f) => join(dir, f));
    assert.ok(ggufs.length >= 16, String(ggufs.length));
    const cut = join(dir, 'cut.gguf');
    writeFileSync(cut, readFileSync(join(dir, 'llama-3-8b-instruct.gguf')).subarray(0, 3000000));
    await same([
      ...ggufs.map((f) => [['size', f, '--context', '4096', '--json']]),
      [['size', cut, '--json']], [['size', cut]],
      [['table', ggufs[0], sharedConfigs[0], '--format', 'json']],
      [['size', '-', '--json'], readFileSync(join(dir, 'lfm2-1.2b.be.gguf'))],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('usage errors (exit 2) and bad input (exit 1) read the same', async () => {
  await same([
    [[]], [['bogus']], [['size']], [['size', 'a', 'b']], [['size', 'Qwen/Qwen3-8B', '--context']],
    [['size', 'Qwen/Qwen3-8B', '--nope', '1']], [['size', 'Qwen/Qwen3-8B', '--context', 'lots']],
    [['size', 'Qwen/Qwen3-8B', '--context', '0', '--json']], [['size', 'No/Such-Model']],
    [['size', '/no/such/file.json', '--json']], [['size', '-'], '{"num_hidden_layers": 2,'],
    [['size', '-', '--json'], '[1, 2]'], [['check', 'Qwen/Qwen3-8B', '--pool-tokens', '100']],
    [['size', 'Qwen/Qwen3-8B', '--kv-dtype', 'fp7']],
  ]);
});

test('--help prints the package\'s own commands, then the native usage (on stderr, as natively)', () => {
  const n = spawnSync(native, ['--help'], { encoding: 'utf8' });
  const w = spawnSync(process.execPath, [nodeCli, '--help'], { encoding: 'utf8' });
  assert.equal(w.status, n.status);
  assert.equal(w.stdout, n.stdout);
  assert.match(n.stderr, /^usage: kvcalc size CONFIG/);
  assert.ok(w.stderr.endsWith(n.stderr), 'the native usage, whole, last');
  assert.match(w.stderr, /^usage: kvcalc bake PATH\.\.\. \[--check\] \[--force\]\n/);
  assert.match(w.stderr, /\nusage: kvcalc svg CONFIG \[--chart context\|gqa\|check\]/);
  // Every command either CLI runs is in it: the native ones as cli/main.cpp dispatches them,
  // the package's own as web/node/cli.mjs does.
  const nativeCommands = [...readFileSync(join(repoRoot, 'cli/main.cpp'), 'utf8').matchAll(/cmd == "([a-z]+)"\) return run_/g)].map((m) => m[1]);
  const ownCommands = [...readFileSync(join(repoRoot, 'web/node/cli.mjs'), 'utf8').matchAll(/^ {2}([a-z]+): \{ usage: /gm)].map((m) => m[1]);
  assert.deepEqual(nativeCommands, ['size', 'presets', 'check', 'table', 'gpus', 'architectures']);
  assert.deepEqual(ownCommands, ['bake', 'svg']);
  for (const command of nativeCommands) assert.match(n.stderr, new RegExp(`^ *(usage: )?kvcalc ${command} `, 'm'), command);
  for (const command of [...nativeCommands, ...ownCommands]) assert.match(w.stderr, new RegExp(`^ *(usage: )?kvcalc ${command} `, 'm'), command);
  const b = spawnSync(process.execPath, [nodeCli, 'bake'], { encoding: 'utf8' });
  assert.equal(b.status, 2, 'bake without a PATH is a usage error');
  assert.match(b.stderr, /bake takes at least one PATH/);
});
