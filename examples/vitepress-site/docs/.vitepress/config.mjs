import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'kvcalc in VitePress',
  head: [['link', { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }]],
  vue: {
    template: {
      compilerOptions: {
        // Vue leaves <kv-calc> to the browser: without this, the server-rendered page loses
        // the element and its fallback (an empty <!----> in its place).
        isCustomElement: (tag) => tag === 'kv-calc',
      },
    },
  },
  vite: {
    // In `vitepress dev`, a pre-bundled copy of kvcalc would look for its wasm module in
    // Vite's cache: serve the package as it is.
    optimizeDeps: { exclude: ['kvcalc'] },
  },
});
