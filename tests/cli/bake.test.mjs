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
// What an element holds after the bake: its first render (a declarative shadow root) and,
// after it, its figures in words.
const parts = (content) => {
  const m = /^\s*<template shadowrootmode="open">([\s\S]*?)<\/template>\n([\s\S]*)$/.exec(content);
  assert.ok(m, `a baked render first: ${content.slice(0, 200)}`);
  return { render: m[1], words: m[2] };
};

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
  const found = [...baked.matchAll(/<kv-calc\b[^>]*>([\s\S]*?)<\/kv-calc>/g)].map((m) => m[1]);
  const elements = found.slice(0, 3).map((e) => parts(e).words);
  // The first render links the element's style sheet, written beside the page (the page
  // loads no kvcalc.js beside which it would be), and shows the same figures.
  const render = parts(found[0]).render;
  assert.match(render, /^<link rel="stylesheet" href="kvcalc\.css"><div class="kv" part="base" data-kvcalc-baked="0\.1\.0">/);
  assert.match(render, /<dt>Bytes per token<\/dt><dd><strong>57,344 B<\/strong><\/dd>/);
  assert.equal(readFileSync(join(app, 'kvcalc.css'), 'utf8'), readFileSync(join(app, 'node_modules/kvcalc/dist/kvcalc.css'), 'utf8'));
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
  assert.equal(found[3], '<p>Written by the author.</p>');

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
  assert.match(r.stderr, /site\/unknown\.html:2: <kv-calc> model: "No\/Such-Model" is not a bundled preset id \(npx kvcalc presets lists them; a config of your own goes in a <script type="application\/json"> inside the element\)\n/);
  assert.equal(readFileSync(join(dir, 'bad.html'), 'utf8'), bad);
  // 36 x 8 x 128 x 2 x 1 B (fp8) = 73,728 B per token.
  assert.match(readFileSync(join(dir, 'good.html'), 'utf8'), /keeps <data value="73728">73,728 B<\/data> of KV cache per token \(fp8/);
  // No temporary file left; the style sheet of good.html's baked element at the folder's root.
  assert.deepEqual(readdirSync(dir).sort(), ['bad.html', 'good.html', 'kvcalc.css', 'unknown.html']);
});

test('kvcalc/bake: bake() and fallbackHtml() for build plugins, from the installed package', () => {
  writeFileSync(join(app, 'api.mjs'), `
import { bake, fallbackHtml } from 'kvcalc/bake';
const inline = '{"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "hidden_size": 256}';
const r = await bake('<kv-calc context="4K"><script type="application/json">' + inline + '</script></kv-calc>', { file: 'x.html', stylesheet: '/kvcalc.css' });
const gqa = await fallbackHtml({ view: 'gqa', model: 'Qwen/Qwen2.5-7B-Instruct' });
let error;
try { await bake('\\n\\n<kv-calc tp="two"></kv-calc>', { file: 'docs/x.html', stylesheet: '/kvcalc.css' }); } catch (e) { error = { message: e.message, line: e.line, attribute: e.attribute, file: e.file }; }
let nowhere;
try { await bake('<kv-calc></kv-calc>', { file: 'y.html' }); } catch (e) { nowhere = e.message; }
console.log(JSON.stringify({ r, gqa, error, nowhere }));
`);
  const out = JSON.parse(execFileSync(process.execPath, ['api.mjs'], { cwd: app, encoding: 'utf8' }));
  assert.equal(out.r.count, 1);
  assert.equal(out.r.changed, true);
  assert.match(out.r.html, /^<kv-calc context="4K">\n<script type="application\/json">.*<\/script>\n<template shadowrootmode="open"><link rel="stylesheet" href="\/kvcalc\.css">/, 'the inline config stays');
  assert.deepEqual(out.r.stylesheet, { href: '/kvcalc.css', rootCopy: false });
  // 2 layers x 2 KV heads x (256 / 4 = 64) x 2 x 2 B = 1,024 B per token; x 4,096 = 4 MiB.
  assert.match(out.r.html, /keeps <data value="1024">1,024 B<\/data> of KV cache per token \(bf16\) and <data value="4194304">4 MiB \(4,194,304 B\)<\/data>/);
  assert.equal(out.gqa, '<p class="fallback" data-kvcalc-baked="0.1.0">Qwen/Qwen2.5-7B-Instruct has 28 query heads on 4 KV heads: <data value="57344">57,344 B</data> per token.</p>');
  assert.deepEqual(out.error, { message: 'docs/x.html:3: <kv-calc> tp: expected a whole number, got "two"', line: 3, attribute: 'tp', file: 'docs/x.html' });
  // A page alone, with no kvcalc.js script, no folder and no stylesheet: bake says what it needs.
  assert.match(out.nowhere, /^y\.html: nothing says where kvcalc\.css is .*\{ root \}\) or \{ stylesheet: href \}\)$/);
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
  assert.deepEqual(out.first, { files: 3, changed: 2, count: 2, warnings: [] });
  assert.equal(out.name, 'kvcalc');
  // The plugin's bake and the second one changed nothing: baked once.
  assert.deepEqual(out.second, { files: 3, changed: 0, count: 2, warnings: [] });
  // 36 layers x 8 KV heads x 128 x 2 x 2 B = 147,456 B per token.
  for (const f of ['index.html', 'guide/page.html']) assert.match(readFileSync(join(site, f), 'utf8'), /keeps <data value="147456">147,456 B<\/data>/);
  for (const f of ['node_modules/x/a.html', '.cache/b.html']) assert.equal(readFileSync(join(site, f), 'utf8'), empty);
  assert.match(out.error, /bad-site\/index\.html:1: <kv-calc> batch: /);
  assert.equal(readFileSync(join(bad, 'index.html'), 'utf8'), badPage);
});

