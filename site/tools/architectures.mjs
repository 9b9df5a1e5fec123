// The Architectures page's tables, generated at build time from the core's inventory
// (kvcalc architectures --json): every architecture, exact or refused, with the published
// configs of its family that the tests size (the shared configs and the fixtures of
// tests/expected/configs.json, each by its `architectures` entry); then the config-class
// defaults and the fields refused by name.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { expectedConfigs, expectedFixtures } from '../../tests/expected/expected.mjs';
import { escapeText } from './html.mjs';

// Family -> the Hugging Face ids of the published configs the tests size for it (a config's
// file is named ORG--MODEL.json; its first `architectures` entry finds its family). The shared
// configs under reconstructed/ were written from a model card, not published: not counted.
function testedByFamily(familyOf) {
  const tested = new Map();
  for (const { path } of [...expectedConfigs(), ...expectedFixtures()]) {
    if (path.includes('/reconstructed/')) continue;
    const arch = /"architectures"\s*:\s*\[\s*"([^"]+)"/.exec(readFileSync(path, 'utf8'))?.[1];
    const family = familyOf.get(arch);
    if (!family) continue;
    const id = basename(path, '.json').replace('--', '/');
    tested.set(family, [...(tested.get(family) || []), id]);
  }
  return tested;
}

export function architecturesTables(kvcalc) {
  const inv = kvcalc.json(['architectures']);
  const tested = testedByFamily(new Map(inv.architectures.map((a) => [a.architecture, a.family])));
  const cell = (text) => `<td>${escapeText(text)}</td>`;
  const table = (id, caption, head, rows) => `<div class="table-scroll" tabindex="0" role="region" aria-labelledby="${id}">
<table>
<caption id="${id}">${caption}</caption>
<thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</div>`;
  const exact = inv.architectures.filter((a) => a.support === 'exact').length;
  const families = new Set(inv.architectures.filter((a) => a.support === 'exact').map((a) => a.family));
  const testedFamilies = [...families].filter((f) => tested.has(f)).length;
  const testedCell = (a) => {
    if (a.support !== 'exact') return '<td>—</td>';
    const ids = tested.get(a.family);
    if (!ids) return '<td>none yet: sized by its family\'s rule</td>';
    return cell(ids.length > 3 ? `${ids.slice(0, 3).join(', ')} and ${ids.length - 3} more` : ids.join(', '));
  };
  const row = (a) => `<tr><th scope="row"><code>${escapeText(a.architecture)}</code></th>` +
    `${cell(a.text_config ? `${a.family} (its text model in ${a.text_config})` : a.family)}` +
    `<td>${a.support === 'exact' ? 'sized exactly' : '<strong>refused</strong>'}</td>${cell(a.caches)}${testedCell(a)}${cell(a.note)}</tr>`;
  return `<h2 id="inventory">Every architecture (${inv.architectures.length}: ${exact} sized, ${inv.architectures.length - exact} refused)</h2>
<p>The tests size a published config of ${testedFamilies} of the ${families.size} families sized exactly, with figures written out from vLLM's arithmetic (the column "Tested on"). The others are sized by the same rule as their family's row says, but no published config of theirs was found to test it.</p>
${table('inventory-caption', 'vLLM\'s architectures and what kvcalc does with each',
    ['Architecture', 'Family', 'kvcalc', 'What it caches, or why it is refused', 'Tested on (published config)', 'Note'], inv.architectures.map(row))}
<h2 id="defaults">Config-class defaults</h2>
<p>Used when a config leaves the field out (a field set to null is the config's own "none"). A default of null is the class's None, or, where the meaning says so, a value the class derives from other fields. The source is the class's file and the commit it was read at.</p>
${table('defaults-caption', 'Defaults of the config classes that change the cache',
    ['model_type', 'Class', 'Field', 'Default', 'Meaning', 'Source'],
    inv.class_defaults.map((d) => `<tr><th scope="row"><code>${escapeText(d.model_type)}</code></th>${cell(d.config_class)}` +
      `<td><code>${escapeText(d.field)}</code></td><td><code>${escapeText(JSON.stringify(d.value))}</code></td>${cell(d.meaning)}` +
      `${cell(d.source || 'not recorded: read before the table kept sources')}</tr>`))}
<h2 id="wrapper-text">The text model class of a multimodal wrapper</h2>
<p>When a wrapper's text_config names no model_type, its config class builds the class below for it (some build it always), and the text model takes that class's defaults. With "from the root", a config that keeps the text fields at its root, with no text_config, takes them too.</p>
${table('wrapper-text-caption', 'The text model class each wrapper\'s config class builds',
    ['Wrapper model_type', 'Wrapper class', 'Text model_type', 'From the root', 'Source'],
    inv.wrapper_text_classes.map((w) => `<tr><th scope="row"><code>${escapeText(w.wrapper)}</code></th>${cell(w.wrapper_class)}` +
      `<td><code>${escapeText(w.text_model_type)}</code></td><td>${w.from_root ? 'yes' : 'no'}</td>${cell(w.source)}</tr>`))}
<h2 id="refused-fields">Fields refused by name</h2>
${table('fields-caption', 'Fields that change the cache in ways kvcalc does not model',
    ['Field', 'What it means'],
    inv.unmodelled_fields.map((u) => `<tr><th scope="row"><code>${escapeText(u.field)}</code></th>${cell(u.why)}</tr>`))}`;
}
