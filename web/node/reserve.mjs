// The live element's height kept by its baked fallback, so a page does not move when its
// elements go live (DESIGN.md section 4: a layout shift of at most 0.01). A fallback is a
// line or a table; the calculator it turns into is taller, and how much depends on the view,
// the model, the width and the fonts: only a browser knows. So the heights are measured in
// headless Chromium (playwright-core, when installed beside the package; the project's site
// build and `kvcalc bake --reserve` both measure here), at several viewport widths, and
// written as a style sheet from the site's own origin (a strict CSP allows it, where an
// inline style would be refused): each fallback, until its element matches :state(live),
// gets min-height of its live element at that width, inside @media (scripting: enabled),
// since without scripting there is nothing to reserve for. On a reader's machine the fonts
// may differ from the measuring one's: there the reservation is close rather than exact.

import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, relative, resolve, sep } from 'node:path';
import { htmlFiles, writeWhole } from './site-files.mjs';

// Every 40 px from a small phone to a desktop (1280 px and wider: a docs site's columns stop
// growing before that, but a table view takes the window's whole width), and the widths of
// common phones and tablets, where the height is then exact: between two measured widths a
// rule holds from the lower one up, and an element's height steps as its lines wrap.
const DEVICES = [360, 375, 390, 393, 412, 414, 428, 430, 768, 810, 820, 834, 1024];
export const WIDTHS = [...new Set([...Array.from({ length: 24 }, (_, i) => 320 + 40 * i), 1280, ...DEVICES])].sort((a, b) => a - b);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Chromium through playwright-core, or null when either is missing here.
async function launch(chromiumPath) {
  if (!existsSync(chromiumPath)) return null;
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ARGS });
}

/**
 * The live height (border box, CSS px) of every <kv-calc> of each page (paths under base,
 * an http:// address serving the built site), at each of WIDTHS: [{ file, selector, heights:
 * { [width]: px } }], or null when there is no Chromium or playwright-core here. An element's
 * selector is its id, else its data-kvcalc-box (reserveSite() writes it), else its parent's id.
 */
export async function measureLiveHeights(base, files, { chromium = '/usr/bin/chromium' } = {}) {
  const browser = await launch(chromium);
  if (!browser) return null;
  const widest = WIDTHS[WIDTHS.length - 1];
  const out = [];
  try {
    for (const file of files) {
      const page = await browser.newPage({ viewport: { width: widest, height: 900 }, locale: 'en-US', reducedMotion: 'reduce' });
      await page.goto(`${base}/${file}`);
      // Each element, brought near the viewport, goes live.
      const selectors = await page.evaluate(async () => {
        await customElements.whenDefined('kv-calc');
        const found = [];
        for (const el of document.querySelectorAll('kv-calc')) {
          el.scrollIntoView();
          await el.updateComplete;
          found.push(el.id ? `kv-calc#${el.id}` : el.dataset.kvcalcBox ? `kv-calc[data-kvcalc-box="${el.dataset.kvcalcBox}"]`
            : el.parentElement.id ? `#${el.parentElement.id} > kv-calc` : null);
        }
        return found;
      });
      const missing = selectors.indexOf(null);
      if (missing >= 0) throw new Error(`${file}: its <kv-calc> number ${missing + 1} has no id, nor has its parent: the reserved space needs one`);
      const heights = selectors.map(() => ({}));
      for (const width of [...WIDTHS].reverse()) {
        await page.setViewportSize({ width, height: 900 });
        // Two frames: the charts redraw at their new width (ResizeObserver), then lay out.
        const hs = await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() =>
          ok([...document.querySelectorAll('kv-calc')].map((el) => Math.round(el.getBoundingClientRect().height * 100) / 100))))));
        hs.forEach((h, i) => { heights[i][width] = h; });
      }
      selectors.forEach((selector, i) => out.push({ file, selector, heights: heights[i] }));
      await page.close();
    }
  } finally {
    await browser.close();
  }
  const seen = new Map();
  for (const { file, selector } of out) {
    if (seen.has(selector)) throw new Error(`${selector} is on ${seen.get(selector)} and ${file}: the reserved space needs site-wide unique ids`);
    seen.set(selector, file);
  }
  return out;
}

/**
 * The style sheet text that reserves the measured heights: for each width, the rules whose
 * height differs from the one below it.
 */
