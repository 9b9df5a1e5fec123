// A model's config.json fetched from the Hugging Face Hub (or a mirror), or a GGUF file's
// metadata read there with HTTP Range requests: for the element, once a reader asked
// (web/element/hub-panel.js), and for the npm command's hf:OWNER/NAME (web/node/hub-config.mjs).
// The Hub's layout, as huggingface_hub and huggingface.js use it:
//   GET {endpoint}/{id}/resolve/{revision}/{file}: the file (huggingface_hub hf_hub_url,
//     huggingface.js fileDownloadInfo). A small file may be redirected (307) within the
//     endpoint first; a file kept in LFS or Xet storage (a .gguf) is redirected (302) to the
//     Hub's storage on another origin (the *.hf.co hosts of huggingface.co/.well-known/meta.json),
//     which answers Range requests.
//   GET {endpoint}/api/models/{id}/revision/{revision}?blobs=true: the model's files,
//     siblings [{rfilename, size}] (hub-docs api.md; huggingface_hub HfApi.model_info, whose
//     files_metadata asks blobs=true, and RepoSibling).
//   Refusals: 401 for a gated, private or missing repository to a client not signed in, 403
//     for a gated one whose conditions the token's account has not accepted, 404 for a missing
//     file or revision; the X-Error-Code header names which (GatedRepo, RepoNotFound,
//     EntryNotFound, RevisionNotFound: huggingface_hub utils/_http.py hf_raise_for_status), and
//     the Hub lets pages read it (Access-Control-Expose-Headers).
// Every failure is a HubError whose message says what happened and what to do, in the words
// of the place it happens: the page (paste the config) or the command line (HF_TOKEN, a path).

import { HUB_ENDPOINT, fileUrl } from './hub-ref.js';
import { SLICE_BYTES } from './gguf-read.js';

/** The core reads a config text of at most 1 MiB (core/config/json.hpp max_json_bytes). */
export const MAX_CONFIG_BYTES = 1024 * 1024;
// A model's file list: a few hundred bytes a file; the largest repositories list thousands.
const MAX_LISTING_BYTES = 16 * 1024 * 1024;
/** How long one request (and its body) may take. */
export const TIMEOUT_MS = 30000;
// How long a failed request waits for the page's securitypolicyviolation event, which the
// browser queues as a task of its own: at most this, and no longer than it takes to arrive.
const CSP_EVENT_MS = 250;

export class HubError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.field = 'config';
  }
}

// Every call's first argument, `hub`, says where and how to ask: { endpoint (default the Hub),
// token (sent as Authorization: Bearer: the npm command's HF_TOKEN), node (true in the npm
// command: the messages tell of HF_TOKEN and paths, not of pasting), signal (the caller's
// cancel), timeoutMs }.
const endpointOf = (hub) => hub.endpoint ?? HUB_ENDPOINT;
const originOf = (url) => new URL(url).origin;
/** 8.3 MB, 4.9 GB. */
export const sizeText = (n) => (n >= 1e9 ? `${(n / 1e9).toLocaleString('en-US', { maximumFractionDigits: 1 })} GB`
  : `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} MB`);

// What to do instead, in the page or on the command line (gguf: a .gguf file's address).
const instead = (hub, url, gguf = false) => (hub.node ? `download ${url} and give kvcalc its path`
  : gguf ? `download ${url} and pick it in "Use your own config" (only its metadata is read there)`
    : `download ${url} and paste it in "Use your own config"`);

// The page's connect-src violations while a request runs (none in Node).
function watchCsp() {
  if (typeof document === 'undefined') return null;
  const blocked = [];
  let arrived = () => {};
  const on = (e) => {
    if (/^connect-src/.test(e.effectiveDirective || e.violatedDirective)) {
      blocked.push(e.blockedURI);
      arrived();
    }
  };
  document.addEventListener('securitypolicyviolation', on);
  return {
    blocked,
    // The violations, once the event had a chance to arrive.
    settle: () => (blocked.length ? Promise.resolve() : new Promise((ok) => {
      arrived = ok;
      setTimeout(ok, CSP_EVENT_MS);
    })),
    stop: () => document.removeEventListener('securitypolicyviolation', on),
  };
}

