import { defineConfig } from 'vite';

export default defineConfig({
  // In `vite dev`, a pre-bundled copy of kvcalc would look for its wasm module beside
  // itself, in Vite's cache, where it is not: serve the package as it is.
  optimizeDeps: { exclude: ['kvcalc'] },
});