export function reserveCss(measured) {
  const blocks = [];
  WIDTHS.forEach((width, w) => {
    const rules = measured.filter((m) => w === 0 || m.heights[width] !== m.heights[WIDTHS[w - 1]])
      .map((m) => `  ${m.selector}:not(:state(live)) { min-height: ${m.heights[width]}px; }`);
    if (!rules.length) return;
    const query = w === 0 ? '(scripting: enabled)' : `(scripting: enabled) and (min-width: ${width}px)`;
    blocks.push(`@media ${query} {\n${rules.join('\n')}\n}`);
  });
  const selectors = measured.map((m) => `  ${m.selector}:not(:state(live))`).join(',\n');
  return `
/* Generated when the site is built (kvcalc's reserve.mjs): each element's fallback keeps
   the height its live element will have at this width, so the page does not move when it
   goes live. */
@media (scripting: enabled) {
${selectors} { display: block; box-sizing: border-box; }
}
${blocks.join('\n')}
`;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
};

// A static server of a built folder on 127.0.0.1 (wasm as application/wasm), for measuring.
function serveFolder(root) {
  const server = createServer(async (req, res) => {
    let file = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname)));
    if (file !== root && !file.startsWith(root + sep)) return res.writeHead(403).end();
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

/** The reservation style sheet's name, at the root of the site. */
export const RESERVE_CSS = 'kvcalc-reserve.css';
const LINK = /<link\b[^>]*\bdata-kvcalc-reserve\b[^>]*>\n?/i;
const OPEN = /<kv-calc\b([^>]*)>/gi;

// A page with each <kv-calc> marked data-kvcalc-box (unique in the site: the page's path and
// the element's place in it) and the reservation style sheet linked from its head.
function markPage(html, rel) {
  const page = createHash('sha256').update(rel).digest('hex').slice(0, 8);
  let n = 0;
  const marked = html.replace(OPEN, (whole, attrs) => {
    n += 1;
    const box = `${page}-${n}`;
    const rest = attrs.replace(/\s+data-kvcalc-box\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/i, '');
    return `<kv-calc${rest.replace(/\s*\/?$/, '')} data-kvcalc-box="${box}">`;
  });
  if (!n) return { html, count: 0 };
  const href = relative(dirname(rel), RESERVE_CSS).split(sep).join('/');
  const link = `<link rel="stylesheet" href="${href}" data-kvcalc-reserve>\n`;
  const without = marked.replace(LINK, '');
  const head = /<\/head\s*>/i.exec(without);
  return { html: head ? without.slice(0, head.index) + link + without.slice(head.index) : link + without, count: n };
}

/**
 * Reserves the live elements' heights on a built site (a folder: its root gets
 * kvcalc-reserve.css; or one HTML file, beside it): marks every <kv-calc> with
 * data-kvcalc-box, links the style sheet from each page's head, measures the live heights in
 * headless Chromium and writes them. Resolves to { files, count, css }; rejects when there
 * is no Chromium or playwright-core to measure with (the pages are then left as they were).
 * @param {string} path
 * @param {{chromium?: string}} [options]
 */
export async function reserveSite(path, { chromium = '/usr/bin/chromium' } = {}) {
  const root = resolve(statSync(path).isFile() ? dirname(path) : path);
  const files = htmlFiles(path).map((f) => relative(root, resolve(f)));
  const pages = files.map((rel) => ({ rel, ...markPage(readFileSync(join(root, rel), 'utf8'), rel) })).filter((p) => p.count);
  if (!existsSync(chromium)) throw new Error(`no Chromium at ${chromium} to measure the live elements with (--chromium PATH)`);
  const server = await serveFolder(root);
  let measured;
  const old = new Map(pages.map((p) => [p.rel, readFileSync(join(root, p.rel), 'utf8')]));
  try {
    for (const p of pages) writeWhole(join(root, p.rel), p.html);
    measured = await measureLiveHeights(`http://127.0.0.1:${server.address().port}`,
      pages.map((p) => p.rel.split(sep).join('/')), { chromium });
    if (!measured) throw new Error('playwright-core is not installed here: it is needed to measure the live elements (npm install -D playwright-core)');
  } catch (e) {
    for (const [rel, html] of old) writeWhole(join(root, rel), html);
    throw e;
  } finally {
    await new Promise((ok) => server.close(ok));
  }
  const css = join(root, RESERVE_CSS);
  writeFileSync(css, reserveCss(measured));
  return { files: pages.length, count: measured.length, css };
}
