// The bad-input corpus through the CLI: each input gives its structured error (exit 1,
// the code and field in the --json error object) or its exact answer, never a crash or a hang.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cases } from './cases.mjs';
import { repoRoot } from '../expected/expected.mjs';

const kvcalc = process.env.KVCALC || join(repoRoot, process.env.KVCALC_BUILD_DIR || 'build', 'kvcalc');
const flag = (k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export function cliArgs(c) {
  const args = ['size', '-', '--json'];
  const o = { ...c.options };
  if (!o.noContext && o.context === undefined) o.context = '4096';
  delete o.noContext;
  for (const [k, v] of Object.entries(o)) args.push(flag(k), String(v));
  return args;
}

test(`the corpus has at least 200 distinct inputs (${cases.length})`, () => {
  assert.ok(cases.length >= 200);
  assert.equal(new Set(cases.map((c) => (c.gguf ? `gguf:${c.input.toString('hex')}` : String(c.input)) + JSON.stringify(c.options))).size,
    cases.length);
});

test('every bad input through the CLI', () => {
  for (const c of cases) {
    const r = spawnSync(kvcalc, cliArgs(c), { input: c.input, timeout: 20000, maxBuffer: 64 << 20 });
    assert.equal(r.signal, null, `${c.name}: killed by ${r.signal}`);
    const out = JSON.parse(r.stdout.toString());
    if (c.expect.ok) {
      assert.equal(r.status, 0, `${c.name}: ${r.stderr}`);
      assert.equal(out.bytes_per_token, c.expect.bytesPerToken, c.name);
      const fields = out.warnings.map((w) => w.field);
      if (c.expect.warningField) assert.ok(fields.includes(c.expect.warningField), `${c.name}: warnings ${fields}`);
      else assert.deepEqual(fields, [], `${c.name}: unexpected warnings`);
    } else {
      assert.equal(r.status, 1, `${c.name}: exit ${r.status}, ${r.stdout}`);
      assert.equal(out.error.code, c.expect.code, `${c.name}: ${out.error.message}`);
      if (c.expect.field !== undefined) assert.equal(out.error.field, c.expect.field, `${c.name}: ${out.error.message}`);
      assert.ok(out.error.message.length > 0);
      // stderr carries the same message for people
      assert.equal(r.stderr.toString().split('\n')[0], `kvcalc: ${out.error.message}`, c.name);
      if (c.expect.code === 'malformed_json' && c.expect.field === undefined) {
        assert.ok(out.error.line >= 1 || /nesting deeper/.test(out.error.message), `${c.name}: no line: ${out.error.message}`);
      }
    }
  }
});