// The connect-src entries that allow what was blocked. The browser names the address the page
// asked for, not where it was redirected (which it keeps from the page): a .gguf file's address
// on the endpoint, whose file list was read a moment before, is refused for the storage it
// redirects to, which for the Hub is one of its *.hf.co hosts (huggingface.co/.well-known/meta.json).
function cspMessage(hub, url, blockedUri, gguf) {
  let origin;
  try {
    origin = originOf(blockedUri);
  } catch {
    origin = originOf(url);
  }
  const endpoint = originOf(endpointOf(hub));
  const then = `Until then, ${instead(hub, url, gguf)}.`;
  if (gguf && origin === endpoint) {
    return `This page's Content-Security-Policy lets it connect to ${endpoint} but not to the storage it redirects .gguf files to: its author can allow that by adding to connect-src ` +
      `${endpoint === HUB_ENDPOINT ? 'https://*.hf.co (the Hub\'s storage hosts)' : `the origin in the Location header of ${url}`}. ${then}`;
  }
  const also = endpoint === HUB_ENDPOINT && !gguf ? ' (and https://*.hf.co, where the Hub keeps .gguf files, to read those)' : '';
  return `This page's Content-Security-Policy does not let it connect to ${origin}: its author can allow it by adding ${origin} to connect-src${also}. ${then}`;
}

// Why a request got no answer: cancelled, timed out, blocked by the page's CSP, offline.
async function unanswered(hub, url, cause, timedOut, csp, gguf) {
  if (hub.signal?.aborted) return new HubError('cancelled', 'Cancelled.');
  const seconds = (hub.timeoutMs ?? TIMEOUT_MS) / 1000;
  if (timedOut) {
    return new HubError('hub_timeout', `${url} did not answer within ${seconds} seconds: the server or the network is slow or down. Try again later, or ${instead(hub, url, gguf)}.`);
  }
  if (csp) {
    await csp.settle();
    if (csp.blocked.length) return new HubError('hub_csp', cspMessage(hub, url, csp.blocked[0], gguf));
  }
  const host = originOf(url);
  if (hub.node) {
    const why = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? String(cause);
    return new HubError('hub_offline', `could not reach ${host} (${why}): no network, or ${hub.endpoint ? 'HF_ENDPOINT is wrong' : 'the Hub is down'}. Try again, or ${instead(hub, url, gguf)}.`);
  }
  if (globalThis.navigator?.onLine === false) {
    return new HubError('hub_offline', `You are offline: kvcalc could not reach ${host}. Connect and try again, or paste the model's config.json in "Use your own config".`);
  }
  return new HubError('hub_offline', `kvcalc could not reach ${host}: the network is down, or the server does not let this page read its answer (CORS). Try again, or ${instead(hub, url, gguf)}.`);
}

// The Hub's refusal of a request, from its status and X-Error-Code (api: the request was for
// the model's description, so a 404 is the model's).
function refusal(hub, ref, url, response, api = false) {
  const code = response.headers.get('X-Error-Code') ?? '';
  const status = response.status;
  const page = `${endpointOf(hub)}/${ref.id}`;
  // What to do: the sentence, its first letter in lower case where it follows a colon.
  const signIn = hub.node
    ? (hub.token ? 'the account of HF_TOKEN has no access to it (or the token cannot read).' : 'set HF_TOKEN to an access token of an account that has access.')
    : `sign in on the Hub (${page}), download its config.json there and paste it in "Use your own config".`;
  const SignIn = signIn[0].toUpperCase() + signIn.slice(1);
  if ((status === 401 || status === 403) && code === 'GatedRepo') {
    return new HubError('hub_gated', `${ref.id} is gated: the Hub gives its files only to signed-in accounts that accepted its conditions at ${page}. ${SignIn}`);
  }
  if (status === 401 || code === 'RepoNotFound' || (api && status === 404)) {
    return new HubError('hub_not_found', `${ref.id}: no such model on ${originOf(url)}, or it is private (the Hub answers both alike to ${hub.token ? 'an account without access' : 'a client not signed in'}). Check the id${hub.node ? '' : ' (OWNER/NAME, as on its page)'}; for a private model: ${signIn}`);
  }
  if (status === 403) {
    return new HubError('hub_forbidden', `${originOf(url)} refused access to ${ref.id} (403${response.headers.get('X-Error-Message') ? `: ${response.headers.get('X-Error-Message')}` : ''}). ${SignIn}`);
  }
  if (status === 404 && code === 'RevisionNotFound') {
    return new HubError('hub_not_found', `${ref.id} has no revision "${ref.revision}" (a branch, tag or commit): check it on ${page}.`);
  }
  if (status === 404) {
    return new HubError('hub_no_file', `${url}: not found (404). Check the model id and the file's name on ${page}.`);
  }
  if (status === 429) {
    return new HubError('hub_busy', `${originOf(url)} is limiting requests from here (429): try again in a few minutes, or ${instead(hub, url)}.`);
  }
  return new HubError('hub_http', `${url} answered ${status}${response.statusText ? ` ${response.statusText}` : ''}: try again later, or ${instead(hub, url)}.`);
}

