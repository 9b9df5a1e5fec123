// Shared by the JS API suites: the production dist/kvcalc.js, loaded in Node with the wasm
// bytes read from dist/ (ENVIRONMENT=web glue; TOOLCHAIN.md section 6), and the native CLI.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = join(root, 'dist');
export const sharedConfigs = join(root, '..', 'shared', 'configs');
export const cli = join(root, process.env.KVCALC_BUILD_DIR ?? 'build', 'kvcalc');

/** The module a page imports, from dist/ (import it after checking dist exists). */
export async function importDist() {
  if (!existsSync(join(dist, 'kvcalc.js'))) throw new Error('dist/kvcalc.js is missing: run scripts/build.sh');
  return import(join(dist, 'kvcalc.js'));
}

export async function loadDist() {
  const kvcalc = await importDist();
  return { kvcalc, kv: await kvcalc.load({ wasmBinary: readFileSync(join(dist, 'kvcalc_core.wasm')) }) };
}

/** Every shared config file, verbatim and reconstructed. */
export function configFiles() {
  const top = readdirSync(sharedConfigs).filter((f) => f.endsWith('.json')).map((f) => join(sharedConfigs, f));
  const rebuilt = join(sharedConfigs, 'reconstructed');
  const more = readdirSync(rebuilt).filter((f) => f.endsWith('.json')).map((f) => join(rebuilt, f));
  return [...top, ...more].sort();
}

/** `kvcalc size FILE --json ARGS...`: the parsed report, or the {"error"} object (exit 1). */
export const cliSize = (file, args = []) => cliJson(['size', file, '--json', ...args]);

/** `kvcalc ARGS...` printing JSON: parsed stdout, also on exit 1 (bad input) and 3 (check does not fit). */
export function cliJson(args) {
  try {
    return JSON.parse(execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch (e) {
    if ((e.status === 1 || e.status === 3) && e.stdout) return JSON.parse(e.stdout);
    throw e;
  }
}

/** `kvcalc ARGS...`: its stdout as text (exit 0). */
export const cliText = (args) => execFileSync(cli, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** snake_case keys to camelCase, deep: how the JS API presents the CLI's JSON. */
export function camelDeep(value) {
  if (Array.isArray(value)) return value.map(camelDeep);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase()), camelDeep(v)]));
}

/**
 * The wasm heap of an API object, through its private hook (not public API): the bytes the
 * allocator has handed out right now, and the size of the wasm memory.
 * @returns {{inUse: number, memoryBytes: number}}
 */
export const heapOf = (kv) => kv[Symbol.for('kvcalc.heap')]();

/**
 * Runs the `bad` calls 10,000 times in a row on the API object `kv` (each must throw
 * KvCalcError) and asserts the heap is flat: the bytes in use exactly as before, the wasm
 * memory not grown. The caller then checks a valid call.
 */
export function assertFlatAfterBadInputs(kv, bad) {
  for (const fn of bad) assert.throws(fn, { name: 'KvCalcError' });
  const before = heapOf(kv);
  for (let i = 0; i < 10_000; i++) assert.throws(bad[i % bad.length], { name: 'KvCalcError' });
  assert.deepEqual(heapOf(kv), before);
}
