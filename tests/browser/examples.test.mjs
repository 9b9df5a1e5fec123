// The integration examples (examples/), each built from the packed package as a user would:
// `npm pack`, then the tarball installed (offline: the examples' own dev dependencies come
// from scripts/setup.sh) into a Vite app, a VitePress site, an MkDocs site as Debian 12
// ships it, and a plain HTML page. In Chromium each built site shows the live figure, its
// built HTML holds the fallback, and the browser reports no CSP violation, no console error
// and no failed request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CSP, startServer } from '../../scripts/serve.mjs';
import { ROOT } from './harness.mjs';
import { launch, openPage } from './site-pages/support.mjs';

const EXAMPLES = join(ROOT, 'examples');
const FALLBACK = 'Qwen2.5-7B-Instruct keeps 57,344 bytes of KV cache per token';
// VitePress and MkDocs write inline code of their own (VitePress its theme switch, page map,
// inline styles and data: icons; MkDocs's theme its base_url script and a style attribute
// in its keyboard help): their sites need more than the strict policy for those. The
// element needs nothing more.
const GENERATOR_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
  .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
const VITEPRESS_CSP = `${GENERATOR_CSP}; img-src 'self' data:`;
const MKDOCS_CSP = GENERATOR_CSP;

const scratch = mkdtempSync(join(tmpdir(), 'kvcalc-examples-'));
const run = (cmd, args, cwd) => execFileSync(cmd, args, {
  cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024,
  env: { ...process.env, npm_config_update_notifier: 'false', NO_COLOR: '1' },
});
const npmInstall = (args, cwd) => run('npm', ['install', ...args, '--offline', '--no-audit', '--no-fund', '--loglevel=error'], cwd);

let tarball;
let packageDist;   // node_modules/kvcalc/dist of the tarball installed into an empty folder
let browser;
before(async () => {
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch], ROOT));
  tarball = join(scratch, packed.filename);
  const app = join(scratch, 'installed');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'installed', private: true }));
  npmInstall([tarball], app);
  packageDist = join(app, 'node_modules/kvcalc/dist');
  // 1280 px: VitePress shows its light and dark switch in the navigation bar from there.
  browser = await launch({ viewport: { width: 1280, height: 900 } });
});
after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// An example with npm dev dependencies: the tarball goes into its node_modules (not into
// package.json: the examples name only their tools), then its build runs.
function installTarball(dir) {
  if (!existsSync(join(dir, 'node_modules'))) throw new Error(`${dir}/node_modules is missing: run bash scripts/setup.sh`);
  npmInstall(['--no-save', tarball], dir);
  const installed = JSON.parse(readFileSync(join(dir, 'node_modules/kvcalc/package.json'), 'utf8'));
  assert.equal(installed.name, 'kvcalc');
}

// Serves dir, opens path, and checks what every example must show: the live figure, no
// console error, no page error, no failed request, no CSP violation, nothing fetched from
// elsewhere.
async function checkSite(dir, path, csp) {
  const server = await startServer({ mounts: [['/', dir]], csp });
  const base = `http://127.0.0.1:${server.address().port}`;
  const { page, log } = await openPage(browser, `${base}${path}`);
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
  const elsewhere = log.requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:'));
  return { page, log, base, server, elsewhere, close: async () => { await page.close(); await new Promise((ok) => server.close(ok)); } };
}

async function assertClean(site) {
  assert.deepEqual({ ...await site.log.problems(), failed: site.log.failed }, { consoleErrors: [], pageErrors: [], failed: [], csp: [] });
  assert.deepEqual(site.elsewhere, []);
}

test('plain HTML under the strict CSP: the package\'s files beside the page', async () => {
  const out = join(scratch, 'plain-html');
  mkdirSync(out);
  for (const f of ['index.html', 'favicon.svg']) cpSync(join(EXAMPLES, 'plain-html', f), join(out, f));
  cpSync(packageDist, join(out, 'kvcalc'), { recursive: true });
  assert.ok(readFileSync(join(out, 'index.html'), 'utf8').includes(FALLBACK));
  const site = await checkSite(out, '/index.html', CSP);
  await assertClean(site);
  await site.close();
});

test('a Vite app: one import, the wasm found by the build', async () => {
  const dir = join(EXAMPLES, 'vite-app');
  installTarball(dir);
  const out = join(scratch, 'vite-out');
  run(process.execPath, [join(dir, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'], dir);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.ok(html.includes(FALLBACK), 'the fallback is in the built HTML');
  const site = await checkSite(out, '/index.html', CSP);
  await site.page.waitForFunction(() => document.getElementById('last-result').textContent.includes('57,344'));
  assert.equal(await site.page.textContent('#last-result'), 'Qwen/Qwen2.5-7B-Instruct: 57,344 bytes per token');
  // The wasm came from the build's own assets.
  assert.ok(site.log.requests.some((u) => /\/assets\/kvcalc_core[-.\w]*\.wasm$/.test(u)), site.log.requests.join('\n'));
  await assertClean(site);
  await site.close();
});

test('a VitePress site: the element and its fallback survive server rendering, and follow the dark switch', async () => {
  const dir = join(EXAMPLES, 'vitepress-site');
  installTarball(dir);
  const out = join(scratch, 'vitepress-out');
  run(process.execPath, [join(dir, 'node_modules/vitepress/bin/vitepress.js'), 'build', 'docs', '--outDir', out], dir);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(html, /<kv-calc model="Qwen\/Qwen2.5-7B-Instruct" context="32768">/, 'the element is in the server-rendered HTML');
  assert.ok(html.includes(FALLBACK), 'and so is its fallback');
  const site = await checkSite(out, '/index.html', VITEPRESS_CSP);
  // VitePress's appearance switch puts class="dark" on <html>; the element follows it.
  const dark = () => site.page.$eval('kv-calc', async (el) => {
    await new Promise(requestAnimationFrame);
    return [el.matches(':state(dark)'), getComputedStyle(el).backgroundColor];
  });
  assert.deepEqual(await dark(), [false, 'rgb(255, 255, 255)']);
  await site.page.locator('button.VPSwitchAppearance:visible').click();
  assert.equal(await site.page.evaluate(() => document.documentElement.classList.contains('dark')), true);
  assert.deepEqual(await dark(), [true, 'rgb(22, 26, 32)']);
  await assertClean(site);
  await site.close();
});

test('an MkDocs site as Debian 12 ships it (1.4.2): the script through the theme\'s extrahead block', async () => {
  const dir = join(scratch, 'mkdocs-site');
  cpSync(join(EXAMPLES, 'mkdocs-site'), dir, { recursive: true, filter: (f) => !/[/\\](site|kvcalc)$/.test(f) });
  cpSync(packageDist, join(dir, 'docs/kvcalc'), { recursive: true });
  const out = join(scratch, 'mkdocs-out');
  run('mkdocs', ['build', '--quiet', '--config-file', join(dir, 'mkdocs.yml'), '--site-dir', out], dir);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.match(html, /<script type="module" src="kvcalc\/kvcalc.js"><\/script>/);
  assert.ok(html.includes(FALLBACK), 'the fallback is in the built HTML');
  const site = await checkSite(out, '/index.html', MKDOCS_CSP);
  await assertClean(site);
  await site.close();
});
