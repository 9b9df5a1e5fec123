// kvcalc/vite: the Vite plugin. It keeps kvcalc out of Vite's dependency pre-bundling (a
// pre-bundled copy looks for its wasm in Vite's cache, where it is not, so `vite dev` would
// 404 on it), and bakes the figures of every <kv-calc> into the pages Vite writes (in dev and
// build), as `npx kvcalc bake` does. With reserve, once `vite build` has written its pages,
// each fallback keeps its live element's height, as `npx kvcalc bake --reserve` does. Only
// for pages Vite itself writes: VitePress and Astro render theirs after Vite's bundle is
// closed, so there the reserve step runs on their built folder instead.
import { resolve } from 'node:path';
import { bake, noElementMessage } from './bake.mjs';

/**
 * @param {{force?: boolean, reserve?: boolean, chromium?: string}} [options] force: also
 *   replace content an author wrote inside a <kv-calc>; reserve: keep the live heights after
 *   `vite build` (chromium: the browser that measures them, /usr/bin/chromium unless named)
 */
export default function kvcalc({ force = false, reserve = false, chromium } = {}) {
  let outDir = null;
  let pages = 0;
  return {
    name: 'kvcalc',
    config: () => ({ optimizeDeps: { exclude: ['kvcalc'] } }),
    configResolved(config) {
      if (config.command === 'build' && !config.build.ssr) outDir = resolve(config.root, config.build.outDir);
    },
    transformIndexHtml: {
      order: 'post',
      handler: async (html, ctx) => {
        pages += 1;
        const r = await bake(html, { file: ctx.filename, force });
        for (const w of [...r.warnings, noElementMessage(ctx.filename, r.mentions)].filter(Boolean)) console.warn(`kvcalc bake: ${w}`);
        return r.html;
      },
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      async handler() {
        if (!reserve || !outDir) return;
        if (!pages) {
          throw new Error('kvcalc/vite reserve: no page of this build went through Vite\'s HTML step (VitePress and Astro write theirs after it): run `npx kvcalc bake --reserve` on the built folder instead');
        }
        const { reserveSite } = await import('./reserve.mjs');
        await reserveSite(outDir, chromium ? { chromium } : {});
      },
    },
  };
}
