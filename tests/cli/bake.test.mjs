// `npx kvcalc bake` and `kvcalc/bake` as an author meets them: the packed tarball installed
// into an empty folder (offline), a plain HTML page baked in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTarball } from '../packed.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-bake-'));
const app = join(scratch, 'app');
const env = { ...process.env, npm_config_update_notifier: 'false' };
after(() => rmSync(scratch, { recursive: true, force: true }));

before(() => {
  const tarball = runTarball(scratch);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', tarball, '--no-audit', '--no-fund', '--offline', '--loglevel=error'], { cwd: app, env });
});

const npx = (args) => spawnSync('npx', ['--offline', 'kvcalc', ...args], { cwd: app, encoding: 'utf8', env });
const text = (html) => html.replace(/<[^>]+>/g, '');

const PAGE = `<!doctype html>
<html lang="en">
<body>
<h1>Context</h1>
<kv-calc model="Qwen/Qwen2.5-7B-Instruct" context="32768"></kv-calc>
<kv-calc view="check" model="Qwen/Qwen2.5-7B-Instruct" max-context="1048576" pool-tokens="681280"></kv-calc>
<kv-calc view="table" models="Qwen/Qwen2.5-7B-Instruct, Qwen/Qwen3-8B" context="8K"><!-- fallback --></kv-calc>
<kv-calc model="Qwen/Qwen3-8B"><p>Written by the author.</p></kv-calc>
</body>
</html>
`;

test('npx kvcalc bake fills the empty elements with the core\'s figures, and a second bake changes nothing', () => {
  const page = join(app, 'page.html');
  writeFileSync(page, PAGE);
  const r = npx(['bake', 'page.html']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'kvcalc bake: 3 <kv-calc> in 1 file; 1 file changed\n');
  assert.match(r.stderr, /page\.html: 1 <kv-calc> with an author's content left as written/);
  const baked = readFileSync(page, 'utf8');
  const elements = [...baked.matchAll(/<kv-calc\b[^>]*>([\s\S]*?)<\/kv-calc>/g)].map((m) => m[1]);
  // 28 layers x 4 KV heads x 128 head size x 2 (K and V) x 2 B (bf16) = 57,344 B per token;
  // x 32,768 tokens = 1,879,048,192 B = 1.75 GiB.
  assert.equal(text(elements[0]).trim(), 'Qwen/Qwen2.5-7B-Instruct keeps 57,344 B of KV cache per token (bf16) and ' +
    '1.75 GiB (1,879,048,192 B) for one sequence of 32,768 tokens (resident accounting).');
  assert.match(elements[0], /<p class="fallback" data-kvcalc-baked="0\.1\.0">/);
  assert.match(elements[0], /<data value="57344">57,344 B<\/data>/);
  // The outage: 681,280 / 1,048,576 = 0.6497 -> 0.65x.
  assert.match(text(elements[1]), /^\s*Does not fit: one 1,048,576-token request needs more than the pool of 681,280 tokens \(max concurrency 0\.65x\)\. Safe max context: [0-9,]+ tokens\.\s*$/);
  // A real table: a row per model, a column per context (4K, 8K, 32K, 128K).
  assert.match(elements[2], /<table[\s>]/);
  assert.equal((elements[2].match(/<th scope="row">/g) || []).length, 2);
  assert.match(elements[2], /<th scope="col">8K tokens<\/th>/);
  // 36 layers x 8 x 128 x 2 x 2 = 147,456 B = 144 KiB per token for Qwen3-8B.
  assert.match(elements[2], /<th scope="row">Qwen\/Qwen3-8B<\/th>.*<td>144 KiB<\/td>/);
  assert.equal(elements[3], '<p>Written by the author.</p>');

  const again = npx(['bake', '.']);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout, 'kvcalc bake: 3 <kv-calc> in 1 file; 0 files changed\n');
  assert.equal(readFileSync(page, 'utf8'), baked, 'byte for byte');
  const check = npx(['bake', '--check', 'page.html']);
  assert.equal(check.status, 0, check.stderr);

  // An attribute changed after the bake: --check names the page and exits 1, changing nothing.
  const stale = baked.replace('context="32768"', 'context="65536"');
  writeFileSync(page, stale);
  const c = npx(['bake', '--check', 'page.html']);
  assert.equal(c.status, 1);
  assert.match(c.stderr, /page\.html: baked figures missing or stale/);
  assert.equal(readFileSync(page, 'utf8'), stale);

  // --force replaces what the author wrote too.
  const f = npx(['bake', '--force', 'page.html']);
  assert.equal(f.status, 0, f.stderr);
  const forced = readFileSync(page, 'utf8');
  assert.ok(!forced.includes('Written by the author.'));
  assert.match(forced, /for one sequence of 65,536 tokens/);
});