// One GET: its response goes to answer(response) (which reads the body, bounded), under the
// timeout and the caller's signal. local: the answer must come from the endpoint's origin (a
// config or the file list); a .gguf is redirected to the Hub's storage.
async function get(hub, url, { range = null, local = true, gguf = false }, answer) {
  // One signal for the request: the timeout's, which the caller's cancel aborts too.
  const timer = new AbortController();
  const { signal } = timer;
  const cancel = () => timer.abort();
  if (hub.signal?.aborted) cancel();
  hub.signal?.addEventListener('abort', cancel);
  let timedOut = false;
  const clock = setTimeout(() => {
    timedOut = true;
    timer.abort();
  }, hub.timeoutMs ?? TIMEOUT_MS);
  const csp = hub.node ? null : watchCsp();
  const headers = {};
  if (hub.token) headers.Authorization = `Bearer ${hub.token}`;
  // One range, first-last: a CORS-safelisted Range header (no preflight, which the Hub's
  // storage does not answer: huggingface/datasets#7931), as huggingface.js's gguf() asks.
  if (range) headers.Range = `bytes=${range[0]}-${range[1] - 1}`;
  try {
    let response;
    try {
      response = await fetch(url, { headers, signal, redirect: 'follow' });
    } catch (cause) {
      throw await unanswered(hub, url, cause, timedOut, csp, gguf);
    }
    if (local && response.redirected && originOf(response.url) !== originOf(url)) {
      response.body?.cancel().catch(() => {});
      throw new HubError('hub_redirect', `${url} was redirected to ${originOf(response.url)}, another origin: kvcalc reads a config.json and a file list only from the endpoint it names (${endpointOf(hub)}). Check the endpoint, or ${instead(hub, url)}.`);
    }
    try {
      return await answer(response);
    } catch (cause) {
      if (cause instanceof HubError) throw cause;
      throw await unanswered(hub, url, cause, timedOut, csp, gguf);
    }
  } finally {
    clearTimeout(clock);
    hub.signal?.removeEventListener('abort', cancel);
    csp?.stop();
  }
}

// The body's bytes, at most max: past it, tooLarge() is thrown (truncate: the first max bytes
// are kept and the rest is not read).
async function readBounded(response, max, tooLarge, truncate = false) {
  const declared = Number(response.headers.get('Content-Length'));
  if (!truncate && declared > max && !response.headers.get('Content-Encoding')) {
    response.body?.cancel().catch(() => {});
    throw tooLarge(declared);
  }
  const reader = response.body.getReader();
  const parts = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (length + value.length > max) {
      reader.cancel().catch(() => {});
      if (!truncate) throw tooLarge(null);
      parts.push(value.subarray(0, max - length));
      length = max;
      break;
    }
    parts.push(value);
    length += value.length;
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

// A refusal's body (a line of JSON), read to its end so the request ends as answered; a long
// one is cut.
const drain = (response) => readBounded(response, 65536, null, true).catch(() => null);

// A JSON object's text, or the HubError saying what came instead.
function jsonText(hub, url, response, bytes, what) {
  let text = null;
  let value = null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const start = (text ?? '').trim().slice(0, 40).replace(/\s+/g, ' ');
    const type = response.headers.get('Content-Type');
    return new HubError('hub_not_json', `${url} is not ${what}: ${start ? `it starts "${start}"` : 'it is empty or not text'}${type ? ` (${type.split(';')[0]})` : ''}. The endpoint may have answered with a page of its own; ${instead(hub, url)}.`);
  }
  return text;
}

