// What every example test shares: the package packed and installed as a user would
// (`npm pack`, the tarball installed offline into an empty folder and where each recipe's
// build finds it), the examples' builds
// run as their authors run them, and each built site checked in Chromium: the live figure,
// the page still as its elements go live (a layout shift of at most 0.01, on a desktop cold
// and on a phone), no console error, page error, failed request or CSP violation, nothing
// fetched elsewhere.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { CSP, startServer } from '../../scripts/serve.mjs';
import { locked, runTarball } from '../packed.mjs';
import { ROOT, jumpToEach } from './harness.mjs';
import { launch, openPage } from './site-pages/support.mjs';

export { CSP };

export const EXAMPLES = join(ROOT, 'examples');
// 28 layers x 4 KV heads x 128 x 2 (K and V) x 2 B = 57,344 B per token, baked by the core:
// the element's first render (its declarative shadow root, linking kvcalc.css), then the
// figures in words. BAKED_AS(start) for an element written another way (an id first).
export const BAKED_AS = (start) => new RegExp(`${start}\\n<template shadowrootmode="open"><link rel="stylesheet" href="[^"]*kvcalc\\.css">` +
  '<div class="kv" part="base" data-kvcalc-baked="0\\.1\\.0">[\\s\\S]*?<dt>Bytes per token</dt><dd><strong>57,344 B</strong></dd>[\\s\\S]*?</template>\\n' +
  '<p class="fallback" data-kvcalc-baked="0\\.1\\.0">Qwen/Qwen2\\.5-7B-Instruct keeps <data value="57344">57,344 B</data> of KV cache per token');
export const BAKED = BAKED_AS('<kv-calc model="Qwen/Qwen2\\.5-7B-Instruct" context="32768">');
// VitePress and MkDocs write inline code of their own (VitePress its theme switch, page map,
// inline styles and data: icons; MkDocs's theme its base_url script and a style attribute
// in its keyboard help): their sites need more than the strict policy for those. The
// element needs nothing more.
export const GENERATOR_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
  .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
export const VITEPRESS_CSP = `${GENERATOR_CSP}; img-src 'self' data:`;
export const MKDOCS_CSP = GENERATOR_CSP;

export const run = (cmd, args, cwd) => execFileSync(cmd, args, {
  cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, npm_config_update_notifier: 'false', NO_COLOR: '1' },
});
export const npmInstall = (args, cwd) => run('npm', ['install', ...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], cwd);

// The suite's set-up: a scratch folder, the packed tarball, its dist/ as installed, and a
// browser. Call from before(); close() from after().
export async function examplesSetup() {
  const env = { scratch: mkdtempSync(join(tmpdir(), 'kvcalc-examples-')) };
  env.tarball = runTarball(env.scratch);
  const app = join(env.scratch, 'installed');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'installed', private: true }));
  npmInstall([env.tarball], app);
  env.packageDist = join(app, 'node_modules/kvcalc/dist');
  // 1280 px: VitePress shows its light and dark switch in the navigation bar from there.
  env.browser = await launch({ viewport: { width: 1280, height: 900 } });
  env.close = async () => {
    await env.browser?.close();
    rmSync(env.scratch, { recursive: true, force: true });
  };
  return env;
}

// Where Node finds the npm package `name` for a file in dir: dir's node_modules, then each
// folder's above it (the examples' workspace installs its recipes' tools in examples/node_modules).
export function packageDir(dir, name) {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules', name, 'package.json'))) return join(d, 'node_modules', name);
    if (dirname(d) === d) throw new Error(`${name} is not installed for ${dir}: run bash scripts/setup-examples.sh`);
  }
}