test('a bad attribute: the file, the line and the attribute named; that file left as it was, the others baked', () => {
  const dir = join(app, 'site');
  mkdirSync(dir, { recursive: true });
  const bad = '<html>\n<body>\n<kv-calc model="Qwen/Qwen3-8B"></kv-calc>\n\n<kv-calc context="lots"></kv-calc>\n</body></html>\n';
  writeFileSync(join(dir, 'bad.html'), bad);
  writeFileSync(join(dir, 'good.html'), '<kv-calc kv-dtype="fp8" model="Qwen/Qwen3-8B" context="4K"></kv-calc>\n');
  writeFileSync(join(dir, 'unknown.html'), '<p>\n<kv-calc model="No/Such-Model"></kv-calc>\n');
  const r = npx(['bake', 'site']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /site\/bad\.html:5: <kv-calc> context: expected a whole number of tokens \(or 4K, 128K, 1M\), got "lots"/);
  assert.match(r.stderr, /site\/unknown\.html:2: <kv-calc> model: "No\/Such-Model" is neither config JSON nor a bundled preset id/);
  assert.equal(readFileSync(join(dir, 'bad.html'), 'utf8'), bad);
  // 36 x 8 x 128 x 2 x 1 B (fp8) = 73,728 B per token.
  assert.match(readFileSync(join(dir, 'good.html'), 'utf8'), /keeps <data value="73728">73,728 B<\/data> of KV cache per token \(fp8/);
  assert.deepEqual(readdirSync(dir).sort(), ['bad.html', 'good.html', 'unknown.html'], 'no temporary file left');
});

test('kvcalc/bake: bake() and fallbackHtml() for build plugins, from the installed package', () => {
  writeFileSync(join(app, 'api.mjs'), `
import { bake, fallbackHtml } from 'kvcalc/bake';
const inline = '{"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "hidden_size": 256}';
const r = await bake('<kv-calc context="4K"><script type="application/json">' + inline + '</script></kv-calc>', { file: 'x.html' });
const gqa = await fallbackHtml({ view: 'gqa', model: 'Qwen/Qwen2.5-7B-Instruct' });
let error;
try { await bake('\\n\\n<kv-calc tp="two"></kv-calc>', { file: 'docs/x.html' }); } catch (e) { error = { message: e.message, line: e.line, attribute: e.attribute, file: e.file }; }
console.log(JSON.stringify({ r, gqa, error }));
`);
  const out = JSON.parse(execFileSync(process.execPath, ['api.mjs'], { cwd: app, encoding: 'utf8' }));
  assert.equal(out.r.count, 1);
  assert.equal(out.r.changed, true);
  assert.match(out.r.html, /^<kv-calc context="4K">\n<script type="application\/json">/, 'the inline config stays');
  // 2 layers x 2 KV heads x (256 / 4 = 64) x 2 x 2 B = 1,024 B per token; x 4,096 = 4 MiB.
  assert.match(out.r.html, /keeps <data value="1024">1,024 B<\/data> of KV cache per token \(bf16\) and <data value="4194304">4 MiB \(4,194,304 B\)<\/data>/);
  assert.equal(out.gqa, '<p class="fallback" data-kvcalc-baked="0.1.0">Qwen/Qwen2.5-7B-Instruct has 28 query heads on 4 KV heads: <data value="57344">57,344 B</data> per token.</p>');
  assert.deepEqual(out.error, { message: 'docs/x.html:3: <kv-calc> tp: expected a whole number, got "two"', line: 3, attribute: 'tp', file: 'docs/x.html' });
});

test('kvcalc/bake bakeSite() and kvcalc/docusaurus postBuild: every page of a built site, node_modules and dot folders skipped', () => {
  const site = join(app, 'built');
  for (const d of ['guide', 'node_modules/x', '.cache']) mkdirSync(join(site, d), { recursive: true });
  const empty = '<kv-calc model="Qwen/Qwen3-8B" context="4K"></kv-calc>\n';
  for (const f of ['index.html', 'guide/page.html', 'node_modules/x/a.html', '.cache/b.html']) writeFileSync(join(site, f), empty);
  writeFileSync(join(site, 'guide/plain.html'), '<p>No element.</p>\n');
  writeFileSync(join(app, 'site.mjs'), `
import { bakeSite } from 'kvcalc/bake';
import docusaurus from 'kvcalc/docusaurus';
const first = await bakeSite(process.argv[2]);
const plugin = docusaurus({}, {});
await plugin.postBuild({ outDir: process.argv[2] });
const second = await bakeSite(process.argv[2]);
let error;
try { await bakeSite(process.argv[3]); } catch (e) { error = e.message; }
console.log(JSON.stringify({ first, name: plugin.name, second, error }));
`);
  const bad = join(app, 'bad-site');
  mkdirSync(bad);
  const badPage = '<kv-calc batch="0"></kv-calc>\n';
  writeFileSync(join(bad, 'index.html'), badPage);
  const out = JSON.parse(execFileSync(process.execPath, ['site.mjs', site, bad], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(out.first, { files: 3, changed: 2, count: 2 });
  assert.equal(out.name, 'kvcalc');
  // The plugin's bake and the second one changed nothing: baked once.
  assert.deepEqual(out.second, { files: 3, changed: 0, count: 2 });
  // 36 layers x 8 KV heads x 128 x 2 x 2 B = 147,456 B per token.
  for (const f of ['index.html', 'guide/page.html']) assert.match(readFileSync(join(site, f), 'utf8'), /keeps <data value="147456">147,456 B<\/data>/);
  for (const f of ['node_modules/x/a.html', '.cache/b.html']) assert.equal(readFileSync(join(site, f), 'utf8'), empty);
  assert.match(out.error, /bad-site\/index\.html:1: <kv-calc> batch: /);
  assert.equal(readFileSync(join(bad, 'index.html'), 'utf8'), badPage);
});

test('npx kvcalc bake --reserve from the tarball without playwright-core: an error saying what to install, the page left as baked', () => {
  const page = join(app, 'reserve.html');
  writeFileSync(page, PAGE);
  const r = npx(['bake', 'reserve.html', '--reserve']);
  assert.equal(r.status, 1);
  // The bake itself is done; the measuring needs a browser the package does not bring.
  assert.match(r.stdout, /^kvcalc bake: 3 <kv-calc> in 1 file; 1 file changed\n/);
  assert.match(r.stderr, /kvcalc bake --reserve: reserve\.html: (playwright-core is not installed here|no Chromium at \/usr\/bin\/chromium)/);
  const baked = readFileSync(page, 'utf8');
  assert.match(baked, /data-kvcalc-baked="0\.1\.0"/);
  assert.doesNotMatch(baked, /data-kvcalc-box|kvcalc-reserve/);
  assert.deepEqual(readdirSync(app).filter((f) => f.includes('kvcalc-reserve')), []);
  const bad = npx(['bake', 'reserve.html', '--check', '--reserve']);
  assert.equal(bad.status, 2);
});
