// A model that is not bundled, sized from its Hugging Face id: against a local stand-in for the
// Hub (tests/hub-server.mjs: the Hub's URL layout, its refusals, its redirect of large files to
// a storage origin that answers Range requests), in Chromium. Typing an id offers the fetch with
// its address and asks nothing of the network; the offer fetches and sizes the config as a
// pasted one; a repository of GGUF files is listed and the chosen file's metadata read by
// Range requests, the bytes counted; every failure says what to do, and the model and figures
// stay as they were. The pages run under the strict policy with connect-src for the two
// origins (what web/README.md tells an author to add), or under the strict policy alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, waitForWidgets, problems, axeViolations, CLEAN, CSP, ROOT, PAGES, DIST } from './harness.mjs';
import { startServer, HUB_CSP } from '../../scripts/serve.mjs';
import { startHub } from '../hub-server.mjs';
import { expectedFixtures } from '../expected/expected.mjs';
import { readDescription, writeGguf } from '../gguf/write-gguf.mjs';

const GiB = 1024 ** 3;
const fixture = (name) => readFileSync(join(ROOT, 'tests/fixtures/configs', name), 'utf8');
const NEMO = 'mistralai--Mistral-Nemo-Instruct-2407.json';
const nemo = expectedFixtures().find((f) => f.path.endsWith(NEMO));
// The Llama 3 8B test file that tests/gguf/write-gguf.mjs writes from its published metadata
// (8,330,772 B of it, with the tokenizer's arrays), the first bytes of a larger file.
const llama = writeGguf(readDescription('llama-3-8b-instruct'));

let env, hub;
const servers = {};   // the test pages under other policies: strict (no Hub), hub-only (no storage)

before(async () => {
  hub = await startHub({
    repos: {
      // Real published configs (tests/fixtures/configs, with their sources in SOURCES.md).
      'mistralai/Mistral-Nemo-Instruct-2407': { files: { 'config.json': fixture(NEMO), 'README.md': '# Mistral Nemo' } },
      'meta-llama/Llama-3.2-90B-Vision-Instruct': { gated: true, files: { 'config.json': fixture('meta-llama--Llama-3.2-90B-Vision-Instruct.json') } },
      // Written for the failures: a sign-in page where the config should be, a 2 MiB
      // config, one that never comes, one redirected to another origin.
      'test-org/login-page': { files: { 'config.json': { html: '<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>' } } },
      'test-org/readme-only': { files: { 'README.md': '# Nothing to size' } },
      'test-org/huge-config': { files: { 'config.json': `{"pad": "${'x'.repeat(2 * 1024 * 1024)}"}` } },
      'test-org/slow': { files: { 'config.json': { hang: true } } },
      'test-org/moved': { files: { 'config.json': { redirect: true } } },
      // GGUF repositories (written: a file of the Llama 3 8B test metadata, 8 GiB long; a
      // split model whose first part holds it), one on a storage that ignores Range.
      'test-org/Llama-3-8B-Instruct-GGUF': {
        files: {
          'README.md': '# GGUF',
          'Llama-3-8B-Instruct-Q4_K_M.gguf': { gguf: llama, size: 8 * GiB },
          'Llama-3-8B-Instruct-Q8_0-00001-of-00002.gguf': { gguf: llama, size: 5 * GiB },
          'Llama-3-8B-Instruct-Q8_0-00002-of-00002.gguf': { gguf: Buffer.alloc(0), size: 3 * GiB },
        },
      },
      'test-org/no-range-GGUF': { noRange: true, files: { 'model.gguf': { gguf: llama, size: 8 * GiB } } },
    },
  });
  // The policy web/README.md and the site's embedding page give an author (the site serves
  // itself with it: scripts/serve.mjs HUB_CSP), the local Hub and storage in place of
  // huggingface.co and its *.hf.co storage hosts.
  const snippet = readFileSync(join(ROOT, 'site/snippets/csp-hub.txt'), 'utf8').trim();
  assert.equal(snippet, `Content-Security-Policy: ${HUB_CSP}`);
  assert.ok(readFileSync(join(ROOT, 'web/README.md'), 'utf8').includes(snippet));
  env = await startBrowser({ csp: HUB_CSP.replace('https://huggingface.co', hub.endpoint).replace('https://*.hf.co', hub.storage), axe: true });
  // The same pages under the strict policy alone (connect-src 'self', from default-src), as a
  // site that did not add the Hub, and with the Hub but not its storage.
  for (const [name, csp] of [['strict', CSP], ['hub-only', `${CSP}; connect-src 'self' ${hub.endpoint}`]]) {
    servers[name] = await startServer({ mounts: [['/', PAGES], ['/dist/', DIST]], csp });
  }
});
after(async () => {
  await env?.close();
  await hub?.close();
  await Promise.all(Object.values(servers).map((s) => new Promise((ok) => s.close(ok))));
});

