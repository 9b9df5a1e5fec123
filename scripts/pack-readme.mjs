// The npm package's README is web/README.md (how to install and use the package); the
// repository's README.md is the contributors' (how to build and test it). npm always packs
// the README at the package's root, so `npm pack` and `npm publish` swap them for the time
// of the pack (prepack: swap, postpack: restore). A pack that stopped half-way is undone by
// the next run of either.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = join(root, 'README.md');
const packageReadme = join(root, 'web/README.md');
const saved = join(root, 'build/pack/README.md');

const restore = () => {
  if (existsSync(saved)) {
    copyFileSync(saved, readme);
    rmSync(saved);
  }
};

if (process.argv[2] === 'swap') {
  restore();
  mkdirSync(dirname(saved), { recursive: true });
  copyFileSync(readme, saved);
  copyFileSync(packageReadme, readme);
} else if (process.argv[2] === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/pack-readme.mjs swap|restore');
  process.exit(2);
}
if (process.argv[2] === 'swap' && readFileSync(readme, 'utf8') !== readFileSync(packageReadme, 'utf8')) process.exit(1);
