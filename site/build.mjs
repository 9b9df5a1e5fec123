// Builds the documentation site into site-build/ as plain files any static host can serve:
// the pages (site/pages/*.html in the shared frame), their CSS and scripts, the package
// (dist/ copied to site-build/dist/), the no-JS fallbacks baked by the package's baker (dist/bake.mjs), the
// element reference generated from web/element/element.js, a runnable copy of the plain-HTML
// snippet, and the service worker with the list of every file and a version hash.
//
//   node site/build.mjs        (scripts/build.sh runs it after scripts/build-dist.mjs)
//
// Env: KVCALC_BUILD_DIR (native build folder, default build), KVCALC_SITE_OUT (default site-build).

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGES, renderPage } from './tools/layout.mjs';
import { escapeText, slug } from './tools/html.mjs';
import { Kvcalc, groupThousands, insertCliRuns } from './tools/cli.mjs';
import { parseElementHeader, renderReference } from './tools/reference.mjs';
import { writeServiceWorker } from './tools/service-worker.mjs';
import { faviconIco } from './tools/favicon.mjs';
import { architecturesTables } from './tools/architectures.mjs';
import { conformanceTables } from './tools/conformance.mjs';
import { NODE_ONLY, pageLoads } from '../scripts/page-loads.mjs';

const SITE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(SITE, '..');
const OUT = resolve(ROOT, process.env.KVCALC_SITE_OUT || 'site-build');
const DIST = join(ROOT, 'dist');
const ELEMENT_SOURCE = join(ROOT, 'web/element/element.js');
const KVCALC = join(resolve(ROOT, process.env.KVCALC_BUILD_DIR || 'build'), 'kvcalc');
const STATIC_FILES = ['site.css', 'site.js', 'favicon.svg'];

// The plain-HTML example (examples/plain-html, tested as it is), where it says the package
// lives, and where the site's runnable copy finds it.
export const PLAIN_EXAMPLE = 'examples/plain-html/index.html';
export const SNIPPET_PACKAGE_PATH = 'kvcalc/kvcalc.js';
const EXAMPLE_PACKAGE_PATH = '../dist/kvcalc.js';

// A snippet's file: site/snippets/NAME, or one of the tested examples (examples/...), so the
// guide shows the very files the tests build.
export const snippetPath = (name) => (name.startsWith('examples/') ? join(ROOT, name) : join(SITE, 'snippets', name));

function readPage(file) {
  const text = readFileSync(join(SITE, 'pages', file), 'utf8');
  const m = /^<!--\n([\s\S]*?)\n-->\n/.exec(text);
  if (!m) throw new Error(`site/pages/${file}: starts with no <!-- title: ... description: ... --> block`);
  const meta = Object.fromEntries(m[1].split('\n').filter((l) => l.trim()).map((l) => {
    const i = l.indexOf(':');
    return [l.slice(0, i).trim(), l.slice(i + 1).trim()];
  }));
  for (const key of ['title', 'description']) {
    if (!meta[key]) throw new Error(`site/pages/${file}: the header block has no ${key}`);
  }
  return { meta, body: text.slice(m[0].length) };
}

// <!-- snippet: FILE | Label --> becomes the file's text, escaped, in a labelled block.
function insertSnippets(body, file) {
  return body.replace(/<!--\s*snippet:\s*([^|\s]+)\s*\|\s*([^>]*?)\s*-->/g, (m, name, label) => {
    const path = snippetPath(name);
    if (!existsSync(path)) throw new Error(`site/pages/${file}: snippet ${name} is not in site/snippets/ or examples/`);
    const code = readFileSync(path, 'utf8').replace(/\n$/, '');
    // Snippet lines wrap; CSP sources such as 'wasm-unsafe-eval' must not break at their hyphens.
    const html = escapeText(code).replace(/'[a-z]+(?:-[a-z]+)+'/g, (m) => `<span class="nowrap">${m}</span>`);
    return `<div class="snippet"><span class="snippet-label">${escapeText(label)}</span><pre tabindex="0"><code>${html}</code></pre></div>`;
  });
}