// The formula page (served under another policy: strict, hub-only), its first element pointed
// at the local Hub, live with its presets listed.
async function openHubPage(policy = null) {
  const base = policy ? `http://127.0.0.1:${servers[policy].address().port}` : env.base;
  const { page, log } = await openPage({ ...env, base }, '/formula.html');
  await waitForWidgets(page, '#qwen');
  await page.$eval('#qwen', (el, endpoint) => el.setAttribute('hub-endpoint', endpoint), hub.endpoint);
  await page.waitForFunction(() => document.querySelector('#qwen').shadowRoot.querySelectorAll('select[name=model] option').length > 20);
  return { page, log };
}

const search = (page) => page.locator('#qwen input[name=model-search]');
const offer = (page) => page.locator('#qwen [part~="hub"]');
const hubRequests = () => hub.requests.length;
const said = (page) => page.$eval('#qwen', (el) => {
  const o = el.shadowRoot.querySelector('[part~="hub"]');
  return { status: o.querySelector('[role=status]').textContent, error: o.querySelector('[part~="hub-error"]').textContent };
});
// What the page shows of the model: it must not change on a failure.
const shown = (page) => page.$eval('#qwen', async (el) => {
  await el.updateComplete;
  return { kvBytes: el.result.kvBytes, model: el.result.model, select: el.shadowRoot.querySelector('select[name=model]').value,
    header: el.shadowRoot.querySelector('[part~="model-name"]').textContent };
});
// Waits until the offer says how it ended (an error, or a status other than "Fetching…").
const settled = (page) => page.waitForFunction(() => {
  const o = document.querySelector('#qwen').shadowRoot.querySelector('[part~="hub"]');
  return o.querySelector('[part~="hub-error"]').textContent || /^(Using|Not used|Cancelled|.* has (one|\d+) GGUF)/.test(o.querySelector('[role=status]').textContent);
}, null, { timeout: 20000 });

// Types an id, checks the offer and its address, uses it, and answers what it said.
async function fetchId(page, id, button = /^Fetch config\.json from Hugging Face$/) {
  await search(page).fill(id);
  await offer(page).getByRole('button', { name: button }).click();
  await settled(page);
  return said(page);
}

