// A local stand-in for the Hugging Face Hub, for the tests of hf: ids (the Hub is not
// reachable from the test machines): two servers on 127.0.0.1, the Hub and its storage (a
// second origin, where the Hub redirects files kept in LFS or Xet), each answering as the Hub
// is documented or observed to, with the source of each behaviour beside it. It records every
// request (which origin, the path, the Range and Authorization headers) and every byte the
// storage sends, so the tests can count them.
//
// repos: { 'OWNER/NAME': { files: { PATH: FILE }, gated?, revisions? } } where FILE is a string
// or Buffer (a small file, kept in git), { gguf: Buffer, size } (a large file: the Buffer is its
// first bytes, zeros follow up to size; served by the storage), or a behaviour of the test's:
// { hang: true } (never answers), { redirect: true } (redirected to the storage's origin),
// { html: '...' } (a page in place of the file); a repo's noRange: true makes its storage
// ignore Range requests. token: the access token of an account that may read gated repos.

import { createServer } from 'node:http';

// The headers the Hub lets pages read, as its responses carry them (captured from huggingface.co
// resolve and API responses: access-control-expose-headers).
const HUB_EXPOSED = 'X-Repo-Commit,X-Request-Id,X-Error-Code,X-Error-Message,X-Total-Count,ETag,Link,Accept-Ranges,Content-Range,X-Linked-Size,X-Linked-ETag,X-Xet-Hash';
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

