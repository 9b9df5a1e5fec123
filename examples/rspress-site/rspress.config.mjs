// Rspress 2 with <kv-calc>: kvcalc/mdx bakes every <kv-calc> of the MDX pages as they are
// compiled (the figures are in the HTML and in the page's JavaScript, which Rspress renders
// a page from on a client-side navigation); writeStylesheet puts the style sheet their baked
// render links into docs/public/, which Rspress serves at the site's root, preloaded on
// every page; a global component defines the element in the browser.
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@rspress/core';
import kvcalc from 'kvcalc/mdx';
import { writeStylesheet } from 'kvcalc/bake';

writeStylesheet('docs/public');

export default defineConfig({
  root: 'docs',
  title: 'kvcalc on Rspress',
  icon: '/favicon.svg',
  head: ['<link rel="preload" href="/kvcalc.css" as="style">'],
  markdown: { remarkPlugins: [kvcalc] },
  globalUIComponents: [fileURLToPath(new URL('./components/kvcalc-loader.jsx', import.meta.url))],
});
