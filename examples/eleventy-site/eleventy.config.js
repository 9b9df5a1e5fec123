// Eleventy 3 with <kv-calc>: the package's files a page loads copied to /kvcalc/ (with the
// style sheet its baked elements link; not its Node-only files: the `kvcalc` command, the
// baker, the build plugins), and the figures baked into the built pages once Eleventy has
// written them.
import { bakeSite } from 'kvcalc/bake';

export default function (eleventyConfig) {
  eleventyConfig.addPassthroughCopy({ 'node_modules/kvcalc/dist/*.{js,css,wasm}': 'kvcalc' });
  eleventyConfig.addPassthroughCopy({ public: '/' });
  eleventyConfig.on('eleventy.after', ({ directories }) => bakeSite(directories.output));
}