const sha512 = (file) => `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
const installedIntegrity = (root) => {
  const lock = join(root, 'node_modules/.package-lock.json');
  return existsSync(lock) ? JSON.parse(readFileSync(lock, 'utf8')).packages['node_modules/kvcalc']?.integrity : undefined;
};
// Where a recipe's packages are installed: the examples' workspace for its members
// (examples/package.json), the recipe's own folder for one with a lock file of its own.
const WORKSPACE = JSON.parse(readFileSync(join(EXAMPLES, 'package.json'), 'utf8')).workspaces.map((w) => join(EXAMPLES, w));
const installRoot = (dir) => (WORKSPACE.includes(dir) ? EXAMPLES : dir);

// Installs a tarball where a recipe's build finds it (not into package.json: the examples name
// only their tools): into the examples' workspace (examples/node_modules/kvcalc) for its
// members, into the recipe's own node_modules for the others. scripts/test.sh installs the
// run's tarball into the workspace once, after the build; a file run alone installs its own.
// One npm at a time (the pack lock); nothing is installed when that very tarball is.
export function installIntoExamples(tarball, root = EXAMPLES) {
  if (!existsSync(join(root, 'node_modules'))) throw new Error(`${root}/node_modules is missing: run bash scripts/setup-examples.sh`);
  const integrity = sha512(tarball);
  locked(() => {
    if (installedIntegrity(root) !== integrity) npmInstall(['--no-save', tarball], root);
  });
  return integrity;
}

// An example with npm dev dependencies: the tarball installed where its build finds it, and
// found there from the example's folder.
export function installTarball(env, dir) {
  const root = installRoot(dir);
  const integrity = installIntoExamples(env.tarball, root);
  assert.equal(installedIntegrity(root), integrity, `${root}/node_modules/kvcalc is the tarball of this run`);
  const found = packageDir(dir, 'kvcalc');
  assert.equal(found, join(root, 'node_modules/kvcalc'));
  assert.equal(JSON.parse(readFileSync(join(found, 'package.json'), 'utf8')).name, 'kvcalc');
}

// The file of an npm tool's package as the example's folder finds it (its bin script).
export const toolFile = (dir, name, file) => join(packageDir(dir, name), file);

// A build tool's own persistent cache, kept in the user's cache folder (scripts/cache-dir.sh),
// outside the clone, under a key made of every input of the build: the tarball, the examples'
// lock file (every installed package by its integrity), each file of the recipe (skip: its
// build outputs) by path and content, Node's version and the recipe's folder. `link`, where the
// tool looks for its cache, points at the key's folder: a fresh clone of the same sources
// builds warm, and any change builds from an empty cache. The two latest keys of a tool stay.
export function keyedCache(env, dir, link, tool, skip) {
  const sha = (data) => createHash('sha256').update(data).digest('hex');
  const files = readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)))
    .filter((f) => !skip.some((s) => f === s || f.startsWith(`${s}/`)) && statSync(join(dir, f)).isFile()).sort();
  const key = sha([sha(readFileSync(env.tarball)), sha(readFileSync(join(EXAMPLES, 'package-lock.json'))), process.version, dir,
    ...files.map((f) => `${f} ${sha(readFileSync(join(dir, f)))}`)].join('\n')).slice(0, 32);
  const root = join(execFileSync('bash', [join(ROOT, 'scripts/cache-dir.sh')], { encoding: 'utf8' }).trim(), tool);
  mkdirSync(join(root, key), { recursive: true });
  writeFileSync(join(root, key, '.used'), new Date().toISOString());
  const usedAt = (k) => { try { return statSync(join(root, k, '.used')).mtimeMs; } catch { return 0; } };
  const older = readdirSync(root).filter((k) => k !== key).sort((a, b) => usedAt(b) - usedAt(a));
  for (const k of older.slice(1)) rmSync(join(root, k), { recursive: true, force: true });
  if (existsSync(link) || isLink(link)) rmSync(link, { recursive: true, force: true });
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(join(root, key), link);
  return key;
}
const isLink = (path) => { try { return lstatSync(path).isSymbolicLink(); } catch { return false; } };

// A desktop and a phone, where going live must not move the page.
export const SHIFT_VIEWPORTS = [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]];

// Serves dir, opens path, and checks what every example must show: the live figure, the page
// still as its elements go live, no console error, no page error, no failed request, no CSP
// violation, nothing fetched from elsewhere.
// mounts: more [urlPrefix, directory] pairs the host serves besides the site.
export async function checkSite(env, dir, path, csp, mounts = []) {
  const server = await startServer({ mounts: [['/', dir], ...mounts], csp });
  const base = `http://127.0.0.1:${server.address().port}`;
  const { page, log } = await openPage(env.browser, `${base}${path}`);
  await page.waitForFunction(() => customElements.get('kv-calc'));
  const result = await page.$eval('kv-calc', async (el) => {
    el.scrollIntoView();
    await el.updateComplete;
    return { bytesPerToken: el.result?.bytesPerToken, live: el.matches(':state(live)'),
      shown: el.shadowRoot.querySelector('.formula .results')?.innerText ?? '' };
  });
  // 2 x 28 layers x 4 KV heads x 128 x 2 B = 57,344 B per token; x 32,768 = 1.75 GiB.
  assert.equal(result.bytesPerToken, 57344);
  assert.equal(result.live, true);
  assert.match(result.shown, /Bytes per token\s+57,344 B/);
  assert.match(result.shown, /1\.75 GiB \(1,879,048,192 B\)/);
  // Nothing moved as the elements went live, with plain bake (DESIGN.md section 4: at most
  // 0.01): this first load (cold, on a desktop), each element jumped to (it goes live where it
  // is, in view: the hardest case), and the page again on a phone.
  const shifts = [['desktop, cold', { shift: null, live: await jumpToEach(page) }]];
  shifts[0][1].shift = await page.evaluate(() => window.__shift);
  shifts.push(['phone', await layoutShift(env, dir, path, csp, SHIFT_VIEWPORTS[1][1], mounts)]);
  for (const [where, { shift, live }] of shifts) {
    assert.ok(live >= 1, `${path}, ${where}: no element went live`);
    assert.ok(shift <= 0.01, `${path}, ${where}: layout shift ${shift}`);
  }
  const elsewhere = log.requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:'));
  return { page, log, base, server, elsewhere, shifts, close: async () => { await page.close(); await new Promise((ok) => server.close(ok)); } };
}