function listen(server) {
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${server.address().port}`));
  });
}

// Bytes [start, end) of a large file: its first bytes, then zeros.
function slice(file, start, end) {
  const out = Buffer.alloc(end - start);
  if (start < file.gguf.length) file.gguf.copy(out, 0, start, Math.min(end, file.gguf.length));
  return out;
}

export async function startHub({ repos, token = null }) {
  const requests = [];
  const served = { storage: 0 };
  const sockets = new Set();
  let storage = '';

  const hub = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const origin = req.headers.origin;
    requests.push({ server: 'hub', method: req.method, path: url.pathname + url.search, authorization: req.headers.authorization ?? null, range: req.headers.range ?? null });
    // The Hub answers any origin, naming it (Access-Control-Allow-Origin: the page's origin,
    // Vary: Origin), and exposes its error headers to pages (captured responses, above).
    const cors = origin ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Expose-Headers': HUB_EXPOSED } : {};
    const send = (status, headers, body = '') => {
      res.writeHead(status, { ...cors, ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method === 'OPTIONS') {
      return send(204, { 'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS', 'Access-Control-Allow-Headers': 'Authorization, Range, Content-Type', 'Access-Control-Max-Age': '86400' });
    }
    // A token is an account's; the one given is the account that accepted the gated models' conditions.
    const signedIn = Boolean(req.headers.authorization);
    const allowed = token !== null && req.headers.authorization === `Bearer ${token}`;
    // Refusals as huggingface_hub utils/_http.py hf_raise_for_status reads them: X-Error-Code
    // and X-Error-Message. A missing (or private) repository is 401 to a client not signed in,
    // and 404 to one signed in; a gated one is 401 to a client not signed in (GatedRepo) and 403
    // to an account that has not accepted its conditions; a missing revision or file is 404.
    const refuse = (status, code, message) => send(status, { 'Content-Type': 'application/json', 'X-Error-Code': code, 'X-Error-Message': message }, JSON.stringify({ error: message }));
    const repoOf = (owner, name, revision) => {
      const id = `${owner}/${name}`;
      const repo = repos[id];
      if (!repo) {
        refuse(signedIn ? 404 : 401, 'RepoNotFound', 'Repository not found');
        return null;
      }
      if (repo.gated && !allowed) {
        refuse(signedIn ? 403 : 401, 'GatedRepo', `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`);
        return null;
      }
      if (!(repo.revisions ?? ['main']).includes(revision)) {
        refuse(404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
        return null;
      }
      return repo;
    };

    // GET /api/models/{id}/revision/{revision}: the model's description, its files as
    // siblings [{rfilename}], with their size when asked blobs=true (hub-docs docs/hub/api.md;
    // huggingface_hub hf_api.py model_info and RepoSibling).
    let m = /^\/api\/models\/([^/]+)\/([^/]+)(?:\/revision\/([^/]+))?$/.exec(url.pathname);
    if (m) {
      const revision = decodeURIComponent(m[3] ?? 'main');
      const repo = repoOf(m[1], m[2], revision);
      if (!repo) return undefined;
      const blobs = url.searchParams.get('blobs') === 'true';
      const siblings = Object.entries(repo.files).map(([rfilename, f]) => {
        const size = f.gguf ? f.size : typeof f === 'string' || Buffer.isBuffer(f) ? Buffer.byteLength(f) : Buffer.byteLength(f.html ?? '');
        return blobs ? { rfilename, size, ...(f.gguf && { lfs: { size, sha256: COMMIT, pointerSize: 135 } }) } : { rfilename };
      });
      return send(200, { 'Content-Type': 'application/json; charset=utf-8' }, JSON.stringify({ id: `${m[1]}/${m[2]}`, sha: COMMIT, gated: repo.gated ? 'manual' : false, siblings }));
    }

    // A small file, where the Hub's resolve redirects it (307, on its own origin: captured
    // "HTTP/2 307 location: /api/resolve-cache/...").
    m = /^\/api\/resolve-cache\/models\/([^/]+)\/([^/]+)\/[0-9a-f]{40}\/(.+)$/.exec(url.pathname);
    if (m) {
      const file = repos[`${m[1]}/${m[2]}`]?.files[decodeURIComponent(m[3])];
      if (file === undefined) return refuse(404, 'EntryNotFound', 'Entry not found');
      if (file.html) return send(200, { 'Content-Type': 'text/html; charset=utf-8' }, file.html);
      return send(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(file)), 'X-Repo-Commit': COMMIT, ETag: `"${COMMIT}"` }, file);
    }

    // GET /{id}/resolve/{revision}/{path}: the file (huggingface_hub file_download.py
    // hf_hub_url; huggingface.js lib/file-download-info.ts).
    m = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (m) {
      const revision = decodeURIComponent(m[3]);
      const repo = repoOf(m[1], m[2], revision);
      if (!repo) return undefined;
      const path = m[4].split('/').map(decodeURIComponent).join('/');
      const file = repo.files[path];
      if (file === undefined) return refuse(404, 'EntryNotFound', 'Entry not found');
      if (file.hang) return undefined;  // the request stays open until the test ends
      if (file.redirect) return send(302, { Location: `${storage}/elsewhere/${path}` });
      if (file.gguf) {
        // A file in LFS / Xet storage: 302 to a signed address on the storage's origin, with
        // the file's size (X-Linked-Size) (huggingface_hub file_download.py
        // get_hf_file_metadata; captured: "returned 302 to https://us.aws.cdn.hf.co/...").
        return send(302, { Location: `${storage}/xet-bridge/${m[1]}/${m[2]}/${encodeURIComponent(path)}?X-Amz-Expires=3600&X-Amz-Signature=0f0f`, 'X-Linked-Size': String(file.size), 'X-Repo-Commit': COMMIT });
      }
      return send(307, { Location: `/api/resolve-cache/models/${m[1]}/${m[2]}/${COMMIT}/${m[4]}` });
    }
    return send(404, { 'Content-Type': 'text/plain' }, 'not found');
  });

  const store = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    requests.push({ server: 'storage', method: req.method, path: url.pathname, authorization: req.headers.authorization ?? null, range: req.headers.range ?? null });
    // The storage does not answer CORS preflights (huggingface/datasets#7931: "Response to
    // preflight request doesn't pass access control check" on cas-bridge.xethub.hf.co): a
    // reader must ask with a CORS-safelisted Range (one range, bytes=first-last).
    if (req.method === 'OPTIONS') {
      res.writeHead(403, { 'Content-Type': 'text/plain' });
      return res.end('Forbidden');
    }
    // Its answers carry Access-Control-Allow-Origin: * and Access-Control-Expose-Headers: *
    // (observed on the Hub's storage: "access-control-allow-origin: *,
    // access-control-expose-headers: *"), and Accept-Ranges: bytes.
    const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': '*', 'Accept-Ranges': 'bytes' };
    const m = /^\/xet-bridge\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    const repo = m && repos[`${m[1]}/${m[2]}`];
    const file = repo?.files[decodeURIComponent(m[3])];
    if (!file?.gguf) {
      res.writeHead(404, { ...cors, 'Content-Type': 'text/plain' });
      return res.end('not found');
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!range || repo.noRange) {
      // The whole file, streamed as the reader takes it (a server that ignores Range).
      res.writeHead(200, { ...cors, 'Content-Type': 'application/octet-stream', 'Content-Length': String(file.size) });
      let at = 0;
      const more = () => {
        while (at < file.size) {
          const end = Math.min(file.size, at + 65536);
          const chunk = slice(file, at, end);
          at = end;
          served.storage += chunk.length;
          if (!res.write(chunk)) return res.once('drain', more);
        }
        return res.end();
      };
      res.on('close', () => { at = file.size; });
      return more();
    }
    const start = Number(range[1]);
    const end = Math.min(file.size, range[2] ? Number(range[2]) + 1 : file.size);
    if (start >= file.size) {
      res.writeHead(416, { ...cors, 'Content-Range': `bytes */${file.size}` });
      return res.end();
    }
    const body = slice(file, start, end);
    served.storage += body.length;
    res.writeHead(206, { ...cors, 'Content-Type': 'application/octet-stream', 'Content-Length': String(body.length), 'Content-Range': `bytes ${start}-${end - 1}/${file.size}` });
    return res.end(body);
  });

  for (const s of [hub, store]) s.on('connection', (c) => { sockets.add(c); c.on('close', () => sockets.delete(c)); });
  const endpoint = await listen(hub);
  storage = await listen(store);
  return {
    endpoint,
    storage,
    requests,
    served,
    async close() {
      for (const c of sockets) c.destroy();
      await Promise.all([hub, store].map((s) => new Promise((ok) => s.close(ok))));
    },
  };
}
