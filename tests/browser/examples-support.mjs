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
import { parse } from 'parse5';
import { CSP, startServer } from '../../scripts/serve.mjs';
import { locked, runTarball } from '../packed.mjs';
import { ROOT, jumpToEach } from './harness.mjs';
import { SHIFT_SINCE_DEFINED, launch, openPage } from './site-pages/support.mjs';

export { CSP };

export const EXAMPLES = join(ROOT, 'examples');
// 28 layers x 4 KV heads x 128 x 2 (K and V) x 2 B = 57,344 B per token, baked by the core:
// the element's first render (its declarative shadow root, linking kvcalc.css), then the
// figures in words. BAKED_AS(start) for an element written another way (an id first);
// BAKED_AS(start, '') for one React wrote (its dangerouslySetInnerHTML, the render first).
export const BAKED_AS = (start, between = '\\n') => new RegExp(`${start}${between}<template shadowrootmode="open"><link rel="stylesheet" href="[^"]*kvcalc\\.css">` +
  '<div class="kv" part="base" data-kvcalc-baked="0\\.1\\.0">[\\s\\S]*?<dt>Bytes per token</dt><dd><strong>57,344 B</strong></dd>[\\s\\S]*?</template>\\n' +
  '<p class="fallback" data-kvcalc-baked="0\\.1\\.0">Qwen/Qwen2\\.5-7B-Instruct keeps <data value="57344">57,344 B</data> of KV cache per token');
export const BAKED = BAKED_AS('<kv-calc model="Qwen/Qwen2\\.5-7B-Instruct" context="32768">');
// The figures in words, read as text: 28 x 4 x 128 x 2 x 2 B = 57,344 B per token, x 32,768 = 1.75 GiB.
export const BAKED_TEXT = 'Qwen/Qwen2.5-7B-Instruct keeps 57,344 B of KV cache per token (bf16) and 1.75 GiB (1,879,048,192 B) for one sequence of 32,768 tokens (resident accounting).';
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
  const close = async () => { await page.close(); await new Promise((ok) => server.close(ok)); };
  try {
    return { page, log, base, server, close, ...await liveAndStill(env, page, log, base, dir, path, csp, mounts) };
  } catch (e) {
    // A failed check closes what it opened: a server left listening keeps the test file alive
    // until node --test's timeout (ten minutes) instead of failing at once.
    await close();
    throw e;
  }
}

async function liveAndStill(env, page, log, base, dir, path, csp, mounts) {
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
  return { elsewhere, shifts };
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
    await page.addInitScript(SHIFT_SINCE_DEFINED);
    await page.addInitScript(() => window.__countShift());
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

// React sites (Nextra, Rspress, Docusaurus). An element React rendered again after a
// hydration error (#418) is a new node without its baked render, and some sites recover from
// that without a word on the console (Rspress): this init script, added to a browser's
// context, counts the <kv-calc> removed from a page's document.
export const COUNT_REMOVED = () => {
  window.__kvRemoved = 0;
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.removedNodes) if (n.nodeType === 1 && (n.localName === 'kv-calc' || n.querySelector('kv-calc'))) window.__kvRemoved += 1;
    }
  }).observe(document, { childList: true, subtree: true });
};

// Once React has hydrated the first <kv-calc> (it marks each node it hydrated with a
// __reactFiber$ key): how many <kv-calc> it removed (COUNT_REMOVED) and the words bake wrote
// inside the element, which a re-rendered element would not have.
export async function afterHydration(page) {
  await page.waitForFunction(() => Object.keys(document.querySelector('kv-calc') ?? {}).some((k) => k.startsWith('__reactFiber$')));
  return page.evaluate(() => ({ removed: window.__kvRemoved, words: document.querySelector('kv-calc > p.fallback[data-kvcalc-baked]')?.textContent ?? null }));
}

