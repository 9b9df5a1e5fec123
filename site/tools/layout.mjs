// The page frame every page of the site shares: head (external CSS and scripts only, for the
// strict CSP), a skip link, the header with the navigation that marks the current page, the
// page's own content in <main>, previous / next links and the footer.

import { escapeAttr, escapeText } from './html.mjs';

// The pages in reading order; the navigation lists them in this order.
export const PAGES = [
  { file: 'index.html', nav: 'Overview' },
  { file: 'kv-cache.html', nav: 'KV cache' },
  { file: 'attention.html', nav: 'GQA and MLA' },
  { file: 'windows.html', nav: 'Windows and hybrids' },
  { file: 'local.html', nav: 'Running locally' },
  { file: 'models.html', nav: 'Model tables' },
  { file: 'pools.html', nav: 'Pool check' },
  { file: 'architectures.html', nav: 'Architectures' },
  { file: 'conformance.html', nav: 'Conformance' },
  { file: 'faq.html', nav: 'FAQ' },
  { file: 'embed.html', nav: 'Embedding' },
  { file: 'reference.html', nav: 'Reference' },
];

export function renderPage({ file, title, description, body, usesElement }) {
  const index = PAGES.findIndex((p) => p.file === file);
  if (index < 0) throw new Error(`site/pages/${file} is not listed in PAGES (site/tools/layout.mjs)`);
  const nav = PAGES.map((p) => `<li><a href="${escapeAttr(p.file)}"${p.file === file ? ' aria-current="page"' : ''}>${escapeText(p.nav)}</a></li>`).join('\n');
  const prev = PAGES[index - 1];
  const next = PAGES[index + 1];
  const pageLinks = [
    prev ? `<a class="prev" href="${escapeAttr(prev.file)}"><span class="dir">Previous</span>${escapeText(prev.nav)}</a>` : '',
    next ? `<a class="next" href="${escapeAttr(next.file)}"><span class="dir">Next</span>${escapeText(next.nav)}</a>` : '',
  ].join('');
  const fullTitle = file === 'index.html' ? title : `${title} · kvcalc`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeText(fullTitle)}</title>
<meta name="description" content="${escapeAttr(description)}">
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="site.css">
<script src="site.js" defer></script>
${usesElement ? '<script type="module" src="dist/kvcalc.js"></script>\n' : ''}</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<div class="site-header-inner">
<a class="site-name" href="index.html">kvcalc</a>
<nav class="site-nav" aria-label="Site">
<ul>
${nav}
</ul>
</nav>
</div>
</header>
<main id="main" tabindex="-1">
${body.trim()}
<nav class="page-links" aria-label="Previous and next page">${pageLinks}</nav>
</main>
<footer class="site-footer">
<div class="site-footer-inner">
<p>Every figure on these pages is computed in your browser by the kvcalc core (C++ compiled to WebAssembly); nothing you type or paste leaves the page.</p>
<p>After one visit the site works offline.</p>
</div>
</footer>
</body>
</html>
`;
}
