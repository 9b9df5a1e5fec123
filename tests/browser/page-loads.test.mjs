// What a page loads for its <kv-calc> elements is what scripts/page-loads.mjs says (and what
// build-dist's budget figures count): kvcalc.js with its chunks, the views' own code, and
// the one wasm module. A view that changes loads its code then (never a second module), and
// the page keeps working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN, DIST } from './harness.mjs';
import { pageLoads } from '../../scripts/page-loads.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const { views } = pageLoads(DIST);
const distRequests = (env, log) => [...new Set(log.requests
  .filter((u) => u.startsWith(`${env.base}/dist/`))
  .map((u) => u.slice(`${env.base}/dist/`.length).replace(/[?#].*$/, '')))].sort();

for (const [path, view] of [['/formula.html', 'formula'], ['/many.html', 'formula'], ['/gqa.html', 'gqa'],
  ['/table.html', 'table'], ['/check.html', 'check'], ['/all.html', 'all']]) {
  test(`${path} loads exactly the files of view=${view}, and one wasm instance`, async () => {
    const { page, log } = await openPage(env, path);
    await waitForWidgets(page);
    assert.deepEqual(distRequests(env, log), [...views[view].files].sort());
    assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
    assert.deepEqual(await problems(page, log), CLEAN);
    await page.close();
  });
}

// Changes the element `id` to the check view of `model` (its own when null) against the outage's
// figures, and resolves to its check result once every element has rendered again.
async function switchToCheck(page, id, model) {
  await page.$eval(`#${id}`, (el, m) => {
    if (m) el.setAttribute('model', m);
    el.setAttribute('pool-tokens', '681280');
    el.setAttribute('max-context', '1048576');
    el.setAttribute('view', 'check');
  }, model);
  await page.waitForFunction((i) => document.getElementById(i).checkResult !== null, id);
  await waitForWidgets(page);
  return page.$eval(`#${id}`, (el) => el.checkResult);
}

test('a formula view changed to the check view loads the check view\'s code, and no second module', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  assert.ok(!distRequests(env, log).includes('check-view.js'));
  const check = await switchToCheck(page, 'qwen', null);
  // 1,048,576 advertised tokens on a 681,280-token pool: 681,280 / 1,048,576 = 0.65x, no fit.
  assert.equal(check.fits, false);
  assert.equal(check.maxConcurrency, 0.65);
  assert.match(await shadowText(page, '#qwen', '[role="status"]'), /does not fit/i);
  assert.deepEqual(distRequests(env, log), [...new Set([...views.formula.files, ...views.check.files])].sort());
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
  // Another element goes on working on the same instance:
  // DeepSeek-V3 at 65,536 tokens: 61 layers x 576 latent x 2 B = 70,272 B per token; x 65,536 = 4,605,345,792 B.
  await page.$eval('#deepseek', (el) => el.setAttribute('context', '65536'));
  await waitForWidgets(page);
  assert.match(await shadowText(page, '#deepseek', '.formula'), /4,605,345,792/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('a table view changed to the check view loads the check view\'s code, and no second module', async () => {
  const { page, log } = await openPage(env, '/table.html');
  await waitForWidgets(page);
  const check = await switchToCheck(page, 'some', 'Qwen/Qwen3-8B');
  // Qwen3-8B, 1,048,576 advertised tokens on a 681,280-token pool: 0.65x, no fit.
  assert.equal(check.maxConcurrency, 0.65);
  assert.deepEqual(distRequests(env, log), [...new Set([...views.table.files, ...views.check.files])].sort());
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
  // The other table answers on the same instance:
  // Mistral-7B at 4096 tokens: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B per token; x 4096 = 512 MiB.
  await page.$eval('#presets', (el) => el.setAttribute('models', 'mistralai/Mistral-7B-v0.1'));
  await waitForWidgets(page);
  assert.match(await shadowText(page, '#presets', 'table'), /512 MiB/);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('a view file that does not arrive is named in every element\'s alert, and the fallback stays', async () => {
  // A site that copied kvcalc.js and the wasm but not the views' files: formula-view.js fails.
  const page = await env.context.newPage();
  await page.route('**/dist/formula-view.js', (route) => route.abort());
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${env.base}/formula.html`);
  await waitForWidgets(page);
  const alerts = await page.$$eval('kv-calc', (els) => els.map((el) => el.shadowRoot.querySelector('[role="alert"]')?.textContent));
  assert.equal(alerts.length, 4);
  for (const text of alerts) assert.match(text, /^kvcalc could not load: .*\/dist\/formula-view\.js$/);
  // The light-DOM fallback is still shown through the slot.
  assert.match(await page.locator('#qwen').innerText(), /Qwen2.5-7B-Instruct keeps 57,344 bytes of KV cache per token/);
  assert.equal(await page.$eval('#qwen', (el) => el.shadowRoot.querySelectorAll('slot').length), 1);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

// Scrolls #id into view and waits until it has drawn every section.
async function scrollTo(page, id) {
  await page.$eval(`#${id}`, async (el) => {
    el.scrollIntoView({ block: 'center' });
    await el.updateComplete;
  });
}

test('a lazy page fetches kvcalc.js alone until an element nears the viewport, then the module once', async () => {
  const { beforeViewport, beforeViewportBaked } = pageLoads(DIST);
  assert.deepEqual(beforeViewport.files, ['kvcalc.js']);
  assert.ok(beforeViewport.gzip <= 8 * 1024, `kvcalc.js is ${beforeViewport.gzip} B gzip`);
  // A baked page also needs the element's style sheet at first paint: within the same budget.
  assert.deepEqual(beforeViewportBaked.files, ['kvcalc.js', 'kvcalc.css']);
  assert.ok(beforeViewportBaked.gzip <= 8 * 1024, `kvcalc.js and kvcalc.css are ${beforeViewportBaked.gzip} B gzip`);
  const { page, log } = await openPage(env, '/lazy.html');
  await page.waitForFunction(() => customElements.get('kv-calc'));
  await page.waitForLoadState('networkidle');
  // Three screens of text above the first element: nothing but the entry module, no wasm.
  assert.deepEqual(distRequests(env, log), ['kvcalc.js']);
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 0);
  assert.equal(await page.$eval('#formula', (el) => el.result), null);
  // The fallback is on screen, the element not live.
  assert.equal(await page.$eval('#formula', (el) => el.matches(':state(live)')), false);
  assert.match(await page.locator('#formula').innerText(), /131,072 bytes of KV cache per token/);

  await scrollTo(page, 'formula');
  assert.deepEqual(distRequests(env, log), [...views.formula.files].sort());
  assert.equal(log.requests.filter((u) => u.endsWith('/kvcalc_core.wasm')).length, 1);
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
  // Mistral-7B at 4,096 tokens: 32 layers x 2 x 8 KV heads x 128 x 2 B = 131,072 B per token; x 4096 = 536,870,912 B.
  assert.equal(await page.$eval('#formula', (el) => el.result.kvBytes), 536_870_912);
  assert.equal(await page.$eval('#formula', (el) => el.matches(':state(live)')), true);
  assert.equal(await page.$eval('#table', (el) => el.result), null);  // still three screens further down

  await scrollTo(page, 'table');
  // The table view's code, and nothing else: the module is the one already there.
  assert.deepEqual(distRequests(env, log), [...new Set([...views.formula.files, ...views.table.files])].sort());
  assert.equal(log.requests.filter((u) => u.endsWith('/kvcalc_core.wasm')).length, 1);
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
  // Qwen3-8B at 4,096 tokens: 36 layers x 2 x 8 KV heads x 128 x 2 B = 147,456 B per token; x 4096 = 603,979,776 B.
  assert.equal(await page.$eval('#table', (el) => el.result.kvBytes), 603_979_776);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('loading="eager" fetches at once, three screens down; its lazy neighbour waits', async () => {
  const { page, log } = await openPage(env, '/eager.html');
  await page.waitForFunction(() => document.getElementById('formula').result !== null);
  await page.$eval('#formula', (el) => el.updateComplete);
  assert.equal(await page.evaluate(() => scrollY), 0);
  assert.deepEqual(distRequests(env, log), [...views.formula.files].sort());
  // Mistral-7B at 4,096 tokens: 131,072 B per token x 4096 = 536,870,912 B.
  assert.equal(await page.$eval('#formula', (el) => el.result.kvBytes), 536_870_912);
  assert.equal(await page.$eval('#table', (el) => el.result), null);
  // Switched to eager, the other one goes live where it is.
  await page.$eval('#table', async (el) => {
    el.loading = 'eager';
    await el.updateComplete;
  });
  assert.equal(await page.evaluate(() => scrollY), 0);
  assert.equal(await page.$eval('#table', (el) => el.result.kvBytes), 603_979_776);
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
  // A value that is neither is reported by the live element, as any bad attribute is.
  const error = await page.$eval('#table', async (el) => {
    el.setAttribute('loading', 'soon');
    await el.updateComplete;
    return { text: el.shadowRoot.querySelector('[part~="error"]').textContent, prop: el.loading };
  });
  assert.deepEqual(error, { text: 'loading: must be one of lazy, eager, got "soon"', prop: null });
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('a server that sends the wasm as application/octet-stream: it is fetched again whole, and the page works', async () => {
  const page = await env.context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  let served = 0;
  await page.route('**/dist/kvcalc_core.wasm', async (route) => {
    served += 1;
    const response = await route.fetch();
    await route.fulfill({ response, headers: { ...response.headers(), 'content-type': 'application/octet-stream' } });
  });
  await page.goto(`${env.base}/formula.html`);
  await waitForWidgets(page);
  // Streaming compilation refuses the type; the whole file, fetched again, compiles.
  assert.equal(served, 2);
  // Qwen2.5-7B-Instruct at 32,768 tokens: 57,344 B per token x 32,768 = 1,879,048,192 B.
  assert.equal(await page.$eval('#qwen', (el) => el.result.kvBytes), 1_879_048_192);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('a wasm file that is not there is named in every element\'s alert, and the fallback stays', async () => {
  const page = await env.context.newPage();
  await page.route('**/dist/kvcalc_core.wasm', (route) => route.fulfill({ status: 404, body: 'not found' }));
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(`${env.base}/formula.html`);
  await waitForWidgets(page);
  const alerts = await page.$$eval('kv-calc', (els) => els.map((el) => el.shadowRoot.querySelector('[role="alert"]')?.textContent));
  assert.deepEqual(alerts, Array(4).fill(`kvcalc could not load: kvcalc: could not load the wasm module: ${env.base}/dist/kvcalc_core.wasm: HTTP 404`));
  assert.match(await page.locator('#qwen').innerText(), /Qwen2.5-7B-Instruct keeps 57,344 bytes of KV cache per token/);
  assert.equal(await page.$eval('#qwen', (el) => el.matches(':state(live)')), false);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

// Each dist/ file's request, from Playwright's timings: [{ file, start, end }] in ms since
// the epoch (the request's start, its response's end).
function timeRequests(page) {
  const seen = [];
  page.on('requestfinished', (r) => {
    if (!r.url().includes('/dist/')) return;
    const t = r.timing();
    seen.push({ file: r.url().replace(/^.*\/dist\//, ''), start: t.startTime, end: t.startTime + t.responseEnd });
  });
  return seen;
}

test('no waterfall: once an element is seen, the wasm and every file of its view are asked for before any of them arrives', async () => {
  for (const [path, id, view] of [['/lazy.html', 'formula', 'formula'], ['/all.html', 'all', 'all']]) {
    const page = await env.context.newPage();
    const timed = timeRequests(page);
    await page.goto(env.base + path);
    await page.waitForFunction(() => customElements.get('kv-calc'));
    await page.$eval(`#${id}`, async (el) => {
      el.scrollIntoView({ block: 'center' });
      await el.updateComplete;
    });
    const after = timed.filter((r) => r.file !== 'kvcalc.js');
    // One round trip from "seen" to every file: each request (the wasm's streaming compile
    // among them) starts before the first response of the lot has ended.
    assert.deepEqual(after.map((r) => r.file).sort(), views[view].files.filter((f) => f !== 'kvcalc.js').sort());
    const firstEnd = Math.min(...after.map((r) => r.end));
    for (const r of after) assert.ok(r.start < firstEnd, `${path}: ${r.file} was asked for ${(r.start - firstEnd).toFixed(1)} ms after a file of the view arrived`);
    await page.close();
  }
});

test('an element above the fold, preloaded as web/README.md says: each file fetched once, the preload used, under the CSP', async () => {
  const { page, log } = await openPage(env, '/preload.html');
  const warnings = [];
  page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await waitForWidgets(page);
  // Qwen2.5-7B-Instruct at 32,768 tokens: 28 layers x 2 x 4 KV heads x 128 x 2 B = 57,344 B per token; x 32,768 = 1,879,048,192 B.
  assert.equal(await page.$eval('#qwen', (el) => el.result.kvBytes), 1_879_048_192);
  const dist = log.requests.filter((u) => u.startsWith(`${env.base}/dist/`));
  // Every file once: the module preloads fill the module map that import() reads, and the
  // element's fetch() of the wasm (mode cors, same-origin credentials) takes the
  // as="fetch" crossorigin preload.
  assert.deepEqual(dist.map((u) => u.slice(`${env.base}/dist/`.length)).sort(), [...views.formula.files].sort());
  assert.equal(await page.evaluate(() => window.__wasmInstantiations), 1);
  // Chromium warns of a preload not used within seconds, or not matched: none here.
  await page.waitForTimeout(3500);
  assert.deepEqual(warnings.filter((w) => /preload/i.test(w)), []);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
