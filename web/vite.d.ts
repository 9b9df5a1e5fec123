// Types for kvcalc/vite (dist/vite.mjs): the Vite plugin.

/** A Vite plugin: kvcalc kept out of dependency pre-bundling, and every page's <kv-calc> baked. */
export default function kvcalc(options?: { force?: boolean }): {
  name: string;
  config: () => { optimizeDeps: { exclude: string[] } };
  transformIndexHtml: { order: 'post'; handler: (html: string, ctx: { filename: string }) => Promise<string> };
};