/**
 * A config.json (or another .json file of the repository) as text: { text, url }. Throws
 * HubError; hub_no_file when the repository has no such file.
 */
export async function fetchConfig(hub, ref, path = 'config.json') {
  const url = fileUrl(endpointOf(hub), ref, path);
  return get(hub, url, {}, async (response) => {
    if (!response.ok) {
      await drain(response);
      throw refusal(hub, ref, url, response);
    }
    const bytes = await readBounded(response, MAX_CONFIG_BYTES, (n) => new HubError('hub_too_large',
      `${url} is ${n ? `${n.toLocaleString('en-US')} bytes` : 'more than 1 MiB'}, more than kvcalc reads in a config.json (1 MiB, ${MAX_CONFIG_BYTES.toLocaleString('en-US')} bytes; a model's config is kilobytes): it is not a model's config.`));
    const text = jsonText(hub, url, response, bytes, 'a JSON config');
    if (text instanceof HubError) throw text;
    return { text, url };
  });
}

/** The repository's files at its revision: [{ path, size }] (size null where not given). */
export async function listFiles(hub, ref) {
  const url = `${endpointOf(hub)}/api/models/${ref.id}/revision/${encodeURIComponent(ref.revision)}?blobs=true`;
  return get(hub, url, {}, async (response) => {
    if (!response.ok) {
      await drain(response);
      throw refusal(hub, ref, url, response, response.headers.get('X-Error-Code') !== 'RevisionNotFound');
    }
    const bytes = await readBounded(response, MAX_LISTING_BYTES, () => new HubError('hub_too_large',
      `${url}: the list of ${ref.id}'s files is more than ${sizeText(MAX_LISTING_BYTES)}; name the file (${ref.id}/FILE.gguf).`));
    const text = jsonText(hub, url, response, bytes, "the Hub's description of a model");
    if (text instanceof HubError) throw text;
    const siblings = JSON.parse(text).siblings;
    if (!Array.isArray(siblings)) throw new HubError('hub_not_json', `${url} lists no files (no "siblings"): is ${endpointOf(hub)} a Hugging Face Hub?`);
    return siblings.filter((s) => typeof s?.rfilename === 'string').map((s) => ({
      path: s.rfilename,
      size: Number.isSafeInteger(s.size) ? s.size : Number.isSafeInteger(s.lfs?.size) ? s.lfs.size : null,
    }));
  });
}

// A split GGUF's parts, -00001-of-00003.gguf (llama.cpp's gguf-split names; huggingface.js
// gguf.ts RE_GGUF_SHARD_FILE): the first part holds the metadata.
const SHARD = /-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * The GGUF models among a repository's files: [{ path, size, parts }], one per model (a split
 * model by its first part), in the list's order.
 */
export function ggufModels(files) {
  const out = [];
  for (const f of files) {
    if (!/\.gguf$/i.test(f.path)) continue;
    const m = SHARD.exec(f.path);
    if (m && Number(m[1]) !== 1) continue;
    out.push({ path: f.path, size: f.size, parts: m ? Number(m[2]) : 1 });
  }
  return out;
}

/** "Qwen3-8B-Q4_K_M.gguf (5 GB)", "Qwen3-235B-Q4_K_M-00001-of-00003.gguf (3 parts)". */
export const ggufLabel = (m) => `${m.path} (${m.parts > 1 ? `${m.parts} parts` : m.size === null ? 'size not listed' : sizeText(m.size)})`;

/**
 * What a reference names: { kind: 'config', text, url } (its config.json, or the .json file it
 * names), { kind: 'gguf', path, size } (the .gguf file it names), or { kind: 'ggufs', models }
 * (a repository without a config.json, and the GGUF models it has). ggufs: list the GGUF
 * models whether or not there is a config.json.
 */
