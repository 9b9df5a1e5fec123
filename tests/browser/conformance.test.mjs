// The site's Conformance page, generated at build time from the conformance set
// (tests/fixtures/engine-logs/manifest.json): it renders in Chromium with a row for every real
// log, its status as the manifest says, the engine's figures beside kvcalc's as the CLI reports
// them, and the address where the log was posted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kvcalc, openPage, servedSite } from './site-pages/support.mjs';
import { cliFlags, conformanceCases } from '../expected/engine-logs.mjs';

const site = servedSite('conformance.html');

test('the Conformance page shows every real log, as the check reads it', async () => {
  const cases = conformanceCases();
  const { page } = await openPage(site.browser, `${site.base}/conformance.html`);
  const rows = await page.$eval('#conformance-caption', (c) => [...c.closest('table').querySelectorAll('tbody tr')].map((tr) => ({
    id: tr.id,
    cells: [...tr.children].map((td) => td.textContent.replace(/\u00a0/g, ' ')),  // the site keeps a number and its unit together
    source: tr.querySelector('code.source')?.textContent,
  })));
  assert.equal(rows.length, cases.length);
  assert.ok(rows.length >= 25);
  const count = (s) => cases.filter((c) => c.status === s).length;
  assert.equal(await page.$eval('#conformance-summary', (p) => p.textContent),
    `${cases.length} logs: ${count('reproduced')} reproduced, ${count('read')} whose only figure is the pool, ${count('differs')} that differ, each with its reason.`);
  for (const [i, c] of cases.entries()) {
    const r = rows[i];
    assert.equal(r.id, `log-${c.file.replace(/\.log$/, '')}`);
    assert.equal(r.source, c.source);
    assert.match(r.cells[4], new RegExp(`^${{ reproduced: 'Reproduced', read: 'Pool read', differs: 'Differs' }[c.status]}`));
    if (c.reason) assert.ok(r.cells[4].includes(c.reason), c.file);
  }
  // One row in full: gpt-oss-20b on two H100s, vLLM 0.19.0, every figure beside kvcalc's.
  const g = cases.find((c) => c.file === 'vllm-v0.19-gpt-oss-20b-h100-tp2.log');
  const report = kvcalc(['check', g.configPath, '--engine-log', g.logPath, ...cliFlags(g.options)]);
  const row = rows[cases.indexOf(g)].cells;
  assert.equal(row[0], 'openai/gpt-oss-20b');
  for (const x of report.cross_checks) {
    assert.ok(row[2].includes(`${x.figure}: ${x.engine}`), x.figure);
    assert.ok(row[3].includes(`${x.figure}: ${x.kvcalc_figure}`), x.figure);
  }
  assert.ok(row[2].includes('concurrency: 316.07x for 8,192 tokens'));
  assert.ok(row[3].includes('pool: 323,938 to 323,993 blocks'));
  assert.ok(row[4].startsWith(`Reproduced${report.cross_checks.length} of ${report.cross_checks.length} figures agree`));
  // The navigation links the page.
  assert.equal(await page.$eval('nav.site-nav a[aria-current="page"]', (a) => a.textContent), 'Conformance');
  await page.close();
});
