// Nextra 4 (Next.js 16, App Router) with <kv-calc>, exported as a static site (out/).
// The calculators are baked when the pages are rendered, by a server component
// (components/kv-calc.jsx): the figures are in the HTML and in the payload Next.js's router
// renders a page from on a client-side navigation. writeStylesheet puts the style sheet
// their baked render links into public/, which Next.js serves at the site's root.
import nextra from 'nextra';
import { writeStylesheet } from 'kvcalc/bake';

writeStylesheet('public');

const withNextra = nextra({});

export default withNextra({
  output: 'export',
  trailingSlash: true,
  images: { unoptimized: true },
  // The baker runs in Node as the package ships it (it reads its wasm from beside itself).
  serverExternalPackages: ['kvcalc'],
});
