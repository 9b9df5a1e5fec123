// Types for kvcalc/docusaurus (dist/docusaurus.mjs): the Docusaurus plugin.

/**
 * A Docusaurus plugin: after the build, every <kv-calc> of every page baked. Name it in
 * docusaurus.config.js: `plugins: ['kvcalc/docusaurus']` (or `[['kvcalc/docusaurus', { force: true }]]`).
 * With reserve, each fallback then keeps its live element's height, as `kvcalc bake
 * --reserve` does (needs playwright-core and a Chromium, at /usr/bin/chromium or chromium).
 */
export default function kvcalc(context: unknown, options?: { force?: boolean; reserve?: boolean; chromium?: string }): {
  name: string;
  postBuild: (props: { outDir: string }) => Promise<void>;
};
