// kvcalc/vite: the Vite plugin. It keeps kvcalc out of Vite's dependency pre-bundling (a
// pre-bundled copy looks for its wasm in Vite's cache, where it is not, so `vite dev` would
// 404 on it), and bakes the figures of every <kv-calc> into the pages Vite writes (in dev and
// build), as `npx kvcalc bake` does.
import { bake } from './bake.mjs';

/**
 * @param {{force?: boolean}} [options] force: also replace content an author wrote inside a <kv-calc>
 */
export default function kvcalc({ force = false } = {}) {
  return {
    name: 'kvcalc',
    config: () => ({ optimizeDeps: { exclude: ['kvcalc'] } }),
    transformIndexHtml: {
      order: 'post',
      handler: async (html, ctx) => (await bake(html, { file: ctx.filename, force })).html,
    },
  };
}