test('typing an id asks nothing of the network; the offer fetches config.json and sizes it as a pasted one', async () => {
  const before = hubRequests();
  const { page, log } = await openHubPage();
  // From page load through typing an id: no request to the Hub or its storage (the page's own
  // files only), and the offer shows the address it would fetch.
  await search(page).pressSequentially('mistralai/Mistral-Nemo-Instruct-2407');
  await assert.doesNotReject(offer(page).waitFor());
  assert.match(await offer(page).textContent(), new RegExp(`${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407/resolve/main/config\\.json`));
  assert.equal(hubRequests(), before);
  assert.deepEqual(log.requests.filter((u) => !u.startsWith(env.base)), []);
  assert.ok(!log.requests.some((u) => u.endsWith('/hub-panel.js')), 'the fetching code loads when the offer is used');

  // One action: the config is fetched (through the Hub's 307 to its cache) and sized.
  await offer(page).getByRole('button', { name: 'Fetch config.json from Hugging Face' }).click();
  await settled(page);
  const { status, error } = await said(page);
  assert.equal(error, '');
  assert.equal(status, `Using mistralai/Mistral-Nemo-Instruct-2407: ${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407/resolve/main/config.json`);
  // 2 (K and V) x 40 layers x 8 KV heads x 128 (head_dim) x 2 B (bfloat16) = 163,840 B a token.
  const r = await page.$eval('#qwen', (el) => ({ bytesPerToken: el.result.bytesPerToken, kvBytes: el.result.kvBytes, context: el.result.context }));
  assert.equal(r.bytesPerToken, nemo.bytesPerToken);
  assert.equal(r.bytesPerToken, 163840);
  assert.equal(r.kvBytes, 163840 * 32768);
  // The select lists it by its id, chosen; the requests were the config's two, nothing else.
  const select = await page.$eval('#qwen', (el) => { const s = el.shadowRoot.querySelector('select[name=model]'); return { value: s.value, text: s.selectedOptions[0].textContent }; });
  assert.deepEqual(select, { value: 'hf:mistralai/Mistral-Nemo-Instruct-2407', text: 'mistralai/Mistral-Nemo-Instruct-2407 (Hugging Face)' });
  assert.deepEqual(hub.requests.slice(before).map((q) => `${q.server} ${q.path}`), [
    'hub /mistralai/Mistral-Nemo-Instruct-2407/resolve/main/config.json',
    `hub /api/resolve-cache/models/mistralai/Mistral-Nemo-Instruct-2407/0123456789abcdef0123456789abcdef01234567/config.json`,
  ]);
  // Remembered for the page: chosen again after another model, with no request.
  await page.locator('#qwen select[name=model]').selectOption('Qwen/Qwen3-8B');
  await page.waitForFunction(() => document.querySelector('#qwen').result.model === 'Qwen/Qwen3-8B');
  const count = hubRequests();
  await page.locator('#qwen select[name=model]').selectOption('hf:mistralai/Mistral-Nemo-Instruct-2407');
  await page.waitForFunction(() => document.querySelector('#qwen').result.bytesPerToken === 163840);
  assert.equal(hubRequests(), count);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

test('hub="off" removes the offer; a bundled id and a text that names no model get none', async () => {
  const { page, log } = await openHubPage();
  await search(page).fill('google/gemma-2-9b-it');  // bundled: chosen by the search itself
  await page.waitForFunction(() => document.querySelector('#qwen').result.model === 'google/gemma-2-9b-it');
  assert.equal(await offer(page).isVisible(), false);
  await search(page).fill('llama');  // no OWNER/NAME
  assert.equal(await offer(page).isVisible(), false);
  await search(page).fill('mistralai/Mistral-Nemo-Instruct-2407');
  assert.equal(await offer(page).isVisible(), true);
  await page.$eval('#qwen', (el) => el.setAttribute('hub', 'off'));
  await page.waitForFunction(() => document.querySelector('#qwen').shadowRoot.querySelector('[part~="hub"]').hidden);
  // A hub-endpoint that is no http(s) address: said, and no offer (never the Hub in its place).
  await page.$eval('#qwen', (el) => { el.removeAttribute('hub'); el.setAttribute('hub-endpoint', 'ftp://mirror'); });
  await page.waitForFunction(() => document.querySelector('#qwen').shadowRoot.querySelector('[part~="error"]').textContent !== '');
  assert.equal(await page.$eval('#qwen', (el) => el.shadowRoot.querySelector('[part~="error"]').textContent),
    'hub-endpoint: expected the http(s) address of the Hub or a mirror (https://hf-mirror.com), got "ftp://mirror"');
  assert.equal(await offer(page).isVisible(), false);
  assert.equal(await page.$eval('#qwen', (el) => el.hubEndpoint), null);
  assert.deepEqual(await problems(page, log), CLEAN);
  await page.close();
});

// Each failure: its message, and the page as it was (model, figures, select).
async function failure(id, policy = null, button = undefined) {
  const { page, log } = await openHubPage(policy);
  const before = await shown(page);
  const r = await fetchId(page, id, button);
  assert.equal(r.status, 'Not used: the figures are still those of the model before.');
  assert.deepEqual(await shown(page), before);
  return { page, log, error: r.error };
}

test('gated (401): sign in on the Hub and paste the config (the offer used from the keyboard)', async () => {
  const id = 'meta-llama/Llama-3.2-90B-Vision-Instruct';
  const { page, log } = await openHubPage();
  const before = await shown(page);
  // Typed, then Tab to the offer and Enter: the offer is the next stop after the search.
  await search(page).fill(id);
  await search(page).press('Tab');
  assert.equal(await page.$eval('#qwen', (el) => el.shadowRoot.activeElement?.textContent), 'Fetch config.json from Hugging Face');
  await page.keyboard.press('Enter');
  await settled(page);
  const { error, status } = await said(page);
  assert.equal(status, 'Not used: the figures are still those of the model before.');
  assert.deepEqual(await shown(page), before);
  assert.equal(error, `${id} is gated: the Hub gives its files only to signed-in accounts that accepted its conditions at ${hub.endpoint}/${id}. ` +
    `Sign in on the Hub (${hub.endpoint}/${id}), download its config.json there and paste it in "Use your own config".`);
  // The 401 is the Hub's answer, seen by the browser: the test's only failed request.
  assert.deepEqual(log.failed, [`401 ${hub.endpoint}/${id}/resolve/main/config.json`]);
  assert.deepEqual((await problems(page, log)).csp, []);
  await page.close();
});

test('not found or private (401), a missing revision (404)', async () => {
  let { page, error } = await failure('nobody/no-such-model');
  assert.equal(error, `nobody/no-such-model: no such model on ${hub.endpoint}, or it is private (the Hub answers both alike to a client not signed in). ` +
    `Check the id (OWNER/NAME, as on its page); for a private model: sign in on the Hub (${hub.endpoint}/nobody/no-such-model), download its config.json there and paste it in "Use your own config".`);
  await page.close();
  ({ page, error } = await failure('mistralai/Mistral-Nemo-Instruct-2407@v9'));
  assert.equal(error, `mistralai/Mistral-Nemo-Instruct-2407 has no revision "v9" (a branch, tag or commit): check it on ${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407.`);
  await page.close();
});

test('a file the repository does not have (404), a repository with neither a config.json nor a GGUF file', async () => {
  let { page, error } = await failure('mistralai/Mistral-Nemo-Instruct-2407/sub/config.json', undefined, /^Fetch sub\/config\.json from Hugging Face$/);
  assert.equal(error, `${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407/resolve/main/sub/config.json: not found (404). Check the model id and the file's name on ${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407.`);
  await page.close();
  // Its README only: the config's 404 (EntryNotFound), then the file list.
  hub.requests.length = 0;
  ({ page, error } = await failure('test-org/readme-only'));
  assert.equal(error, `test-org/readme-only has neither a config.json nor any .gguf file at main: kvcalc sizes a model from one of those. Check the model on ${hub.endpoint}/test-org/readme-only.`);
  assert.deepEqual(hub.requests.map((q) => `${q.path}`), ['/test-org/readme-only/resolve/main/config.json', '/api/models/test-org/readme-only/revision/main?blobs=true']);
  await page.close();
});

test('offline: connect and try again, or paste the config (before and after the fetching code loaded)', async () => {
  const { page, log } = await openHubPage();
  const before = await shown(page);
  const offline = `You are offline: kvcalc could not reach ${hub.endpoint}. Connect and try again, or paste the model's config.json in "Use your own config".`;
  await env.context.setOffline(true);
  try {
    let r = await fetchId(page, 'mistralai/Mistral-Nemo-Instruct-2407');
    assert.deepEqual(r, { error: offline, status: 'Not used: the figures are still those of the model before.' });
    await env.context.setOffline(false);
    await fetchId(page, 'test-org/readme-only');  // the fetching code loads (and says there is nothing to size)
    await env.context.setOffline(true);
    r = await fetchId(page, 'mistralai/Mistral-Nemo-Instruct-2407');
    assert.deepEqual(r, { error: offline, status: 'Not used: the figures are still those of the model before.' });
  } finally {
    await env.context.setOffline(false);
  }
  assert.deepEqual(await shown(page), before);
  assert.deepEqual((await problems(page, log)).csp, []);
  await page.close();
});

test("a Content-Security-Policy without the Hub: detected, and the connect-src entries named", async () => {
  const count = hubRequests();
  const { page, log, error } = await failure('mistralai/Mistral-Nemo-Instruct-2407', 'strict');
  assert.equal(error, `This page's Content-Security-Policy does not let it connect to ${hub.endpoint}: its author can allow it by adding ${hub.endpoint} to connect-src. ` +
    `Until then, download ${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407/resolve/main/config.json and paste it in "Use your own config".`);
  // The browser refused it (the violation the element detected), and nothing reached the Hub.
  assert.deepEqual((await problems(page, log)).csp.map((v) => v.split(' ').slice(0, 2).join(' ')), [`connect-src ${hub.endpoint}/mistralai/Mistral-Nemo-Instruct-2407/resolve/main/config.json`]);
  assert.equal(hubRequests(), count);
  await page.close();
});

test('a redirect to another origin, a sign-in page in place of the config, a config over 1 MiB', async () => {
  let { page, error } = await failure('test-org/moved');
  assert.equal(error, `${hub.endpoint}/test-org/moved/resolve/main/config.json was redirected to ${hub.storage}, another origin: kvcalc reads a config.json and a file list only from the endpoint it names (${hub.endpoint}). ` +
    `Check the endpoint, or download ${hub.endpoint}/test-org/moved/resolve/main/config.json and paste it in "Use your own config".`);
  await page.close();
  ({ page, error } = await failure('test-org/login-page'));
  assert.equal(error, `${hub.endpoint}/test-org/login-page/resolve/main/config.json is not a JSON config: it starts "<!DOCTYPE html> <html><head><title>Sign " (text/html). ` +
    `The endpoint may have answered with a page of its own; download ${hub.endpoint}/test-org/login-page/resolve/main/config.json and paste it in "Use your own config".`);
  await page.close();
  ({ page, error } = await failure('test-org/huge-config'));
  // 2,097,163 B: the padding and the 11 B around it ({"pad": "...\"}).
  assert.equal(error, `${hub.endpoint}/test-org/huge-config/resolve/main/config.json is 2,097,163 bytes, more than kvcalc reads in a config.json (1 MiB, 1,048,576 bytes; a model's config is kilobytes): it is not a model's config.`);
  await page.close();
});

test('a request that never answers times out after 30 seconds (the page clock run forward)', async () => {
  const { page, log } = await openHubPage();
  const before = await shown(page);
  await page.clock.install();
  await search(page).fill('test-org/slow');
  await offer(page).getByRole('button', { name: 'Fetch config.json from Hugging Face' }).click();
  await page.waitForFunction(() => /^Fetching/.test(document.querySelector('#qwen').shadowRoot.querySelector('[part~="hub"] [role=status]').textContent));
  await page.clock.runFor(31000);
  await settled(page);
  const r = await said(page);
  assert.equal(r.error, `${hub.endpoint}/test-org/slow/resolve/main/config.json did not answer within 30 seconds: the server or the network is slow or down. ` +
    `Try again later, or download ${hub.endpoint}/test-org/slow/resolve/main/config.json and paste it in "Use your own config".`);
  assert.deepEqual(await shown(page), before);
  assert.deepEqual((await problems(page, log)).csp, []);
  await page.close();
});

// The GGUF repository's offer: no config.json, so its GGUF models are listed.
async function listGguf(page, id) {
  const r = await fetchId(page, id);
  assert.equal(r.error, '');
  return r.status;
}

test('a GGUF repository: its models listed, the chosen one read by Range requests for its metadata only', async (t) => {
  const { page, log } = await openHubPage();
  const before = await shown(page);
  hub.requests.length = 0;
  hub.served.storage = 0;
  const status = await listGguf(page, 'test-org/Llama-3-8B-Instruct-GGUF');
  assert.equal(status, 'test-org/Llama-3-8B-Instruct-GGUF has 2 GGUF models (and no config.json): choose one; only its metadata is read.');
  const options = await page.locator('#qwen [part~="hub"] select option').allTextContents();
  // The list as the Hub gives it (siblings, with blobs=true their sizes); the split model by its first part.
  assert.deepEqual(options, ['Llama-3-8B-Instruct-Q4_K_M.gguf (8.6 GB)', 'Llama-3-8B-Instruct-Q8_0-00001-of-00002.gguf (2 parts)']);
  // The offer, its list and its buttons, as axe-core reads them.
  assert.deepEqual(await axeViolations(page), []);
  await offer(page).getByRole('button', { name: 'Read its metadata' }).click();
  await settled(page);
  const { status: done, error } = await said(page);
  // The storage sent the metadata in 2 MB slices from where the reader asked (the Llama 3
  // test file's 8,330,772 B of metadata, less the skipped arrays, plus one slice's rest at most),
  // each a 206 to a Range request, never the whole file.
  const ranges = hub.requests.filter((q) => q.server === 'storage');
  t.diagnostic(`${ranges.length} Range requests (${ranges.map((q) => q.range).join(', ')}), ${hub.served.storage} bytes sent of the 8 GiB file; ${done}${error ? ` / ${error}` : ''}`);
  assert.ok(ranges.length >= 2 && ranges.length <= 6, `${ranges.length} Range requests`);
  assert.ok(ranges.every((q) => /^bytes=\d+-\d+$/.test(q.range) && q.method === 'GET'), JSON.stringify(ranges));
  assert.ok(hub.served.storage <= 8330772 + 2000000, `${hub.served.storage} bytes served`);
  assert.ok(hub.served.storage >= 8330772 - 1026048, `${hub.served.storage} bytes served`);
  // No preflight (the storage refuses them), no Authorization sent anywhere (the page has none).
  assert.ok(hub.requests.every((q) => q.method !== 'OPTIONS' && q.authorization === null));
  // The document reached the core and is sized as the same file picked locally is:
  // 2 (K and V) x 32 layers x 8 KV heads x 128 (4096 / 32) x 2 B = 131,072 B a token.
  assert.equal(error, '');
  assert.match(done, /^Using Meta-Llama-3-8B-Instruct: the metadata of Llama-3-8B-Instruct-Q4_K_M\.gguf \(10 MB read of 8\.6 GB, by Range requests\)\.$/);
  assert.equal(await page.$eval('#qwen', (el) => el.result.bytesPerToken), 131072);
  assert.notDeepEqual(await shown(page), before);
  const select = await page.$eval('#qwen', (el) => el.shadowRoot.querySelector('select[name=model]').value);
  assert.equal(select, 'hf:test-org/Llama-3-8B-Instruct-GGUF/Llama-3-8B-Instruct-Q4_K_M.gguf');
  // The one request that failed is the config.json the repository does not have (404), which
  // the browser logs.
  assert.deepEqual(await problems(page, log), { ...CLEAN, failed: [`404 ${hub.endpoint}/test-org/Llama-3-8B-Instruct-GGUF/resolve/main/config.json`],
    consoleErrors: ['Failed to load resource: the server responded with a status of 404 (Not Found)'] });
  await page.close();
});

test('a GGUF file on a storage the page may not connect to: its origin named', async () => {
  const { page, log } = await openHubPage('hub-only');
  const before = await shown(page);
  await listGguf(page, 'test-org/Llama-3-8B-Instruct-GGUF');
  await offer(page).getByRole('button', { name: 'Read its metadata' }).click();
  await settled(page);
  const { status, error } = await said(page);
  // Chromium names the address asked for (the endpoint's), not the storage it was redirected
  // to; the endpoint was reached for the file list a moment before, so the refusal is the
  // redirect's, and for a mirror its origin is in the resolve address's Location header.
  const url = `${hub.endpoint}/test-org/Llama-3-8B-Instruct-GGUF/resolve/main/Llama-3-8B-Instruct-Q4_K_M.gguf`;
  assert.equal(error, `This page's Content-Security-Policy lets it connect to ${hub.endpoint} but not to the storage it redirects .gguf files to: its author can allow that by adding to connect-src ` +
    `the origin in the Location header of ${url}. Until then, download ${url} and pick it in "Use your own config" (only its metadata is read there).`);
  assert.equal(status, 'Not used: the figures are still those of the model before.');
  assert.deepEqual(await shown(page), before);
  assert.equal((await problems(page, log)).csp.length, 1);
  await page.close();
});

test('a storage that ignores Range: refused at once, the file never read', async () => {
  const { page, log } = await openHubPage();
  const before = await shown(page);
  await listGguf(page, 'test-org/no-range-GGUF');
  hub.served.storage = 0;
  await offer(page).getByRole('button', { name: 'Read its metadata' }).click();
  await settled(page);
  const { status, error } = await said(page);
  assert.equal(error, `${hub.storage} ignored the Range request for model.gguf and began sending the whole file (8.6 GB): kvcalc reads only a GGUF file's metadata, never a whole model. ` +
    'Download the file and pick it in "Use your own config" (only its metadata is read there).');
  assert.equal(status, 'Not used: the figures are still those of the model before.');
  assert.deepEqual(await shown(page), before);
  // The body was cancelled: what the server managed to send before it knew is kernel buffers' worth.
  await page.waitForTimeout(100);
  assert.ok(hub.served.storage < 64 * 1024 * 1024, `${hub.served.storage} bytes sent`);
  assert.deepEqual((await problems(page, log)).csp, []);
  await page.close();
});
