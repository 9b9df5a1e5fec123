// A static server for the site and the tests: 127.0.0.1 only, the strict CSP on every
// response, and the MIME types wasm streaming needs. `node scripts/serve.mjs [PORT]`
// serves site-build/ (or site/ before the first site build) with dist/ at /dist/.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8', '.webmanifest': 'application/manifest+json',
};

// mounts: [[urlPrefix, directory]], the longest prefix first.
export function startServer({ port = 0, mounts, csp = CSP, log = false } = {}) {
  const sorted = [...mounts].sort((a, b) => b[0].length - a[0].length)
    .map(([p, d]) => [p, resolve(d)]);
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let path = decodeURIComponent(url.pathname);
    const mount = sorted.find(([p]) => path.startsWith(p));
    const send = (code, body, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'Content-Type': type, 'Content-Security-Policy': csp,
        'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (!mount) return send(404, 'not found');
    const [prefix, dir] = mount;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (file !== dir && !file.startsWith(dir + sep)) return send(403, 'forbidden');
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      if (log) console.log(req.method, path, 200);
      send(200, body, TYPES[extname(file)] || 'application/octet-stream');
    } catch {
      if (log) console.log(req.method, path, 404);
      send(404, 'not found');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

export function defaultMounts(root = resolve(fileURLToPath(import.meta.url), '../..')) {
  const site = existsSync(join(root, 'site-build')) ? join(root, 'site-build') : join(root, 'site');
  return [['/', site], ['/dist/', join(root, 'dist')]];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.argv[2] || process.env.PORT || 8080);
  const server = await startServer({ port, mounts: defaultMounts(), log: true });
  const { port: actual } = server.address();
  console.log(`kvcalc site: http://127.0.0.1:${actual}/  (Ctrl-C to stop)`);
}