test('npx kvcalc bake --reserve: no longer needed, said so; the page baked, nothing measured', () => {
  const page = join(app, 'reserve.html');
  writeFileSync(page, PAGE);
  const r = npx(['bake', 'reserve.html', '--reserve']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'kvcalc bake: 3 <kv-calc> in 1 file; 1 file changed\n' +
    'kvcalc bake --reserve: no longer needed, nothing measured: a baked element has its live layout from the first paint\n');
  const baked = readFileSync(page, 'utf8');
  assert.match(baked, /data-kvcalc-baked="0\.1\.0"/);
  assert.doesNotMatch(baked, /data-kvcalc-box|kvcalc-reserve/);
  assert.deepEqual(readdirSync(app).filter((f) => f.includes('kvcalc-reserve')), []);
  const bad = npx(['bake', 'reserve.html', '--check', '--reserve']);
  assert.equal(bad.status, 2);
});

// A page that says `<kv-calc` where no element is: Rspress copies the page's source into
// <meta name="description">, a framework's data script carries it as a string (here with a
// bad attribute, which must not fail the page), a comment keeps an old one, a code block shows
// one as text, a <textarea> holds one; and one real element.
const MENTIONS = `<!doctype html>
<html lang="en">
<head>
<meta name="description" content="The KV cache: <kv-calc model=&quot;Qwen/Qwen2.5-7B-Instruct&quot; context=&quot;32768&quot;></kv-calc>">
<title>Mentions</title>
<script>self.__page = ["<kv-calc context=\\"lots\\"></kv-calc>"];</script>
</head>
<body>
<!-- <kv-calc model="Qwen/Qwen3-8B"></kv-calc> -->
<pre><code>&lt;kv-calc model="Qwen/Qwen3-8B"&gt;&lt;/kv-calc&gt;</code></pre>
<textarea><kv-calc tp="two"></kv-calc></textarea>
<kv-calc model="Qwen/Qwen3-8B" context="4K"></kv-calc>
<p>After.</p>
</body>
</html>
`;

test('only real elements are baked: <kv-calc in an attribute, a script\'s string, a comment, a code block or a <textarea> is left byte for byte', () => {
  const page = join(app, 'mentions.html');
  writeFileSync(page, MENTIONS);
  const r = npx(['bake', 'mentions.html']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'kvcalc bake: 1 <kv-calc> in 1 file; 1 file changed\n');
  assert.equal(r.stderr, '');
  const baked = readFileSync(page, 'utf8');
  // The one element's content is all that changed: 36 layers x 8 KV heads x 128 x 2 x 2 B =
  // 147,456 B per token for Qwen3-8B; x 4,096 tokens = 576 MiB.
  const open = '<kv-calc model="Qwen/Qwen3-8B" context="4K">';
  const at = MENTIONS.indexOf(`${open}</kv-calc>`) + open.length;
  assert.equal(baked.slice(0, at), MENTIONS.slice(0, at));
  assert.ok(baked.endsWith(MENTIONS.slice(at)));
  assert.equal(text(parts(baked.slice(at, baked.length - MENTIONS.length + at)).words).trim(),
    'Qwen/Qwen3-8B keeps 147,456 B of KV cache per token (bf16) and 576 MiB (603,979,776 B) for one sequence of 4,096 tokens (resident accounting).');
  // The one element's render and its words.
  assert.equal(baked.match(/data-kvcalc-baked=/g).length, 2);
  // Again, and --force (which once failed on an attribute's copy): nothing more to change.
  for (const args of [['bake', 'mentions.html'], ['bake', '--force', 'mentions.html'], ['bake', '--check', 'mentions.html']]) {
    const again = npx(args);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(page, 'utf8'), baked);
  }
});

