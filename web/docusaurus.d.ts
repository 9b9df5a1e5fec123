// Types for kvcalc/docusaurus (dist/docusaurus.mjs): the Docusaurus plugin.

/**
 * A Docusaurus plugin: after the build, every <kv-calc> of every page baked. Name it in
 * docusaurus.config.js: `plugins: ['kvcalc/docusaurus']` (or `[['kvcalc/docusaurus', { force: true }]]`).
 */
export default function kvcalc(context: unknown, options?: { force?: boolean }): {
  name: string;
  postBuild: (props: { outDir: string }) => Promise<void>;
};
