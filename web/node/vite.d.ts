// Types for kvcalc/vite (dist/vite.mjs): the Vite plugin.

export interface KvcalcViteOptions {
  /** Replace content an author wrote inside a <kv-calc> too. */
  force?: boolean;
  /** No longer needed (a baked element has its live layout from the first paint): ignored. */
  reserve?: boolean;
  /** No longer needed: ignored. */
  chromium?: string;
}

/**
 * A Vite plugin: kvcalc kept out of dependency pre-bundling, every page's <kv-calc> baked,
 * and the baked elements' style sheet (kvcalc.css) written at the build's root (served there
 * by `vite dev`).
 */
export default function kvcalc(options?: KvcalcViteOptions): {
  name: string;
  config: () => { optimizeDeps: { exclude: string[] } };
  configResolved: (config: { command: string; base: string; build: { ssr?: unknown; lib?: unknown } }) => void;
  configureServer: (server: { middlewares: { use: (handler: (req: { url?: string }, res: unknown, next: () => void) => unknown) => void } }) => void;
  generateBundle: () => void;
  transformIndexHtml: { order: 'post'; handler: (html: string, ctx: { filename: string }) => Promise<string> };
};
