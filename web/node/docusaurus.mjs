// kvcalc/docusaurus: the Docusaurus plugin. After `docusaurus build` has written the site
// (postBuild), it bakes every <kv-calc> of every page, as `npx kvcalc bake build` does: the
// element's first render (the calculator as it goes live, so nothing moves then), which links
// kvcalc.css at the site's root (written there), and the figures in words for readers
// without JavaScript. A bad attribute fails the build with the page, the line and the
// attribute.
import { bakeSite } from './bake.mjs';

/**
 * @param {unknown} _context Docusaurus's load context (unused)
 * @param {{force?: boolean}} [options] force: also replace content an author wrote inside a
 *   <kv-calc> (reserve and chromium, of earlier versions, are no longer needed: ignored)
 */
export default function kvcalc(_context, { force = false } = {}) {
  return {
    name: 'kvcalc',
    async postBuild({ outDir }) {
      await bakeSite(outDir, { force });
    },
  };
}
