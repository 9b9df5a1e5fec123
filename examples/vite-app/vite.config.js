import { defineConfig } from 'vite';
import kvcalc from 'kvcalc/vite';

export default defineConfig({
  // kvcalc/vite keeps the package out of Vite's dependency pre-bundling (in `vite dev` a
  // pre-bundled copy would look for its wasm module in Vite's cache, where it is not), and
  // bakes the figures of every empty <kv-calc> into the pages it writes.
  plugins: [kvcalc()],
});
