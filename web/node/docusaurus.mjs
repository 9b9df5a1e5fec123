// kvcalc/docusaurus: the Docusaurus plugin. After `docusaurus build` has written the site
// (postBuild), it bakes the figures of every <kv-calc> of every page, as `npx kvcalc bake
// build` does: readers without JavaScript, and everyone before the element goes live, see the
// core's numbers. A bad attribute fails the build with the page, the line and the attribute.
// With reserve, each fallback then keeps its live element's height, as `npx kvcalc bake
// build --reserve` does (playwright-core and a Chromium measure them at build time).
import { bakeSite } from './bake.mjs';

/**
 * @param {unknown} _context Docusaurus's load context (unused)
 * @param {{force?: boolean, reserve?: boolean, chromium?: string}} [options] force: also
 *   replace content an author wrote inside a <kv-calc>; reserve: keep the live heights
 *   (chromium: the browser that measures them, /usr/bin/chromium unless named)
 */
export default function kvcalc(_context, { force = false, reserve = false, chromium } = {}) {
  return {
    name: 'kvcalc',
    async postBuild({ outDir }) {
      await bakeSite(outDir, { force, reserve, chromium });
    },
  };
}
