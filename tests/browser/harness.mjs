// Browser-test harness: the fixture pages (tests/browser/pages) and the built package
// (dist/ at /dist/) served on 127.0.0.1 by scripts/serve.mjs with the strict CSP header,
// Debian's Chromium driven by playwright-core, and per page a record of everything that
// must not happen: console errors, page errors, CSP violations, dialogs, requests for
// anything but the page's own files.

import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, CSP } from '../../scripts/serve.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PAGES = join(ROOT, 'tests/browser/pages');
export const DIST = join(ROOT, 'dist');
export const CONFIGS = resolve(ROOT, '../shared/configs');
export { CSP };

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function readConfig(name) {
  return readFileSync(join(CONFIGS, name), 'utf8');
}

// Starts the server(s) and the browser. `csp` overrides the policy (the XSS test also runs
// under a policy that would let an injected handler run, so injection would be seen).
export async function startBrowser({ csp = CSP, viewport = { width: 1100, height: 900 }, axe = false } = {}) {
  if (!existsSync(join(DIST, 'kvcalc.js'))) throw new Error('dist/kvcalc.js is missing: run bash scripts/build.sh');
  const mounts = [['/', PAGES], ['/dist/', DIST]];
  if (axe) mounts.push(['/axe/', dirname(AXE_PATH)]);
  const server = await startServer({ mounts, csp });
  const base = `http://127.0.0.1:${server.address().port}`;
  const profile = mkdtempSync(join(tmpdir(), 'kvcalc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport,
    locale: 'en-US', reducedMotion: 'reduce',
  });
  return {
    base,
    context,
    async close() {
      await context.close();
      await new Promise((ok) => server.close(ok));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Opens path and records what happens. The CSP listener goes in before any page script.
export async function openPage(env, path, { viewport, colorScheme } = {}) {
  const page = await env.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  if (colorScheme) await page.emulateMedia({ colorScheme });
  const log = { consoleErrors: [], pageErrors: [], requests: [], dialogs: [], failed: [] };
  page.on('console', (m) => { if (m.type() === 'error') log.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => log.pageErrors.push(String(e)));
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('requestfailed', (r) => log.failed.push(r.url()));
  page.on('response', (r) => { if (r.status() >= 400) log.failed.push(`${r.status()} ${r.url()}`); });
  page.on('dialog', (d) => { log.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    window.__xss = [];
    // Counts wasm instantiations, to show that many elements share one instance.
    window.__wasmInstantiations = 0;
    for (const name of ['instantiate', 'instantiateStreaming']) {
      const original = WebAssembly[name];
      if (!original) continue;
      WebAssembly[name] = function counted(...args) {
        window.__wasmInstantiations += 1;
        return original.apply(this, args);
      };
    }
    document.addEventListener('securitypolicyviolation',
      (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`), true);
  });
  await page.goto(env.base + path);
  return { page, log };
}

// The files a page may load: its own, the package's, nothing else.
export function foreignRequests(env, log, allowed) {
  return log.requests.filter((url) => {
    if (!url.startsWith(`${env.base}/`)) return true;
    const path = url.slice(env.base.length).replace(/[?#].*$/, '');
    return !allowed.some((a) => (a.endsWith('/') ? path.startsWith(a) : path === a));
  });
}

// Scrolls, as a reader would, to each <kv-calc> (or each matching selector) that has not
// gone live (loading="lazy" waits to be near the viewport), waits for it to draw, and
// scrolls back to where the page was.
export async function bringIntoView(page, selector = 'kv-calc') {
  if (!(await page.$(selector))) return;
  await page.waitForFunction(() => customElements.get('kv-calc'));
  await page.$$eval(selector, async (els) => {
    const [x, y] = [scrollX, scrollY];
    for (const el of els) {
      if (el.matches(':state(live)')) continue;
      el.scrollIntoView({ block: 'center' });
      await el.updateComplete;
    }
    scrollTo(x, y);
  });
}

// Jumps to each <kv-calc> of the page in turn (each goes live where it is, in view: the hardest
// case for layout shift), waits for it to draw, and answers how many went live; then waits two
// frames, so the last change is painted and its layout-shift entries reported.
export const jumpToEach = (page) => page.evaluate(async () => {
  let n = 0;
  if (document.querySelector('kv-calc')) await customElements.whenDefined('kv-calc');
  for (const el of document.querySelectorAll('kv-calc')) {
    el.scrollIntoView({ block: 'center' });
    await el.updateComplete;
    if (el.matches(':state(live)')) n += 1;
  }
  await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
  return n;
});

// Waits until every <kv-calc> on the page (or those matching selector) is defined and has
// drawn every section (updateComplete), bringing the lazy ones into view.
export async function waitForWidgets(page, selector = 'kv-calc') {
  await page.waitForFunction(() => customElements.get('kv-calc'));
  await bringIntoView(page, selector);
  await page.$$eval(selector, (els) => Promise.all(els.map((el) => el.updateComplete)));
}

// Text of a part of one element's shadow root (innerText: what a reader sees), once the
// element has drawn every section.
export async function shadowText(page, selector, inner) {
  return page.$eval(selector, async (el, inner) => {
    await el.updateComplete;
    const n = el.shadowRoot.querySelector(inner);
    return n ? n.innerText : null;
  }, inner);
}

export async function cspViolations(page) {
  return page.evaluate(() => window.__cspViolations);
}

// Everything that must be empty after a clean page: no errors of any kind.
export async function problems(page, log) {
  return {
    consoleErrors: log.consoleErrors,
    pageErrors: log.pageErrors,
    dialogs: log.dialogs,
    failed: log.failed,
    csp: await cspViolations(page),
  };
}

export const CLEAN = { consoleErrors: [], pageErrors: [], dialogs: [], failed: [], csp: [] };

// axe-core for the accessibility checks. Under the strict CSP, page.addScriptTag({ path })
// and ({ content }) insert an inline <script>, which the policy refuses (checked: "Executing
// inline script violates ... script-src"), so the server mounts axe at /axe/ (same origin,
// allowed by script-src 'self') and the test adds it by URL, after the request checks.
export const AXE_PATH = join(ROOT, 'node_modules/axe-core/axe.min.js');

export async function runAxe(page) {
  await waitForWidgets(page);
  return axeViolations(page);
}

// axe's violations on the page as it is now (the caller waits for what must be drawn).
export async function axeViolations(page) {
  await page.addScriptTag({ url: '/axe/axe.min.js' });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
    }));
  });
}
