// Shared by the site's browser tests: where the built site is, the native CLI for the
// expected figures, a fresh Chromium profile, a page that records everything that must not
// happen (console errors, page errors, failed requests, CSP violations), and reading what
// each <kv-calc> computed and shows, its baked fallback included.

import { chromium } from 'playwright-core';
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, axeViolations, bringIntoView } from '../harness.mjs';
import { CSP, startServer } from '../../../scripts/serve.mjs';
import { PAGES } from '../../../site/tools/layout.mjs';
import { DEFAULT_MODEL, readTokens } from '../../../site/tools/cli.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SITE_BUILD = join(ROOT, process.env.KVCALC_SITE_OUT || 'site-build');
export const SITE_PAGES = PAGES.map((p) => p.file);
export const ALL_PAGES = [...SITE_PAGES, 'examples/plain.html'];
const KVCALC = join(resolve(ROOT, process.env.KVCALC_BUILD_DIR || 'build'), 'kvcalc');

// The CLI's JSON for args (exit codes in `ok` are results).
// `input` goes to stdin (for CONFIG "-").
export function kvcalc(args, ok = [0], input = undefined) {
  const full = args.includes('--format') ? args : [...args, '--json'];
  const r = spawnSync(KVCALC, full, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, input });
  if (r.error) throw r.error;
  if (!ok.includes(r.status)) throw new Error(`kvcalc ${full.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// The CLI arguments that size what a <kv-calc> with these attributes sizes (an inline
// config goes to the CLI on stdin: see sizeOf; a GGUF metadata document, without an engine
// attribute, is sized as llama.cpp allocates it, as the element does).
export function sizeArgs(attrs, inline = false, inlineText = '') {
  const args = ['size', inline ? '-' : attrs.model || DEFAULT_MODEL];
  if (attrs.context) args.push('--context', String(readTokens(attrs.context)));
  for (const name of ['batch', 'kv-dtype', 'tp', 'accounting', 'engine', 'parallel', 'cache-type-k', 'cache-type-v', 'flash-attn',
    'ubatch-size', 'llamacpp-build', 'ollama-version']) if (attrs[name]) args.push(`--${name}`, attrs[name]);
  for (const name of ['swa-full', 'kv-unified']) if (attrs[name] !== undefined && attrs[name] !== 'false') args.push(`--${name}`);
  if (!attrs.engine && /^\s*\{\s*"gguf"\s*:/.test(inlineText)) args.push('--engine', 'llamacpp');
  return args;
}

// The CLI's size report for a widget read by widgets(): its attributes and inline config.
export function sizeOf(w) {
  return kvcalc(sizeArgs(w.attrs, w.inlineConfig !== null, w.inlineConfig ?? ''), [0], w.inlineConfig ?? undefined);
}

// For one test file: the built site served under the strict CSP (with any other folders
// mounted beside it), and a fresh browser. The object's `base` (the site's address) and
// `browser` are set before the file's tests run.
export function servedSite(page = 'index.html', mounts = []) {
  const site = {};
  before(async () => {
    assert.ok(existsSync(join(SITE_BUILD, page)), `site-build/${page} is missing: run bash scripts/build.sh`);
    site.server = await startServer({ mounts: [['/', SITE_BUILD], ...mounts], csp: CSP });
    site.base = `http://127.0.0.1:${site.server.address().port}`;
    site.browser = await launch();
  });
  after(async () => {
    await site.browser?.close();
    if (site.server) await new Promise((ok) => site.server.close(ok));
  });
  return site;
}

// A browser with a fresh profile (no service worker, no cache from an earlier run).
// window.__shift: the layout shift (Chromium's entries without recent input, summed as the
// web's CLS sums them) from the moment <kv-calc> is defined, before it takes over its baked
// render and goes live: what the element moves. A framework's own layout of the page before
// that is left out: Rspress 2's page shifts by 0.05-0.15 on a CPU slowed 6x while it loads,
// measured with the element never defined (customElements.define of kv-calc made a no-op).
export const SHIFT_SINCE_DEFINED = () => {
  const entries = [];
  let definedAt = Infinity;
  customElements.whenDefined('kv-calc').then(() => { definedAt = performance.now(); });
  // An entry is reported after its frame: one whose frame began before the definition is the
  // page's own.
  Object.defineProperty(window, '__shift', {
    configurable: true,
    get: () => entries.filter((e) => e.startTime >= definedAt).reduce((sum, e) => sum + e.value, 0),
  });
  window.__countShift = () => new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) entries.push({ startTime: e.startTime, value: e.value });
  }).observe({ type: 'layout-shift', buffered: true });
};

