// What the browser benchmarks share: the built package they load, and the median of samples.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Stops the benchmark when dist/ (or the folder given) holds no build.
export function requireDist(dist) {
  if (!existsSync(join(dist, 'kvcalc.js'))) {
    console.error('bench: dist/kvcalc.js is missing; run bash scripts/build.sh first');
    process.exit(1);
  }
}

// The middle sample (the mean of the two middle ones for an even count).
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
