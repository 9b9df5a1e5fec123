// A static server for the site and the tests: 127.0.0.1 only, the strict CSP on every
// response, and the MIME types wasm streaming needs. `node scripts/serve.mjs [PORT]`
// serves site-build/ (or site/ before the first site build) with dist/ at /dist/.
// As a documentation host does: text and wasm compressed (brotli or gzip, as the browser
// accepts, with node's zlib), an ETag on every file, and `Cache-Control: no-cache`, so a
// browser keeps what it fetched and asks again each time (a 304 when nothing changed):
// the files' names carry no hash, so no file may be taken from the cache unasked.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
// The same, letting a reader's request for a model reach the Hugging Face Hub and its storage
// (site/snippets/csp-hub.txt): the demo site's policy (npm start). The tests keep CSP.
export const HUB_CSP = `${CSP}; connect-src 'self' https://huggingface.co https://*.hf.co`;

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8', '.webmanifest': 'application/manifest+json',
};

// Types worth compressing (images here are PNG, already compressed).
const COMPRESSIBLE = /^(text\/|application\/(json|wasm|manifest)|image\/svg)/;

// A file's body as sent for an Accept-Encoding: { body, encoding } (encoding null: as is).
// Compressed once per file version, then kept: [etag, encoding] -> bytes. Brotli at its
// best (11) but for big files (the wasm takes over a second at 11, a tenth at 9).
const compressed = new Map();
export function encode(bytes, type, etag, acceptEncoding = '') {
  if (!COMPRESSIBLE.test(type) || bytes.length < 256) return { body: bytes, encoding: null };
  // "br", "gzip;q=0.8": accepted unless its q is 0.
  const accepts = (name) => {
    const m = new RegExp(`(?:^|,)\\s*${name}\\s*(?:;\\s*q=([\\d.]+))?\\s*(?:,|$)`).exec(acceptEncoding);
    return m !== null && (m[1] === undefined || Number(m[1]) > 0);
  };
  const encoding = accepts('br') ? 'br' : accepts('gzip') ? 'gzip' : null;
  if (!encoding) return { body: bytes, encoding: null };
  const key = `${etag} ${encoding}`;
  let body = compressed.get(key);
  if (!body) {
    body = encoding === 'br'
      ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: bytes.length > 65536 ? 9 : 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
      : gzipSync(bytes, { level: 9 });
    if (compressed.size > 500) compressed.clear();
    compressed.set(key, body);
  }
  return { body, encoding };
}

// mounts: [[urlPrefix, directory]], the longest prefix first.
export function startServer({ port = 0, mounts, csp = CSP, log = false } = {}) {
  const sorted = [...mounts].sort((a, b) => b[0].length - a[0].length)
    .map(([p, d]) => [p, resolve(d)]);
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    let path = decodeURIComponent(url.pathname);
    const mount = sorted.find(([p]) => path.startsWith(p));
    const send = (code, body, type = 'text/plain; charset=utf-8', extra = {}) => {
      res.writeHead(code, { 'Content-Type': type, 'Content-Security-Policy': csp,
        'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff', ...extra });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (!mount) return send(404, 'not found');
    const [prefix, dir] = mount;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (file !== dir && !file.startsWith(dir + sep)) return send(403, 'forbidden');
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const bytes = await readFile(file);
      const type = TYPES[extname(file)] || 'application/octet-stream';
      const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
      const { body, encoding } = encode(bytes, type, etag, req.headers['accept-encoding']);
      // The ETag names the file's content; each encoding of it gets its own.
      const tag = encoding ? `${etag.slice(0, -1)}-${encoding}"` : etag;
      const headers = { ETag: tag, Vary: 'Accept-Encoding', ...(encoding && { 'Content-Encoding': encoding }) };
      const fresh = (req.headers['if-none-match'] || '').split(/\s*,\s*/).includes(tag);
      if (log) console.log(req.method, path, fresh ? 304 : 200);
      if (fresh) return send(304, undefined, type, headers);
      send(200, body, type, headers);
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
  const server = await startServer({ port, mounts: defaultMounts(), log: true, csp: HUB_CSP });
  const { port: actual } = server.address();
  console.log(`kvcalc site: http://127.0.0.1:${actual}/  (Ctrl-C to stop)`);
}
