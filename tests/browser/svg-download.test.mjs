// The chart's "Download SVG" button: a keyboard-reachable, labelled button that saves the
// figure kv.svg() draws for the element's current inputs, made in the page (no request),
// under the strict CSP; the file is well-formed SVG with the figures in <title> and <desc>.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startBrowser, openPage, waitForWidgets, problems, CLEAN } from './harness.mjs';

let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

test('Download SVG saves kv.svg() of the element\'s inputs, from the keyboard, with no request', async () => {
  const { page, log } = await openPage(env, '/formula.html');
  await waitForWidgets(page);
  const button = page.locator('#qwen').locator('button.download');
  assert.equal(await button.textContent(), 'Download SVG');
  // The reader changes the KV dtype first: the file follows the element's state.
  await page.$eval('#qwen', (el) => el.setAttribute('kv-dtype', 'fp8'));
  await page.$eval('#qwen', (el) => el.updateComplete);
  const requests = log.requests.length;
  await button.focus();
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  assert.equal(download.suggestedFilename(), 'kvcalc-Qwen-Qwen2.5-7B-Instruct.svg');
  const saved = readFileSync(await download.path(), 'utf8');
  const expected = await page.evaluate(async () => {
    const { load } = await import('/dist/kvcalc.js');
    return (await load()).svg('Qwen/Qwen2.5-7B-Instruct', { context: 32768, kvDtype: 'fp8' });
  });
  assert.equal(saved, expected);
  // 28 x 4 x 128 x 2 x 1 B (fp8) = 28,672 B per token; x 32,768 = 896 MiB.
  assert.match(saved, /fp8: 28,672 B per token: 896 MiB at 32,768 tokens/);
  // Parsed as SVG by the browser (in a blank page: the test's parse is not the element's
  // page, whose CSP would refuse the file's <style> there): no parser error, the title and
  // description as written.
  const blank = await env.context.newPage();
  const parsed = await blank.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { error: doc.querySelector('parsererror')?.textContent ?? null, root: doc.documentElement.localName,
      title: doc.querySelector('title').textContent, desc: doc.querySelector('desc').textContent };
  }, saved);
  await blank.close();
  assert.equal(parsed.error, null);
  assert.equal(parsed.root, 'svg');
  assert.equal(parsed.title, 'KV cache memory against context for Qwen/Qwen2.5-7B-Instruct');
  assert.match(parsed.desc, /28,672 B per token/);
  // One request: the figure's code (svg.js, fetched when first asked for); the file is a blob.
  assert.deepEqual(log.requests.slice(requests).filter((u) => !u.startsWith('blob:')), [`${env.base}/dist/svg.js`]);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('the GQA view\'s Download SVG saves kv.svg() with chart \'gqa\' for the element\'s inputs', async () => {
  const { page, log } = await openPage(env, '/gqa.html');
  await waitForWidgets(page);
  // The same part names as the chart's button.
  const button = page.locator('#gqa').locator('.gqa button[part="button download"]');
  assert.equal(await button.textContent(), 'Download SVG');
  await page.$eval('#gqa', (el) => el.setAttribute('context', '4096'));
  await page.$eval('#gqa', (el) => el.updateComplete);
  const requests = log.requests.length;
  await button.focus();
  const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  assert.equal(download.suggestedFilename(), 'kvcalc-Qwen-Qwen2.5-7B-Instruct.svg');
  const saved = readFileSync(await download.path(), 'utf8');
  const expected = await page.evaluate(async () => {
    const { load } = await import('/dist/kvcalc.js');
    return (await load()).svg('Qwen/Qwen2.5-7B-Instruct', { context: 4096, chart: 'gqa' });
  });
  assert.equal(saved, expected);
  // 4 KV heads: 28 x 4 x 128 x 2 x 2 B = 57,344 B per token; x 4,096 = 224 MiB; MHA (28) 1.53 GiB.
  assert.match(saved, /4 KV heads \(GQA, configured\): 57,344 B per token, 224 MiB, 0\.14x of MHA/);
  assert.match(saved, /<title id="kvcalc-title">Qwen\/Qwen2\.5-7B-Instruct: KV cache at 4,096 tokens for each KV-head count/);
  assert.deepEqual(log.requests.slice(requests).filter((u) => !u.startsWith('blob:')), [`${env.base}/dist/svg.js`]);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});