// A client-side navigation on the served site (checkSite's): a page of it opened (from), its
// link (link) clicked, which the framework's router follows to the calculator's page (path)
// in the same document, rendering it from its JavaScript. Checks what the first <kv-calc>
// shows when the router inserts it, before any frame (a mutation's callback runs before the
// next paint): its baked render with the figures (2 x 28 x 4 x 128 x 2 B = 57,344 B per
// token) under its style sheet, already loaded; then that it goes live in the same box.
// Returns the page and its log, for assertClean.
export async function checkClientNavigation(env, site, { from, link, path }) {
  const { page, log } = await openPage(env.browser, `${site.base}${from}`);
  await page.waitForFunction(() => customElements.get('kv-calc'));
  await page.evaluate(() => {
    window.__sameDocument = true;
    window.__inserted = new Promise((done) => {
      new MutationObserver((records, observer) => {
        const el = records.flatMap((r) => [...r.addedNodes]).filter((n) => n.nodeType === 1)
          .map((n) => (n.localName === 'kv-calc' ? n : n.querySelector('kv-calc'))).find(Boolean);
        if (!el) return;
        observer.disconnect();
        const base = el.shadowRoot?.querySelector('.kv[data-kvcalc-baked]');
        done({ baked: Boolean(base), live: el.matches(':state(live)'), sheet: Boolean(el.shadowRoot?.querySelector('link')?.sheet),
          figures: base?.querySelector('.results')?.textContent.replace(/\s+/g, ' ').trim() ?? '', height: el.getBoundingClientRect().height });
      }).observe(document, { childList: true, subtree: true });
    });
  });
  await page.click(link);
  await page.waitForURL(`${site.base}${path}`);
  const inserted = await page.evaluate(() => window.__inserted);
  const live = await page.$eval('kv-calc', async (el) => {
    await el.updateComplete;
    return { live: el.matches(':state(live)'), bytesPerToken: el.result?.bytesPerToken, height: el.getBoundingClientRect().height,
      sameDocument: window.__sameDocument === true };
  });
  assert.equal(live.sameDocument, true, `${from} -> ${path}: the router, not a page load`);
  const { figures, height, ...shown } = inserted;
  assert.deepEqual(shown, { baked: true, live: false, sheet: true }, `${from} -> ${path}: the element as the router inserted it`);
  assert.match(figures, /Bytes per token\s*57,344 B\s*Per sequence \(32,768 tokens, resident\)\s*1\.75 GiB \(1,879,048,192 B\)/);
  assert.deepEqual(live, { live: true, bytesPerToken: 57344, height, sameDocument: true });
  const elsewhere = log.requests.filter((u) => !u.startsWith(`${site.base}/`) && !u.startsWith('data:'));
  return { page, log, elsewhere, close: () => page.close() };
}

// The policy for a generator that writes inline scripts of its own, allowed by their hashes
// rather than 'unsafe-inline': the strict policy with the sha256 of every inline script of
// every page of dir in script-src (fixed when the site is built: a static host can send them
// in its headers), and 'unsafe-inline' for the generator's inline styles and style attributes.
export function hashedScriptsCsp(dir) {
  const hashes = new Set();
  const walk = (node) => {
    if (node.nodeName === 'script' && !node.attrs.some((a) => a.name === 'src') &&
        !node.attrs.some((a) => a.name === 'type' && /json/.test(a.value))) {
      const text = node.childNodes.map((c) => c.value ?? '').join('');
      hashes.add(`'sha256-${createHash('sha256').update(text).digest('base64')}'`);
    }
    for (const child of node.childNodes ?? []) walk(child);
    if (node.content) walk(node.content);
  };
  for (const file of readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.html'))) walk(parse(readFileSync(join(dir, file), 'utf8')));
  return CSP.replace("script-src 'self' 'wasm-unsafe-eval'", `script-src 'self' 'wasm-unsafe-eval' ${[...hashes].join(' ')}`)
    .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
}
