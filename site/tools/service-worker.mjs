// Writes the built site's service worker: the template site/sw.js with the list of every
// file of the build and a version that is a hash of their paths and bytes, so any change to
// any file gives a new worker, and the browser replaces the cached copy of the site.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

export function writeServiceWorker({ template, outDir, exclude = ['sw.js'] }) {
  const files = listFiles(outDir).filter((f) => !exclude.includes(f));
  const hash = createHash('sha256');
  for (const f of files) {
    hash.update(f);
    hash.update('\0');
    hash.update(readFileSync(join(outDir, f)));
    hash.update('\0');
  }
  const version = hash.digest('hex').slice(0, 16);
  const source = readFileSync(template, 'utf8');
  const withVersion = source.replace(/^const VERSION = '[^']*';$/m, `const VERSION = '${version}';`);
  const withFiles = withVersion.replace(/^const FILES = \[\];$/m, `const FILES = ${JSON.stringify(files, null, 2)};`);
  if (withVersion === source || withFiles === withVersion) {
    throw new Error(`${template}: expected the lines "const VERSION = '...';" and "const FILES = [];" to fill in`);
  }
  writeFileSync(join(outDir, 'sw.js'), withFiles);
  return { version, files };
}
