// Types for kvcalc/vite (dist/vite.mjs): the Vite plugin.

export interface KvcalcViteOptions {
  /** Replace content an author wrote inside a <kv-calc> too. */
  force?: boolean;
  /**
   * After `vite build`, keep each fallback at its live element's height (kvcalc-reserve.css),
   * as `kvcalc bake --reserve` does: needs playwright-core and a Chromium. Pages Vite writes
   * only: VitePress and Astro render theirs later (the build fails saying so).
   */
  reserve?: boolean;
  /** The Chromium that measures the live heights (default /usr/bin/chromium). */
  chromium?: string;
}

/** A Vite plugin: kvcalc kept out of dependency pre-bundling, and every page's <kv-calc> baked. */
export default function kvcalc(options?: KvcalcViteOptions): {
  name: string;
  config: () => { optimizeDeps: { exclude: string[] } };
  configResolved: (config: { command: string; root: string; build: { outDir: string; ssr?: unknown } }) => void;
  transformIndexHtml: { order: 'post'; handler: (html: string, ctx: { filename: string }) => Promise<string> };
  closeBundle: { order: 'post'; sequential: true; handler: () => Promise<void> };
};
