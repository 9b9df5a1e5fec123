// Space reserved for the live elements on the project's site: the package's own measuring
// (web/node/reserve.mjs, which `kvcalc bake --reserve` uses on an author's site), run over the
// built site served as a documentation host serves it, under the strict CSP. Each element
// is named by its id (or its parent's): the heights go into the site's style sheet.

import { CSP, startServer } from '../../scripts/serve.mjs';
import { measureLiveHeights as measure, reserveCss, WIDTHS } from '../../web/node/reserve.mjs';

export { reserveCss, WIDTHS };

// The live height of every <kv-calc> of each page at each of WIDTHS, or null when there is
// no Chromium here.
export async function measureLiveHeights(outDir, files) {
  const server = await startServer({ mounts: [['/', outDir]], csp: CSP });
  try {
    return await measure(`http://127.0.0.1:${server.address().port}`, files);
  } finally {
    await new Promise((ok) => server.close(ok));
  }
}
