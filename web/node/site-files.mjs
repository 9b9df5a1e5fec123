// A built site's HTML files, for the baker (bake.mjs, whose `kvcalc/bake` exports them): the
// files of a path, and a page written whole.

import { readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The HTML files of a path: the path itself when it is a file, else every .html file under
 * the folder (node_modules and dot folders skipped), in name order. Throws when nothing is there.
 * @param {string} path
 * @returns {string[]}
 */
export function htmlFiles(path, out = []) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new Error(`${path}: no such file or folder`);
  if (st.isFile()) {
    out.push(path);
  } else {
    for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const p = join(path, entry.name);
      if (entry.isDirectory()) htmlFiles(p, out);
      else if (/\.html?$/i.test(entry.name)) out.push(p);
    }
  }
  return out;
}

/**
 * Writes a baked page over its file: beside it first, then renamed over it, so a page is
 * never half written.
 * @param {string} file
 * @param {string} html
 */
export function writeWhole(file, html) {
  const temp = `${file}.kvcalc-${process.pid}.tmp`;
  try {
    writeFileSync(temp, html);
    renameSync(temp, file);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}
