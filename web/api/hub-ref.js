// A Hugging Face Hub model as a reader or a command line names it, and the addresses the Hub
// serves it at. Small on purpose: the element's offer (web/element/hub-offer.js, in every
// live element) imports it; the fetching itself is web/api/hub.js, loaded when first used.
//
//   OWNER/NAME                the model, at its main revision
//   OWNER/NAME@REVISION       a branch, a tag, a commit or refs/pr/N
//   OWNER/NAME[@REVISION]/FILE   a file of the repository (a .gguf, or a config.json elsewhere)
//
// with hf: in front on a command line (the path layout of huggingface_hub's HfFileSystem,
// hf://OWNER/NAME@REVISION/FILE), or the model's page address (https://huggingface.co/OWNER/NAME).

export const HUB_ENDPOINT = 'https://huggingface.co';
export const MAIN = 'main';

// huggingface_hub utils/_validators.py REPO_ID_REGEX: a namespace and a name of letters,
// digits, '_', '-' and '.', each starting and ending with a letter, digit or '_' (\b), the
// name at most 96 characters. kvcalc asks for the namespace (OWNER/NAME): a bare name is an
// old alias the Hub redirects, and any word typed in the model search would look like one.
const PART = '\\w(?:[\\w.-]*\\w)?';
const REF = new RegExp(`^(?:hf:|https?://(?:www\\.)?(?:huggingface|hf)\\.co/)?(${PART})/(${PART})` +
  '(?:@(refs/pr/\\d+|[^/\\s]+))?(?:/(\\S+?))?/?$');

/**
 * The model a text names, or null: { id, revision, path (a file in the repository, or null),
 * key (the hf: form, the same whichever way it was written) }.
 * @param {string} text
 */
export function hubRef(text) {
  const m = REF.exec(String(text).trim());
  const file = m?.[4];
  // A file is a .gguf or a .json; no segment may be . or .. (the address would leave the repository).
  if (!m || m[2].length > 96 || (file && (!/\.(gguf|json)$/i.test(file) || /(^|\/)\.\.?(\/|$)/.test(file)))) return null;
  const id = `${m[1]}/${m[2]}`;
  const revision = m[3] ?? MAIN;
  const path = file ?? null;
  return { id, revision, path, key: `hf:${id}${revision === MAIN ? '' : `@${revision}`}${path ? `/${path}` : ''}` };
}

/**
 * A file's address on the Hub: /{id}/resolve/{revision}/{path}, as huggingface_hub's
 * hf_hub_url and huggingface.js's downloadFile write it (the revision and each path segment
 * URL-encoded).
 */
export function fileUrl(endpoint, ref, path) {
  return `${endpoint}/${ref.id}/resolve/${encodeURIComponent(ref.revision)}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * A Hub endpoint as written in the hub-endpoint attribute or HF_ENDPOINT (huggingface_hub's
 * convention: an address such as https://hf-mirror.com, which may have a path): { value }
 * without the trailing slash, or { error }.
 * @param {string} text
 */
export function readEndpoint(text) {
  let url;
  try {
    url = new URL(String(text).trim());
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash || url.username || url.password) {
    return { error: `expected the http(s) address of the Hub or a mirror (https://hf-mirror.com), got "${text}"` };
  }
  return { value: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}
