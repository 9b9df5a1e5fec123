// The Conformance page's tables, generated at build time from the conformance set
// (tests/fixtures/engine-logs/manifest.json and llamacpp/manifest.json, read by
// tests/expected/engine-logs.mjs): for every real startup log of vLLM, SGLang, llama.cpp, Ollama and
// LM Studio, `kvcalc check MODEL --engine-log LOG` as the tests run it, and what the engine printed
// beside what kvcalc derives, figure by figure.

import { cliFlags, conformanceCases } from '../../tests/expected/engine-logs.mjs';
import { escapeAttr, escapeText } from './html.mjs';

const STATUS = { reproduced: 'Reproduced', read: 'Pool read', differs: 'Differs' };
const ENGINE = { vllm: 'vLLM', sglang: 'SGLang', llamacpp: 'llama.cpp', ollama: 'Ollama', lmstudio: 'LM Studio' };

function figures(checks, side) {
  if (!checks.length) return '<td>—</td>';
  return `<td><ul>${checks.map((c) => `<li><em>${escapeText(c.figure)}</em>: ${escapeText(c[side])}</li>`).join('')}</ul></td>`;
}

// One row a log: what it is, what the engine printed, what kvcalc derives, whether they agree.
function row(c, report) {
  const checks = report && !report.error ? report.cross_checks : [];
  const engineSide = checks.map((x) => ({ figure: x.figure, text: x.engine }));
  const kvcalcSide = checks.map((x) => ({ figure: x.figure, text: x.kvcalc_figure || x.kvcalc }));
  const agreeing = checks.filter((x) => x.agree).length;
  let verdict = `<strong>${STATUS[c.status]}</strong>`;
  if (checks.length) verdict += `<br>${agreeing} of ${checks.length} figures agree`;
  const tokens = (n) => n.toLocaleString('en-US');
  if (report && !report.error && report.engine === 'llamacpp') {
    // llama.cpp's verdict is a slot's: the context served against the cells one slot holds.
    verdict += `<br>${report.fits ? 'fits' : 'does not fit'}: ${tokens(report.max_context)} tokens in a slot of ${tokens(report.slot_context)}, ${report.n_seq_max} slot${report.n_seq_max === 1 ? '' : 's'}`;
  } else if (report && !report.error) {
    verdict += `<br>${report.fits ? 'fits' : 'does not fit'} at ${tokens(report.max_context)} tokens, ${escapeText(report.max_concurrency_text)}x`;
  }
  if (c.reason) verdict += `<br>${escapeText(c.reason)}`;
  const model = c.sameGeometry ? `${escapeText(c.model)} (checked with a config of the same geometry)` : escapeText(c.model);
  // "0.19.0 (stated in the banner ...)": the release, without how the manifest knows it.
  const release = c.version.replace(/\s*\(.*$/s, '').replace(/;.*$/, '');
  const version = release === 'not stated' ? '(release not stated)'
    : release.startsWith('not printed') ? '(build not printed)' : release;
  return `<tr id="log-${escapeAttr(c.file.replace(/\.log$/, ''))}">` +
    `<th scope="row">${model}</th>` +
    `<td>${escapeText(ENGINE[c.engine] ?? c.engine)} ${escapeText(version)}</td>` +
    `${figures(engineSide.map((x) => ({ figure: x.figure, engine: x.text })), 'engine')}` +
    `${figures(kvcalcSide.map((x) => ({ figure: x.figure, kvcalc: x.text })), 'kvcalc')}` +
    `<td>${verdict}</td>` +
    // The address as text: the site links nothing outside itself (it works offline).
    `<td><code class="source">${escapeText(c.source)}</code><br>stored as <code>${escapeText(c.file)}</code></td></tr>`;
}

export function conformanceTables(kvcalc) {
  const cases = conformanceCases();
  const rows = cases.map((c) => {
    if (!c.configPath) return row(c, null);
    const report = kvcalc.json(['check', c.configPath, '--engine-log', c.logPath, ...cliFlags(c.options)], [0, 1, 3]);
    return row(c, report);
  });
  const count = (s) => cases.filter((c) => c.status === s).length;
  return `<p id="conformance-summary">${cases.length} logs: ${count('reproduced')} reproduced, ${count('read')} whose only figure is the pool, ${count('differs')} that differ, each with its reason.</p>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="conformance-caption">
<table>
<caption id="conformance-caption">Real engine startup logs, and what kvcalc derives from each</caption>
<thead><tr><th scope="col">Model</th><th scope="col">Engine</th><th scope="col">What the log said</th><th scope="col">What kvcalc derives</th><th scope="col">Agreement</th><th scope="col">Source</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</div>`;
}
