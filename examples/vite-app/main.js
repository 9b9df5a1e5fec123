// One import defines <kv-calc>. Vite finds the wasm module through the package's
// new URL('./kvcalc_core.wasm', import.meta.url) and copies it into the build.
import 'kvcalc';

// The element says when it shows a new result.
document.getElementById('calc').addEventListener('kvcalc-change', (event) => {
  document.getElementById('last-result').textContent =
    `${event.result.model}: ${event.result.bytesPerToken.toLocaleString('en')} bytes per token`;
});
