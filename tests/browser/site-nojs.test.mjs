// The site with JavaScript off: every page still reads, and each <kv-calc> shows what was
// baked at build time: its first render (its declarative shadow root), figures computed by
// the core; its figures in words are in the page too (what a search engine reads).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CSP, startServer } from '../../scripts/serve.mjs';
import { SITE_PAGES, SITE_BUILD, launch, openPage } from './site-pages/support.mjs';

test('without JavaScript every widget shows its baked render', async () => {
  const server = await startServer({ mounts: [['/', SITE_BUILD]], csp: CSP });
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await launch({ javaScriptEnabled: false });
  try {
    let widgets = 0;
    for (const file of SITE_PAGES) {
      const { page, log } = await openPage(browser, `${base}/${file}`);
      const shown = await page.$$eval('kv-calc', (els) => els.map((el) => ({
        id: el.id,
        visible: el.getBoundingClientRect().height > 20,
        text: el.shadowRoot?.querySelector('.kv[data-kvcalc-baked]')?.innerText.replace(/\s+/g, ' ').trim() ?? '',
        words: el.querySelector('[data-kvcalc-baked]')?.textContent ?? '',
      })));
      for (const w of shown) {
        assert.ok(w.visible, `${file} #${w.id}: the baked render takes room on the page`);
        assert.match(w.text, /\d/, `${file} #${w.id}: the baked render shows figures`);
        assert.match(w.words, /\d/, `${file} #${w.id}: the figures in words are in the page`);
      }
      widgets += shown.length;
      assert.deepEqual(log.failed, [], file);
      await page.close();
    }
    // The overview says that JavaScript is off, and does not promise a live calculator.
    const { page: home } = await openPage(browser, `${base}/index.html`);
    const main = await home.$eval('main', (m) => m.innerText);
    assert.match(main, /JavaScript is off in this browser, so the calculator below shows the figures .* as they were computed when this site was built/);
    assert.doesNotMatch(main, /Below is a live calculator/);
    await home.close();
    // The first table's first baked row, as the CLI printed it (the words), and as the
    // element draws it (what shows).
    const { page } = await openPage(browser, `${base}/models.html`);
    const rows = await page.$eval('#table-main', (el) => [el.querySelector('tbody tr'), el.shadowRoot.querySelector('tbody tr')]
      .map((tr) => [...tr.children].map((c) => c.textContent.replace(/\s+/g, ' '))));
    // Llama-3.1-8B: 2 x 32 x 8 x 128 x 2 = 131,072 B = 128 KiB per token; x 4,096 = 512 MiB,
    // x 32,768 = 4 GiB, x 131,072 = 16 GiB.
    // (The CLI's table gives the bytes per token in KiB, the element's exact.)
    assert.deepEqual(rows[0].slice(0, 9), ['meta-llama/Llama-3.1-8B', 'GQA', '32', '8 / 32', '128', '128 KiB', '512 MiB', '4 GiB', '16 GiB']);
    assert.deepEqual(rows[1].slice(0, 9), ['meta-llama/Llama-3.1-8B', 'GQA', '32', '8 / 32', '128', '131,072 B', '512 MiB', '4 GiB', '16 GiB']);
    await page.close();
    assert.ok(widgets >= 12, `${widgets} widgets`);
  } finally {
    await browser.close();
    await new Promise((ok) => server.close(ok));
  }
});
