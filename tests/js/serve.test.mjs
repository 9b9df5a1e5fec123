// scripts/serve.mjs (npm start) serves as a documentation host does: compressed (brotli or
// gzip, as the browser accepts), with an ETag and Cache-Control: no-cache, 304 when unchanged.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CSP, startServer } from '../../scripts/serve.mjs';
import { dist } from './support.mjs';

let server;
let port;
before(async () => { server = await startServer({ mounts: [['/dist/', dist]] }); port = server.address().port; });
after(() => new Promise((ok) => server.close(ok)));

// Raw bytes and headers, no decoding (fetch would decode).
const get = (path, headers = {}) => new Promise((ok, fail) => {
  request({ host: '127.0.0.1', port, path, headers }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
  }).on('error', fail).end();
});

test('text and wasm go out compressed as the browser accepts, and decode to the file', async () => {
  for (const file of ['kvcalc.js', 'kvcalc_core.wasm']) {
    const bytes = readFileSync(join(dist, file));
    const br = await get(`/dist/${file}`, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(brotliDecompressSync(br.body), bytes);
    assert.ok(br.body.length < bytes.length / 2, `${file}: ${br.body.length} of ${bytes.length}`);
    const gz = await get(`/dist/${file}`, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.body), bytes);
    const plain = await get(`/dist/${file}`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.body, bytes);
    for (const r of [br, gz, plain]) {
      assert.equal(r.headers.vary, 'Accept-Encoding');
      assert.equal(r.headers['cache-control'], 'no-cache');
      assert.equal(r.headers['content-security-policy'], CSP);
    }
    assert.equal(new Set([br, gz, plain].map((r) => r.headers.etag)).size, 3, 'each encoding has its own ETag');
  }
  assert.equal((await get('/dist/kvcalc_core.wasm')).headers['content-type'], 'application/wasm');
});

test('a browser that has the file gets a 304 with no body; a changed file or another encoding, the file', async () => {
  const first = await get('/dist/kvcalc.js', { 'accept-encoding': 'br' });
  const again = await get('/dist/kvcalc.js', { 'accept-encoding': 'br', 'if-none-match': first.headers.etag });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  assert.equal(again.headers.etag, first.headers.etag);
  const other = await get('/dist/kvcalc.js', { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag });
  assert.equal(other.status, 200);
  const stale = await get('/dist/kvcalc.js', { 'if-none-match': '"not-this-one"' });
  assert.equal(stale.status, 200);
});