export async function openModel(hub, ref, { ggufs = false } = {}) {
  if (ref.path && /\.gguf$/i.test(ref.path)) {
    // Its size, from the file list (which also says whether it is there).
    const file = (await listFiles(hub, ref)).find((f) => f.path === ref.path);
    if (!file) throw new HubError('hub_no_file', `${ref.id} has no file ${ref.path} at ${ref.revision}: check its name on ${endpointOf(hub)}/${ref.id}.`);
    return { kind: 'gguf', path: ref.path, size: file.size };
  }
  if (!ggufs) {
    try {
      return { kind: 'config', ...(await fetchConfig(hub, ref, ref.path ?? 'config.json')) };
    } catch (e) {
      if (e.code !== 'hub_no_file' || ref.path) throw e;
    }
  }
  const models = ggufModels(await listFiles(hub, ref));
  if (!models.length) {
    throw new HubError('hub_no_model', `${ref.id} has ${ggufs ? 'no' : 'neither a config.json nor any'} .gguf file at ${ref.revision}: kvcalc sizes a model from one of those. Check the model on ${endpointOf(hub)}/${ref.id}.`);
  }
  return { kind: 'ggufs', models };
}

/**
 * A .gguf file of the repository as a source for readGguf() ({ name, size, read }): each read is
 * one Range request, bounded to the bytes it asked for; onBytes(n) counts what arrives. size:
 * the file's size as the file list gives it, else (null: a server that lists no sizes) the first
 * request's Content-Range.
 */
export async function ggufSource(hub, ref, path, size = null, onBytes = () => {}) {
  const url = fileUrl(endpointOf(hub), ref, path);
  const name = path.split('/').pop();
  const read = (start, end) => get(hub, url, { range: [start, end], local: false, gguf: true }, async (response) => {
    if (response.status === 200) {
      // The whole file is on its way: never read it.
      response.body?.cancel().catch(() => {});
      const length = Number(response.headers.get('Content-Length'));
      throw new HubError('hub_no_range', `${originOf(response.url)} ignored the Range request for ${name} and began sending the whole file${length ? ` (${sizeText(length)})` : ''}: kvcalc reads only a GGUF file's metadata, never a whole model. ${hub.node ? 'Download the file and give kvcalc its path' : 'Download the file and pick it in "Use your own config"'} (only its metadata is read there).`);
    }
    if (response.status !== 206) {
      await drain(response);
      throw refusal(hub, ref, url, response);
    }
    // Content-Range (exposed by the Hub's storage): the bytes are the ones asked for.
    const range = response.headers.get('Content-Range');
    const m = range && /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(range);
    if (range && (!m || Number(m[1]) !== start)) {
      response.body?.cancel().catch(() => {});
      throw new HubError('hub_bad_range', `${originOf(response.url)} answered bytes ${range} when asked for ${start}-${end - 1} of ${name}: kvcalc cannot read it there. ${hub.node ? 'Download the file and give kvcalc its path' : 'Download the file and pick it in "Use your own config"'}.`);
    }
    const bytes = await readBounded(response, end - start, null, true);
    onBytes(bytes.length);
    return { bytes, total: m && m[3] !== '*' ? Number(m[3]) : null };
  });
  let first = null;
  if (size === null) {
    // The size from the first slice's Content-Range; that slice is kept for the reader's first read.
    first = await read(0, SLICE_BYTES);
    if (first.total === null) {
      throw new HubError('hub_bad_range', `${url}: the server did not say the file's size (Content-Range): kvcalc cannot bound its reading of ${name}. Download the file and ${hub.node ? 'give kvcalc its path' : 'pick it in "Use your own config"'}.`);
    }
    size = first.total;
  }
  return {
    name,
    size,
    url,
    read: async (start, end) => {
      if (first && start === 0) {
        const { bytes } = first;
        first = null;
        if (bytes.length >= end) return bytes.subarray(0, end);
      }
      return (await read(start, end)).bytes;
    },
  };
}
