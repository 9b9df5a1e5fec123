// hf:OWNER/NAME[@REVISION][/FILE] in the npm command, wherever it takes a CONFIG: the model's
// config.json fetched from the Hugging Face Hub, or the metadata of its GGUF file read with
// HTTP Range requests through the core's GGUF reader (web/api/hub.js, the element's code too).
// HF_ENDPOINT names the Hub or a mirror and HF_TOKEN is sent as Authorization: Bearer, as
// huggingface_hub reads them (constants.py ENDPOINT, utils/_auth.py get_token).

import { readFileSync } from 'node:fs';
import { hubRef, readEndpoint } from '../api/hub-ref.js';
import { HubError, ggufLabel, ggufSource, openModel } from '../api/hub.js';

export const HUB_USAGE = `CONFIG may also be hf:OWNER/NAME[@REVISION][/FILE] (this npm command only, not the native
CLI): the model's config.json, fetched from the Hugging Face Hub; for a repository of GGUF files,
the metadata of its GGUF file (FILE names one where there are several; a split model by its
first part), read by HTTP Range requests, never the whole file.
  HF_ENDPOINT  the Hub's address (default https://huggingface.co), or a mirror's
  HF_TOKEN     an access token, sent as Authorization: Bearer: gated and private models`;

export { HubError };

// The Hub as the environment names it: { endpoint, token, node }.
export function hubFromEnv(env = process.env) {
  const hub = { node: true, token: env.HF_TOKEN?.trim() || null };
  if (env.HF_ENDPOINT?.trim()) {
    const r = readEndpoint(env.HF_ENDPOINT);
    if (r.error) throw new HubError('hub_endpoint', `HF_ENDPOINT: ${r.error}`);
    hub.endpoint = r.value;
  }
  return hub;
}

// The API's readGguf, over the package's own wasm module (loaded once, when a GGUF is read).
let api = null;
async function readGguf(source) {
  api ??= import('../kvcalc.js').then(({ load, wasmUrl }) => load({ wasmBinary: readFileSync(wasmUrl) }));
  return (await api).readGguf(source);
}

/**
 * The config text an hf: argument names: its config.json, or its GGUF file's metadata document.
 * Throws HubError (or the API's KvCalcError for a GGUF file the core cannot read).
 */
export async function hubConfigText(arg, hub) {
  const ref = hubRef(arg);
  if (!ref) {
    throw new HubError('hub_bad_id', `${JSON.stringify(arg)} names no Hugging Face model: write hf:OWNER/NAME, hf:OWNER/NAME@REVISION, or hf:OWNER/NAME/FILE.gguf`);
  }
  const r = await openModel(hub, ref);
  if (r.kind === 'config') return r.text;
  if (r.kind === 'ggufs' && r.models.length > 1) {
    throw new HubError('hub_many_gguf', `${ref.id} has no config.json and ${r.models.length} GGUF models: name one, as ${ref.key}/${r.models[0].path}\n` +
      r.models.map((m) => `  ${ggufLabel(m)}`).join('\n'));
  }
  const model = r.kind === 'gguf' ? r : r.models[0];
  const source = await ggufSource(hub, ref, model.path, model.size);
  return (await readGguf(source)).text;
}