// <!-- include: FILE --> puts the snippet in as it is, so the page runs the very text it shows,
// baked (bake(text) resolves to the baked text): its elements' content, the fallback the
// snippet shows an author writing, replaced by what bake writes, so that they too go live
// without moving the page.
async function includeSnippets(body, file, bake) {
  const parts = body.split(/<!--\s*include:\s*(\S+)\s*-->/);
  for (let i = 1; i < parts.length; i += 2) {
    const path = join(SITE, 'snippets', parts[i]);
    if (!existsSync(path)) throw new Error(`site/pages/${file}: snippet ${parts[i]} is not in site/snippets/`);
    parts[i] = await bake(readFileSync(path, 'utf8').trim());
  }
  return parts.join('');
}

// <!-- dist-files --> becomes a table of the package's files with their sizes, and what a
// page with one <kv-calc> loads for each view (scripts/page-loads.mjs: the files it fetches).
function distFilesTable() {
  const { files, views } = pageLoads(DIST);
  const rows = files.map((x) => `<tr><th scope="row"><code>${escapeText(x.file)}</code></th>` +
    `<td class="num">${groupThousands(x.raw)} B</td><td class="num">${groupThousands(x.gzip)} B</td></tr>`);
  // "formula (llama.cpp)": view="formula" with a llama.cpp engine.
  const viewRows = Object.entries(views).map(([view, v]) => `<tr><th scope="row"><code>view="${view.split(' ')[0]}"</code>` +
    `${view.includes(' ') ? ` with engine llama.cpp` : ''}</th>` +
    `<td class="num">${groupThousands(v.raw)} B</td><td class="num">${groupThousands(v.gzip)} B</td></tr>`);
  return `<div class="table-scroll" tabindex="0" role="region" aria-labelledby="dist-files-caption">
<table>
<caption id="dist-files-caption">The package's files (dist/)</caption>
<thead><tr><th scope="col">File</th><th scope="col" class="num">Size</th><th scope="col" class="num">Gzipped</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</div>
<div class="table-scroll" tabindex="0" role="region" aria-labelledby="page-loads-caption">
<table>
<caption id="page-loads-caption">What a page with one <code>&lt;kv-calc&gt;</code> loads, by view (the <code>.d.ts</code> never)</caption>
<thead><tr><th scope="col">View</th><th scope="col" class="num">Size</th><th scope="col" class="num">Gzipped</th></tr></thead>
<tbody>
${viewRows.join('\n')}
</tbody>
</table>
</div>`;
}

// Every h2 and h3 gets an id (from its text) unless it has one; ids are unique per page.
function addHeadingIds(body) {
  const used = new Set([...body.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]));
  return body.replace(/<(h[23])>([\s\S]*?)<\/\1>/g, (m, tag, inner) => {
    let id = slug(inner);
    for (let i = 2; used.has(id); i += 1) id = `${slug(inner)}-${i}`;
    used.add(id);
    return `<${tag} id="${id}">${inner}</${tag}>`;
  });
}

// Inline `--flag` code stays on one line (see code.flag in site.css).
function markFlags(body) {
  return body.replace(/<code>(--[a-z0-9-]{1,40}(?: [^<\s]{1,12})?)<\/code>/g, '<code class="flag">$1</code>');
}

// In running text a number and its unit stay on one line ("24,576 B", "1.75 GiB"). Tags,
// <pre> and <code> are left as they are.
function keepUnits(body) {
  return body.split(/(<pre[\s\S]*?<\/pre>|<code[\s\S]*?<\/code>|<[^>]+>)/).map((part, i) => (i % 2 ? part
    : part.replace(/(\d) (B|KiB|MiB|GiB|TiB|kB|MB|GB|TB)(?![A-Za-z])/g, '$1\u00a0$2'))).join('');
}

// Scrollable code must be reachable by keyboard.
function focusablePre(body) {
  return body.replace(/<pre(?![^>]*\btabindex=)/g, '<pre tabindex="0"');
}

