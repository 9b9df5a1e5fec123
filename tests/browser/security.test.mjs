// Hostile strings in configs, attributes and the URL hash render as text and never run;
// no page breaks the strict CSP; the widget requests nothing but the page's own files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, waitForWidgets, shadowText, problems, CLEAN, foreignRequests, CSP, DIST, PAGES as PAGES_DIR } from './harness.mjs';
import { startServer } from '../../scripts/serve.mjs';

const PAGES = ['/formula.html', '/table.html', '/gqa.html', '/check.html', '/all.html', '/inline.html',
  '/lang-de.html', '/bad.html', '/many.html', '/xss.html', '/theme.html'];
const OWN_FILES = ['/dist/', '/favicon.svg', '/page.css', '/theme.css'];

// One browser for the file (a launch costs more than the pages of a test); the lenient test
// serves the same files from a server of its own, under its own policy.
let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

// What injected markup would leave behind in any shadow root.
function injected(page) {
  return page.evaluate(() => {
    const found = [];
    for (const el of document.querySelectorAll('kv-calc')) {
      for (const n of el.shadowRoot.querySelectorAll('*')) {
        if (['img', 'b', 'script', 'iframe'].includes(n.localName)) found.push(`${el.id}: <${n.localName}>`);
        if (n.localName === 'svg' && n.hasAttribute('onload')) found.push(`${el.id}: <svg onload>`);
        for (const a of n.getAttributeNames()) if (a.startsWith('on')) found.push(`${el.id}: ${n.localName}[${a}]`);
      }
    }
    return found;
  });
}

async function checkHostilePage(env, path) {
  const { page, log } = await openPage(env, path);
  await waitForWidgets(page);
  await page.waitForTimeout(50);  // give any injected handler its chance to run
  assert.deepEqual(await page.evaluate(() => window.__xss), []);
  assert.deepEqual(await injected(page), []);
  // the config's name shows literally, as text
  assert.equal(await shadowText(page, '#xss-inline', '.model-name'), "<img src=x onerror=window.__xss.push('inline-name')>");
  const tableText = await shadowText(page, '#xss-inline', '.table');
  assert.ok(tableText.includes("<img src=x onerror=window.__xss.push('inline-name')>"));
  // hostile attributes come back in the error text, literally
  const err = await shadowText(page, '#xss-attrs', '[part="error"]');
  assert.ok(err.includes('context: expected a whole number of tokens'), err);
  assert.ok(err.includes('<img src=x onerror=window.__xss.push("context-attr")>'), err);
  assert.ok(err.includes('"><img src=x onerror=window.__xss.push("model-attr")>'), err);
  const rows = await shadowText(page, '#xss-attrs', '.table tbody');
  assert.ok(rows.includes('<img/src=x/onerror=window.__xss.push("models-attr")>'), rows);
  assert.deepEqual(foreignRequests(env, log, [path, ...OWN_FILES]), []);
  return { page, log };
}

test('XSS payloads in configs and attributes render as text (strict CSP)', async () => {
  const { page, log } = await checkHostilePage(env, '/xss.html');
  assert.deepEqual(await problems(page, log), CLEAN);

  // a pasted config and the URL hash carry payloads too
  await page.locator('#xss-inline summary', { hasText: 'Use your own config.json' }).click();
  await page.locator('#xss-inline textarea[name=config]').fill(JSON.stringify({
    _name_or_path: '<iframe src=javascript:window.__xss.push(9)></iframe>', num_hidden_layers: 2,
    num_attention_heads: 4, hidden_size: 256,
  }));
  await page.locator('#xss-inline button', { hasText: 'Use this config' }).click();
  assert.equal(await shadowText(page, '#xss-inline', '.model-name'), '<iframe src=javascript:window.__xss.push(9)></iframe>');
  const { page: hashed, log: hashLog } = await openPage(env,
    `/formula.html#qwen.model=${encodeURIComponent('<img src=x onerror=window.__xss.push(7)>')}` +
    `&qwen.context=${encodeURIComponent('<svg onload=window.__xss.push(8)>')}`);
  await waitForWidgets(hashed);
  assert.ok((await shadowText(hashed, '#qwen', '[part="error"]')).includes('<img src=x onerror=window.__xss.push(7)>'));
  assert.deepEqual(await hashed.evaluate(() => window.__xss), []);
  assert.deepEqual(await injected(hashed), []);
  assert.deepEqual(await problems(hashed, hashLog), CLEAN);
  await hashed.close();
  assert.deepEqual(await page.evaluate(() => window.__xss), []);
  assert.deepEqual(await injected(page), []);
  await page.close();
});

test('XSS payloads stay inert even where the CSP would let inline handlers run', async () => {
  // If any payload became markup, its handler would run under this policy and be seen.
  const lenient = "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; img-src * data:; style-src 'self' 'unsafe-inline'";
  const server = await startServer({ mounts: [['/', PAGES_DIR], ['/dist/', DIST]], csp: lenient });
  try {
    const { page } = await checkHostilePage({ ...env, base: `http://127.0.0.1:${server.address().port}` }, '/xss.html');
    await page.close();
  } finally {
    await new Promise((ok) => server.close(ok));
  }
});

test('every fixture page: zero CSP violations, zero errors, zero foreign requests', async () => {
  for (const path of PAGES) {
    const { page, log } = await openPage(env, path);
    await waitForWidgets(page);
    const p = await problems(page, log);
    assert.deepEqual(p.csp, [], `${path} CSP`);
    assert.deepEqual(p.pageErrors, [], `${path} page errors`);
    assert.deepEqual(p.consoleErrors, [], `${path} console errors`);
    assert.deepEqual(foreignRequests(env, log, [path, ...OWN_FILES]), [], `${path} requests`);
    // the policy really was the strict one
    const response = await page.request.get(env.base + path);
    assert.equal(response.headers()['content-security-policy'], CSP);
    await page.close();
  }
});