test('a page that mentions <kv-calc but has no element says where, and --check fails on it; --force leaves it as it is', () => {
  const dir = join(app, 'rspress');
  mkdirSync(dir, { recursive: true });
  const page = MENTIONS.replace('<kv-calc model="Qwen/Qwen3-8B" context="4K"></kv-calc>\n', '');
  writeFileSync(join(dir, 'index.html'), page);
  const message = 'kvcalc bake: rspress/index.html mentions <kv-calc in a <meta> content attribute (line 4), a <script> (line 6), ' +
    'a comment (line 9), a code block (line 10) and a <textarea> (line 11), but has no <kv-calc> element: its generator did not ' +
    'write the element into the HTML (with React or MDX, write it as the package README says)\n';
  const nothing = 'kvcalc bake: no <kv-calc> element in the 1 HTML file of rspress: nothing baked (where they mention <kv-calc: see above)\n';
  const r = npx(['bake', 'rspress']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'kvcalc bake: nothing baked: 0 <kv-calc> in 1 file\n');
  assert.equal(r.stderr, message + nothing);
  const c = npx(['bake', '--check', 'rspress']);
  assert.equal(c.status, 1);
  assert.equal(c.stdout, 'kvcalc bake --check: 0 <kv-calc> in 1 file; 0 files stale, 1 file with no element\n');
  assert.equal(c.stderr, message + nothing);
  const f = npx(['bake', '--force', 'rspress']);
  assert.equal(f.status, 0, f.stderr);
  assert.equal(readFileSync(join(dir, 'index.html'), 'utf8'), page);

  // Beside a page with an element, a page that shows the element only as text (an example in
  // a code block) is told, and is no failure.
  writeFileSync(join(dir, 'index.html'), '<kv-calc model="Qwen/Qwen3-8B"></kv-calc>\n');
  writeFileSync(join(dir, 'usage.html'), '<p>Write:</p>\n<pre><code>&lt;kv-calc model="Qwen/Qwen3-8B"&gt;&lt;/kv-calc&gt;</code></pre>\n');
  assert.equal(npx(['bake', 'rspress']).status, 0);
  const shown = npx(['bake', '--check', 'rspress']);
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal(shown.stderr, 'kvcalc bake: rspress/usage.html mentions <kv-calc in a code block (line 2), but has no <kv-calc> element: ' +
    'shown as text (an example of the element?), there is nothing to bake\n');
});

test('a folder where no element is: said, with the reason, and --check fails', () => {
  const dir = join(app, 'not-built');
  mkdirSync(join(dir, 'empty'), { recursive: true });
  writeFileSync(join(dir, 'a.html'), '<p>No element.</p>\n');
  writeFileSync(join(dir, 'b.html'), '<p>Nor here.</p>\n');
  const r = npx(['bake', 'not-built']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'kvcalc bake: nothing baked: 0 <kv-calc> in 2 files\n');
  assert.equal(r.stderr, 'kvcalc bake: no <kv-calc> element in the 2 HTML files of not-built: nothing baked ' +
    '(none of them mentions <kv-calc: is it the folder the site was built into?)\n');
  const c = npx(['bake', '--check', 'not-built']);
  assert.equal(c.status, 1);
  assert.equal(c.stdout, 'kvcalc bake --check: 0 <kv-calc> in 2 files; 0 files stale\n');
  const empty = npx(['bake', '--check', 'not-built/empty']);
  assert.equal(empty.status, 1);
  assert.equal(empty.stderr, 'kvcalc bake: no HTML file in not-built/empty: nothing baked (is it the folder the site was built into?)\n');
});