// generatorErrors: page errors a generator's own scripts raise, each explained where it is
// passed; every other problem fails.
export async function assertClean(site, generatorErrors = []) {
  const problems = await site.log.problems();
  problems.pageErrors = problems.pageErrors.filter((e) => !generatorErrors.includes(e));
  assert.deepEqual({ ...problems, failed: site.log.failed }, { consoleErrors: [], pageErrors: [], failed: [], csp: [] });
  assert.deepEqual(site.elsewhere, []);
}




// The page's summed layout shift (Chromium's layout-shift entries, as the web's CLS sums them)
// while each <kv-calc> goes live in view, at a viewport, and how many went live: DESIGN.md
// section 4 asks at most 0.01 with plain `kvcalc bake` (checkSite checks it on every recipe).
export async function layoutShift(env, dir, path, csp, viewport, mounts = []) {
  const server = await startServer({ mounts: [['/', dir], ...mounts], csp });
  const page = await env.browser.context.newPage();
  try {
    await page.setViewportSize(viewport);
    await page.addInitScript(() => {
      window.__shift = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (!e.hadRecentInput) window.__shift += e.value;
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
    const live = await jumpToEach(page);
    return { shift: await page.evaluate(() => window.__shift), live };
  } finally {
    await page.close();
    await new Promise((ok) => server.close(ok));
  }
}

// The first element gone live (after a reload).
export const goneLive = (page) => page.$eval('kv-calc', async (el) => { el.scrollIntoView(); await el.updateComplete; });

// The first element's dark state and background, a frame after the page changed.
export const darkState = (page) => page.$eval('kv-calc', async (el) => {
  await new Promise(requestAnimationFrame);
  return [el.matches(':state(dark)'), getComputedStyle(el).backgroundColor];
});
export const LIGHT = [false, 'rgb(255, 255, 255)'];
export const DARK = [true, 'rgb(22, 26, 32)'];

// The generator's own dark mode followed, live and after a reload: light at first; toDark()
// switches it as a reader does; mark() (run in the page) reads the generator's marker, which
// is dark after the switch and again after the reload (the generator restores it itself).
export async function followsGeneratorDark(page, toDark, mark, dark) {
  assert.deepEqual(await darkState(page), LIGHT);
  await toDark();
  assert.equal(await page.evaluate(mark), dark, 'the generator marked its dark mode');
  assert.deepEqual(await darkState(page), DARK);
  await page.reload();
  await goneLive(page);
  assert.equal(await page.evaluate(mark), dark, 'the generator restored its dark mode after the reload');
  assert.deepEqual(await darkState(page), DARK);
}

// The reader's system switched to dark, live and then after a reload: the element's state
// ([dark?, background]) each time, for a page that marks no dark mode of its own.
export async function underDarkSystem(page) {
  await page.emulateMedia({ colorScheme: 'dark' });
  // Chromium tells the page's media queries at its next rendering update: two frames.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const live = await darkState(page);
  await page.reload();
  await goneLive(page);
  const reloaded = await darkState(page);
  await page.emulateMedia({ colorScheme: 'light' });
  return { live, reloaded };
}