export async function launch(options = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'kvcalc-site-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 }, locale: 'en-US', reducedMotion: 'reduce', ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Opens url with the CSP listener installed before any page script runs.
export async function openPage(browser, url, { viewport, colorScheme } = {}) {
  const page = await browser.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  if (colorScheme) await page.emulateMedia({ colorScheme });
  const log = { consoleErrors: [], pageErrors: [], failed: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error') log.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => log.pageErrors.push(String(e)));
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('requestfailed', (r) => log.failed.push(`${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) log.failed.push(`${r.status()} ${r.url()}`); });
  await page.addInitScript(SHIFT_SINCE_DEFINED);
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation',
      (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`), true);
    // The page's layout shift (Chromium's entries without recent input), for the examples.
    window.__countShift();
  });
  log.problems = async () => ({
    consoleErrors: log.consoleErrors, pageErrors: log.pageErrors, failed: log.failed,
    csp: await page.evaluate(() => window.__cspViolations),
  });
  const response = await page.goto(url);
  return { page, log, response };
}

// Waits until every <kv-calc> has a result (and a check result for check views); says which
// did not when they do not.
export async function waitForWidgets(page) {
  await bringIntoView(page);
  try {
    await page.waitForFunction(() => [...document.querySelectorAll('kv-calc')].every((el) =>
      el.result && (el.getAttribute('view') !== 'check' || el.checkResult)), null, { timeout: 20000 });
  } catch {
    const pending = await page.evaluate(() => [...document.querySelectorAll('kv-calc')]
      .filter((el) => !el.result || (el.getAttribute('view') === 'check' && !el.checkResult))
      .map((el) => `#${el.id} ${el.shadowRoot?.querySelector('[part~="error"], [part~="check-error"]')?.textContent ?? ''}`));
    throw new Error(`these <kv-calc> computed nothing: ${pending.join('; ')}`);
  }
  // And every section is drawn (the element's updateComplete promise).
  await page.$$eval('kv-calc', (els) => Promise.all(els.map((el) => el.updateComplete)));
}

// axe-core, served from the page's own origin at /axe/ (the strict CSP refuses an inline
// script), on a page whose widgets have all drawn. Pages with no widget are checked too.
export async function runAxe(page) {
  await waitForWidgets(page);
  return axeViolations(page);
}

// What each <kv-calc> on the page computed and shows, and its light-DOM fallback.
export async function widgets(page) {
  return page.evaluate(() => {
    const text = (n) => (n ? n.textContent.replace(/\s+/g, ' ').trim() : null);
    const readTable = (table, isLive) => {
      if (!table) return null;
      const heads = [...table.querySelectorAll('thead th')].map((th) => text(th));
      const col = (label) => heads.indexOf(label);
      const contextCols = heads.map((h, i) => [h, i]).filter(([h]) => (isLive ? /^Memory at /.test(h) : /tokens$/.test(h)));
      const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children]);
      const bpt = col(isLive ? 'Bytes per token' : 'Per token');
      return {
        models: rows.map((cells) => text(cells[0])),
        contextHeads: contextCols.map(([h]) => h),
        bytesPerToken: rows.map((cells) => text(cells[bpt])),
        memory: rows.map((cells) => contextCols.map(([, i]) => {
          const data = cells[i].querySelector('data');
          return isLive ? { value: data?.getAttribute('value') ?? null, text: text(cells[i]) } : text(cells[i]);
        })),
      };
    };
    return [...document.querySelectorAll('kv-calc')].map((el) => {
      const root = el.shadowRoot;
      const r = el.result;
      const c = el.checkResult;
      return {
        id: el.id,
        attrs: Object.fromEntries([...el.attributes].map((a) => [a.name, a.value])),
        result: r && { bytesPerToken: r.bytesPerToken, kvBytes: r.kvBytes, context: r.context, model: r.model },
        check: c && { fits: c.fits, maxConcurrency: c.maxConcurrency, maxSafeContext: c.maxSafeContext, poolTokens: c.poolTokens },
        shownText: root?.querySelector('[part~="base"]')?.innerText ?? '',
        verdict: text(root?.querySelector('[part~="verdict"]')),
        fallbackText: text(el.querySelector(':scope > .fallback')),
        inlineConfig: el.querySelector(':scope > script[type="application/json"]')?.textContent ?? null,
        tables: {
          live: readTable(root?.querySelector('section.table table'), true),
          baked: readTable(el.querySelector(':scope > .fallback-table table'), false),
        },
      };
    });
  });
}