// CommonMark wraps an element written on a line of its own, or inside a line of text, in a
// <p>; the block of its fallback then closes that paragraph, and the element with it.
const IN_PARAGRAPH = `<h1>In a paragraph</h1>
<p><kv-calc model="Qwen/Qwen3-8B" context="4K"></kv-calc></p>
<p>The table:
<kv-calc view="table" models="Qwen/Qwen3-8B"></kv-calc></p>
<div>
<kv-calc model="Qwen/Qwen3-8B"></kv-calc>
</div>
<p>Written: <kv-calc model="Qwen/Qwen3-8B"><p>By the author.</p></kv-calc></p>
`;

test('an element inside a <p>: baked, with a warning naming the file, the line and the <div> to put it in; baked again in place, and with --force', () => {
  const page = join(app, 'paragraph.html');
  writeFileSync(page, IN_PARAGRAPH);
  const r = npx(['bake', 'paragraph.html']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'kvcalc bake: 3 <kv-calc> in 1 file; 1 file changed\n');
  const after = 'a browser shows what follows it after the element, where it stays once the element is live (the figures twice). ' +
    'Put the element in a <div>, with a blank line before and after (Markdown then passes it through as HTML instead of wrapping it in a paragraph)\n';
  // The formula's fallback is a <p>, the table's a <div>; the element in a <div> is not warned
  // about. The lines are the page's as it was given.
  assert.equal(r.stderr,
    `kvcalc bake: warning: paragraph.html:2: <kv-calc> is inside a <p> (line 2), which the <p> of its baked fallback closes, and the element with it: ${after}` +
    `kvcalc bake: warning: paragraph.html:4: <kv-calc> is inside a <p> (line 3), which the <div> of its baked fallback closes, and the element with it: ${after}` +
    `kvcalc bake: warning: paragraph.html:8: <kv-calc> is inside a <p> (line 8), which the <p> in it (line 8) closes, and the element with it: ${after}` +
    'kvcalc bake: paragraph.html: 1 <kv-calc> with an author\'s content left as written (--force replaces it)\n');
  const baked = readFileSync(page, 'utf8');
  // Each of the three: its render and its words.
  assert.equal(baked.match(/data-kvcalc-baked=/g).length, 6);
  // What bake wrote is found again where the browser would have moved it: a second bake and
  // a forced one change nothing.
  const again = npx(['bake', 'paragraph.html']);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.stdout, 'kvcalc bake: 3 <kv-calc> in 1 file; 0 files changed\n');
  // Warned again, at the lines of the baked page (each element's render is a line of its
  // own, before its words; the table's words are 12 lines long).
  assert.deepEqual(again.stderr.match(/paragraph\.html:\d+: <kv-calc> is inside a <p> \(line \d+\)/g),
    ['paragraph.html:2: <kv-calc> is inside a <p> (line 2)', 'paragraph.html:7: <kv-calc> is inside a <p> (line 6)',
      'paragraph.html:27: <kv-calc> is inside a <p> (line 27)']);
  assert.equal(readFileSync(page, 'utf8'), baked);
  const forced = npx(['bake', '--force', 'paragraph.html']);
  assert.equal(forced.status, 0, forced.stderr);
  assert.equal(forced.stdout, 'kvcalc bake: 4 <kv-calc> in 1 file; 1 file changed\n');
  assert.equal(readFileSync(page, 'utf8').replace(/<kv-calc model="Qwen\/Qwen3-8B">\n<template [^\n]*\n<p class="fallback"[^\n]*\n<\/kv-calc><\/p>\n$/, ''),
    baked.replace(/<kv-calc model="Qwen\/Qwen3-8B"><p>By the author\.<\/p><\/kv-calc><\/p>\n$/, ''));
});

