// The npm package: `npm pack` holds only what a user needs (dist/, package.json, the
// package's README, LICENSE), and the packed tarball, installed into an empty folder, sizes a model.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { after, test } from 'node:test';
import { locked, packUnlocked } from '../packed.mjs';
import { dist, root } from './support.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-pack-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

// The repository's README before and after the pack, read while no other pack can swap it.
const readme = () => readFileSync(join(root, 'README.md'), 'utf8');
const { contributorsReadme, packed, readmeAfter, leftBehind } = locked(() => {
  const before = readme();
  const packed = packUnlocked(scratch);
  return { contributorsReadme: before, packed, readmeAfter: readme(), leftBehind: existsSync(join(root, 'build/pack/README.md')) };
});

test('the tarball\'s README is the package\'s (web/README.md), its LICENSE is MIT; the repository\'s README is left as it was', () => {
  const files = packed.files.map((f) => f.path);
  assert.ok(files.includes('README.md') && files.includes('LICENSE'), files.join(' '));
  const out = join(scratch, 'unpacked');
  mkdirSync(out);
  execFileSync('tar', ['-xzf', join(scratch, packed.filename), '-C', out]);
  const readme = readFileSync(join(out, 'package/README.md'), 'utf8');
  assert.equal(readme, readFileSync(join(root, 'web/README.md'), 'utf8'));
  // What an npm user needs: the install, the import, the script tag, bundlers, Node, the attributes.
  for (const needed of ['npm install kvcalc', "import 'kvcalc';", '<script type="module" src="/kvcalc/kvcalc.js"></script>',
    "optimizeDeps: { exclude: ['kvcalc'] }", 'isCustomElement', 'load({ wasmBinary: readFileSync(wasmUrl) })', '| `kv-dtype` |', '| `theme` |']) {
    assert.ok(readme.includes(needed), needed);
  }
  const license = readFileSync(join(out, 'package/LICENSE'), 'utf8');
  assert.match(license, /^MIT License\n/);
  assert.equal(JSON.parse(readFileSync(join(out, 'package/package.json'), 'utf8')).license, 'MIT');
  assert.equal(readmeAfter, contributorsReadme);
  assert.ok(!leftBehind, 'nothing left behind');
});

test('the pack holds dist/ (every file the build put there), package.json, README and LICENSE only', () => {
  const files = packed.files.map((f) => f.path).sort();
  const extra = files.filter((f) => !f.startsWith('dist/') && !/^(package\.json|README(\.md)?|LICENSE(\.md|\.txt)?)$/i.test(f));
  assert.deepEqual(extra, []);
  const built = readdirSync(dist, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath ?? e.path, e.name)).split(sep).join('/')).sort();
  assert.deepEqual(files.filter((f) => f.startsWith('dist/')), built);
  // The module a page imports, what it loads lazily (the API's calls with the glue, the
  // element's code, the views, the paste panel, the Hub panel, llama.cpp's view), the one wasm module a page loads, the types;
  // and what runs in Node only: the `kvcalc` command (cli.mjs, with the native CLI's code
  // compiled for Node in kvcalc_cli.cjs), the baker (bake.mjs), the Vite and Docusaurus plugins (vite.mjs,
  // docusaurus.mjs). Nothing else.
  assert.deepEqual(built, ['dist/api-calls.js', 'dist/bake.d.ts', 'dist/bake.mjs', 'dist/check-view.js', 'dist/cli.mjs', 'dist/config-input.js',
    'dist/docusaurus.d.ts', 'dist/docusaurus.mjs', 'dist/formula-view.js', 'dist/gguf-read.js', 'dist/gqa-view.js', 'dist/hub-panel.js', 'dist/kvcalc.css', 'dist/kvcalc.d.ts', 'dist/kvcalc.js',
    'dist/kvcalc_cli.cjs', 'dist/kvcalc_core.wasm', 'dist/live.js', 'dist/llamacpp-view.js', 'dist/styles.js', 'dist/svg.js', 'dist/table-view.js', 'dist/vite.d.ts', 'dist/vite.mjs']);
  const manifestBin = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin;
  assert.deepEqual(manifestBin, { kvcalc: './dist/cli.mjs' });
  // No dependencies to install with it.
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  assert.equal(manifest.dependencies, undefined);
});

test('installed from the tarball into an empty folder, the package sizes a model', () => {
  const app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', join(scratch, packed.filename), '--no-audit', '--no-fund', '--offline', '--loglevel=error'], app);
  writeFileSync(join(app, 'size.mjs'), [
    "import { readFileSync } from 'node:fs';",
    "import { load, wasmUrl } from 'kvcalc';",
    'const kv = await load({ wasmBinary: readFileSync(wasmUrl) });',
    "const r = kv.size('Qwen/Qwen3-8B', { context: 4096, kvDtype: 'fp8' });",
    "const c = kv.check('Qwen/Qwen3-8B', { maxContext: 1048576, poolTokens: 681280 });",
    'console.log(JSON.stringify({ bytesPerToken: r.bytesPerToken, kvBytes: r.kvBytes, fits: c.fits, url: wasmUrl.href }));',
  ].join('\n'));
  const out = JSON.parse(execFileSync(process.execPath, ['size.mjs'], { cwd: app, encoding: 'utf8' }));
  // Qwen3-8B: 36 layers x 2 x 8 KV heads x 128 x 1 B (fp8) = 73,728 B per token; x 4096 = 301,989,888 B.
  // 1,048,576 advertised tokens on a 681,280-token pool do not fit.
  assert.deepEqual({ bytesPerToken: out.bytesPerToken, kvBytes: out.kvBytes, fits: out.fits },
    { bytesPerToken: 73_728, kvBytes: 301_989_888, fits: false });
  // It ran the installed copy, not the repository's.
  assert.ok(out.url.startsWith(`file://${join(app, 'node_modules', 'kvcalc', 'dist')}/`), out.url);
});
