// kvcalc/docusaurus: the Docusaurus plugin. After `docusaurus build` has written the site
// (postBuild), it bakes the figures of every <kv-calc> of every page, as `npx kvcalc bake
// build` does: readers without JavaScript, and everyone before the element goes live, see the
// core's numbers. A bad attribute fails the build with the page, the line and the attribute.
import { bakeSite } from './bake.mjs';

/**
 * @param {unknown} _context Docusaurus's load context (unused)
 * @param {{force?: boolean}} [options] force: also replace content an author wrote inside a <kv-calc>
 */
export default function kvcalc(_context, { force = false } = {}) {
  return {
    name: 'kvcalc',
    async postBuild({ outDir }) {
      await bakeSite(outDir, { force });
    },
  };
}
