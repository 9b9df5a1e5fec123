// Astro Starlight with <kv-calc>: kvcalc/vite keeps the package out of Vite's dependency
// pre-bundling (else `astro dev` 404s on the wasm); Astro writes its pages itself, after
// Vite, so the figures are baked into them once the build is done.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'astro/config';
import starlight from '@astrojs/starlight';
import kvcalc from 'kvcalc/vite';
import { bakeSite } from 'kvcalc/bake';

export default defineConfig({
  site: 'http://127.0.0.1',
  integrations: [
    starlight({ title: 'kvcalc on Starlight' }),
    { name: 'kvcalc-bake', hooks: { 'astro:build:done': ({ dir }) => bakeSite(fileURLToPath(dir)) } },
  ],
  vite: { plugins: [kvcalc()] },
});