export async function build() {
  if (!existsSync(join(DIST, 'kvcalc.js'))) {
    throw new Error('dist/kvcalc.js is missing: the site embeds the package (run bash scripts/build.sh, which runs scripts/build-dist.mjs first)');
  }
  if (!existsSync(ELEMENT_SOURCE)) throw new Error('web/element/element.js is missing: the reference page is generated from its header');
  const kvcalc = new Kvcalc(KVCALC);
  const reference = renderReference(parseElementHeader(readFileSync(ELEMENT_SOURCE, 'utf8')));

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });

  let bakedCount = 0;
  const { bake } = await import(join(DIST, 'bake.mjs'));
  for (const { file } of PAGES) {
    const { meta, body: source } = readPage(file);
    const stylesheet = 'dist/kvcalc.css';
    let body = await includeSnippets(insertSnippets(source, file), file,
      async (text) => (await bake(text, { file: `site/pages/${file}`, stylesheet, force: true })).html);
    body = body.replace(/<!--\s*element-reference\s*-->/, () => reference);
    body = insertCliRuns(body, kvcalc);
    body = body.replace(/<!--\s*dist-files\s*-->/, () => distFilesTable());
    body = body.replace(/<!--\s*architectures\s*-->/, () => architecturesTables(kvcalc));
    body = body.replace(/<!--\s*conformance\s*-->/, () => conformanceTables(kvcalc));
    // The fallbacks, as `kvcalc bake` bakes any site: by the package's baker, on the same wasm
    // (an element marked <!-- fallback --> or empty; one whose fallback a page writes is kept):
    // each element's first render, which links the package's style sheet (the pages sit
    // beside dist/), and its figures in words.
    const baked = await bake(body, { file: `site/pages/${file}`, stylesheet });
    bakedCount += baked.count;
    // The site's own touches (heading ids, units kept on their line...) leave the baked
    // renders as the element draws them: the live element replaces them with the same.
    const renders = [];
    body = baked.html.replace(/<template shadowrootmode="open"[\s\S]*?<\/template>/g, (t) => `<!--render ${renders.push(t) - 1}-->`);
    body = keepUnits(markFlags(focusablePre(addHeadingIds(body))));
    body = body.replace(/<!--render (\d+)-->/g, (m, i) => renders[Number(i)]);
    const h1s = body.match(/<h1[\s>]/g) || [];
    if (h1s.length !== 1) throw new Error(`site/pages/${file}: has ${h1s.length} <h1>, not one`);
    if (/\sstyle=|<style[\s>]|<script(?![^>]*\bsrc=)(?![^>]*type="application\/json")/i.test(body)) {
      throw new Error(`site/pages/${file}: inline style or script (the strict CSP refuses both)`);
    }
    const usesElement = /<kv-calc\b/.test(body);
    writeFileSync(join(OUT, file), renderPage({ file, title: meta.title, description: meta.description, body, usesElement }));
  }

  // The plain-HTML example of the embedding guide, as a page that runs, baked as its comment
  // says (its kvcalc.css found beside its kvcalc.js, this site's copy).
  const snippet = readFileSync(join(ROOT, PLAIN_EXAMPLE), 'utf8');
  if (!snippet.includes(SNIPPET_PACKAGE_PATH)) throw new Error(`${PLAIN_EXAMPLE} does not load the package from ${SNIPPET_PACKAGE_PATH}`);
  mkdirSync(join(OUT, 'examples'), { recursive: true });
  const plain = (await bake(snippet.split(SNIPPET_PACKAGE_PATH).join(EXAMPLE_PACKAGE_PATH), { file: PLAIN_EXAMPLE })).html;
  writeFileSync(join(OUT, 'examples/plain.html'), plain);
  cpSync(join(ROOT, 'examples/plain-html/favicon.svg'), join(OUT, 'examples/favicon.svg'));

  for (const f of STATIC_FILES) cpSync(join(SITE, f), join(OUT, f));
  writeFileSync(join(OUT, 'favicon.ico'), faviconIco());
  // What a page may fetch; not the Node-only files (the `kvcalc` command and the baker).
  cpSync(DIST, join(OUT, 'dist'), { recursive: true, filter: (src) => !NODE_ONLY.includes(basename(src)) });

  const sw = writeServiceWorker({ template: join(SITE, 'sw.js'), outDir: OUT });
  return { out: OUT, pages: PAGES.length, baked: bakedCount, kvcalcCalls: kvcalc.calls, files: sw.files.length, version: sw.version };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const r = await build();
    console.log(`site: ${r.pages} pages, ${r.baked} baked elements (${r.kvcalcCalls} kvcalc runs), ` +
      `${r.files} files cached by the service worker (version ${r.version}) in ${r.out}`);
  } catch (e) {
    console.error(`site build failed: ${e.message}`);
    process.exit(1);
  }
}
