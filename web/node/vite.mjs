// kvcalc/vite: the Vite plugin. It keeps kvcalc out of Vite's dependency pre-bundling (a
// pre-bundled copy looks for its wasm in Vite's cache, where it is not, so `vite dev` would
// 404 on it), and bakes every <kv-calc> of the pages Vite writes (in dev and build), as
// `npx kvcalc bake` does: the element's first render, which links the element's style sheet
// (kvcalc.css, which the build writes at its root and `vite dev` serves there), and its
// figures in words. Only pages Vite itself writes: VitePress and Astro render theirs after
// Vite's bundle is closed, so there bake their built folder (npx kvcalc bake, or bakeSite).
import { bake, noElementMessage, stylesheetText } from './bake.mjs';

const STYLESHEET = 'kvcalc.css';

/**
 * @param {{force?: boolean}} [options] force: also replace content an author wrote inside a
 *   <kv-calc> (reserve and chromium, of earlier versions, are no longer needed: ignored)
 */
export default function kvcalc({ force = false } = {}) {
  let base = '/';
  let client = false;  // a build that writes pages (not a library or server build)
  return {
    name: 'kvcalc',
    config: () => ({ optimizeDeps: { exclude: ['kvcalc'] } }),
    configResolved(config) {
      base = config.base || '/';
      client = config.command === 'build' && !config.build.ssr && !config.build.lib;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url?.replace(/[?#].*$/, '') !== `${base}${STYLESHEET}`) return next();
        res.setHeader('Content-Type', 'text/css; charset=utf-8');
        return res.end(stylesheetText());
      });
    },
    generateBundle() {
      if (client) this.emitFile({ type: 'asset', fileName: STYLESHEET, source: stylesheetText() });
    },
    transformIndexHtml: {
      order: 'post',
      handler: async (html, ctx) => {
        const r = await bake(html, { file: ctx.filename, force, stylesheet: `${base}${STYLESHEET}` });
        for (const w of [...r.warnings, noElementMessage(ctx.filename, r.mentions)].filter(Boolean)) console.warn(`kvcalc bake: ${w}`);
        return r.html;
      },
    },
  };
}