test('an element with no end tag, or inside another: the file, the line and why; that file left as it was', () => {
  const dir = join(app, 'broken');
  mkdirSync(dir, { recursive: true });
  const open = '<p>x</p>\n<kv-calc model="Qwen/Qwen3-8B">\n<p>y</p>\n';
  const nested = '<kv-calc model="Qwen/Qwen3-8B">\n<kv-calc></kv-calc>\n</kv-calc>\n';
  writeFileSync(join(dir, 'open.html'), open);
  writeFileSync(join(dir, 'nested.html'), nested);
  const r = npx(['bake', 'broken']);
  assert.equal(r.status, 1);
  assert.equal(r.stderr, 'kvcalc bake: broken/nested.html:2: <kv-calc> inside the <kv-calc> of line 1: an element\'s fallback cannot hold another element\n' +
    'kvcalc bake: broken/open.html:2: <kv-calc> has no </kv-calc> end tag: a browser puts the rest of the page inside it\n');
  assert.equal(readFileSync(join(dir, 'open.html'), 'utf8'), open);
  assert.equal(readFileSync(join(dir, 'nested.html'), 'utf8'), nested);
});

test('kvcalc/bake: bake() tells the elements found and the mentions; bakeSite() returns and prints the warnings', () => {
  const site = join(app, 'warned');
  mkdirSync(site, { recursive: true });
  writeFileSync(join(site, 'index.html'), IN_PARAGRAPH);
  writeFileSync(join(app, 'warned.mjs'), `
import { bake, bakeSite } from 'kvcalc/bake';
const page = await bake(${JSON.stringify(MENTIONS.replace(/<kv-calc model="Qwen\/Qwen3-8B" context="4K"><\/kv-calc>\n/, ''))}, { file: 'm.html' });
const site = await bakeSite(process.argv[2]);
console.log(JSON.stringify({ page: { ...page, html: undefined }, site }));
`);
  const r = spawnSync(process.execPath, ['warned.mjs', site], { cwd: app, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.page, { changed: false, count: 0, skipped: 0, elements: 0, warnings: [], stylesheet: null, mentions: [
    { where: 'a <meta> content attribute', many: '<meta> content attributes', line: 4, shown: false },
    { where: 'a <script>', many: '<script>s', line: 6, shown: false },
    { where: 'a comment', many: 'comments', line: 9, shown: false },
    { where: 'a code block', many: 'code blocks', line: 10, shown: true },
    { where: 'a <textarea>', many: '<textarea>s', line: 11, shown: true },
  ] });
  assert.equal(out.site.count, 3);
  assert.equal(out.site.warnings.length, 3);
  assert.match(out.site.warnings[0], /^.*warned\/index\.html:2: <kv-calc> is inside a <p> \(line 2\), which the <p> of its baked fallback closes/);
  assert.equal(r.stderr, out.site.warnings.map((w) => `kvcalc bake: ${w}\n`).join(''));
});

test('bake\'s errors name the attribute as the page writes it, never the API\'s names', () => {
  writeFileSync(join(app, 'names.mjs'), `
import { fallbackHtml } from 'kvcalc/bake';
const out = [];
for (const [attributes, inline] of JSON.parse(process.argv[2])) {
  try { await fallbackHtml(attributes, inline); out.push(null); } catch (e) { out.push([e.attribute, e.message]); }
}
console.log(JSON.stringify(out));
`);
  const cases = [
    [{ view: 'check', 'pool-tokens': '681280' }],
    // 36 layers x 8 KV heads x 128 x 2 x 2 B = 147,456 B a token for Qwen3-8B: x 2^50 tokens
    // is above 2^53 - 1 bytes.
    [{ view: 'check', model: 'Qwen/Qwen3-8B', 'pool-tokens': '681280', 'max-context': '1125899906842624' }],
    [{ view: 'table', models: 'Qwen/Qwen3-8B, No/Such-Model' }],
    [{ 'kv-dtype': 'fp8_ds_mla' }],
    [{}, '{"num_hidden_layers": 2, "hidden_size": 256}'],
  ];
  const out = JSON.parse(execFileSync(process.execPath, ['names.mjs', JSON.stringify(cases)], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(out, [
    ['max-context', 'max-context: a check view needs the pool-tokens and max-context attributes'],
    ['max-context', 'max-context: the KV cache of 1,125,899,906,842,624 tokens in the full_attention layers exceeds 2^53 - 1 bytes ' +
      '(8 PiB), the largest figure kvcalc reports exactly: check max-context'],
    ['models', 'models: "No/Such-Model" is not a bundled preset id (npx kvcalc presets lists them)'],
    ['kv-dtype', 'kv-dtype: fp8_ds_mla applies only to MLA layers, and this model has none'],
    // A field of the config keeps its name.
    ['the inline config', 'the inline config: num_attention_heads: missing (also looked for n_head, num_heads, n_heads)'],
  ]);
});
