// Types for kvcalc/docusaurus (dist/docusaurus.mjs): the Docusaurus plugin.

/**
 * A Docusaurus plugin: after the build, every <kv-calc> of every page baked, and kvcalc.css
 * (the baked elements' style sheet) written at the site's root. Name it in
 * docusaurus.config.js: `plugins: ['kvcalc/docusaurus']` (or `[['kvcalc/docusaurus', { force: true }]]`).
 * reserve and chromium, of earlier versions, are no longer needed: ignored.
 */
export default function kvcalc(context: unknown, options?: { force?: boolean; reserve?: boolean; chromium?: string }): {
  name: string;
  postBuild: (props: { outDir: string }) => Promise<void>;
};
