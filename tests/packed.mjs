// `npm pack` of the repository, as the tests that install the package run it. scripts/test.sh
// packs once, after the build, and names the tarball in KVCALC_TARBALL: every test file of the
// run installs that one (runTarball); a file run alone packs its own. The pack swaps the
// repository's README.md for the package's for its duration (scripts/pack-readme.mjs), so two
// packs at once (test files run concurrently) would save each other's swapped README: one pack
// (or one npm install into the examples' workspace) at a time, serialised by a lock folder
// (mkdir is atomic) beside the build.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LOCK = join(ROOT, 'build/pack.lock');
// A pack takes about two seconds; a lock older than this was left by a killed run.
const STALE_MS = 5 * 60 * 1000;

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function lock() {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_MS) rmdirSync(LOCK);
      } catch { /* released meanwhile */ }
      sleep(100);
    }
  }
}

// Runs fn while no other pack runs (for a test that reads the repository's README around a pack).
export function locked(fn) {
  lock();
  try {
    return fn();
  } finally {
    rmdirSync(LOCK);
  }
}

// Packs into dest (the caller holds the lock); returns npm's description of the tarball
// ({ filename, files, ... }) with its path.
export function packUnlocked(dest) {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  }));
  return { ...packed, path: join(dest, packed.filename) };
}

export const pack = (dest) => locked(() => packUnlocked(dest));

// The tarball the tests install: the run's (KVCALC_TARBALL, packed by scripts/test.sh after
// the build), or, for a test file run alone, one packed into dest.
export function runTarball(dest) {
  const given = process.env.KVCALC_TARBALL;
  if (!given) return pack(dest).path;
  if (!existsSync(given)) throw new Error(`KVCALC_TARBALL=${given}: no such file`);
  return given;
}
