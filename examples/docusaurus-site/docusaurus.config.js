// Docusaurus 3 with <kv-calc>: the element imported once for every page (a client module),
// and kvcalc/docusaurus baking the figures into the built pages.
export default {
  title: 'kvcalc on Docusaurus',
  url: 'http://127.0.0.1',
  baseUrl: '/',
  favicon: 'favicon.svg',
  onBrokenLinks: 'throw',
  presets: [
    ['classic', { docs: { routeBasePath: '/' }, blog: false }],
  ],
  clientModules: ['./src/kvcalc.js'],
  plugins: ['kvcalc/docusaurus'],
};
