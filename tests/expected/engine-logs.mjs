// The conformance table (tests/fixtures/engine-logs/manifest.json and llamacpp/manifest.json) for the Node tests, the
// browser test and the site's Conformance page: each real log with the config it is checked
// against, the check's options, and what kvcalc must reproduce, every derived figure checked
// against the arithmetic written beside it (expected.mjs evaluates it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluate, repoRoot, sharedDir } from './expected.mjs';

export const logsDir = join(repoRoot, 'tests', 'fixtures', 'engine-logs');

// "configs/x.json" is beside the logs; "../shared/configs/x.json" is the shared folder's.
export function configPath(rel) {
  const shared = '../shared/configs/';
  return rel.startsWith(shared) ? join(sharedDir, 'configs', rel.slice(shared.length)) : join(logsDir, rel);
}

// The value at a JSON pointer ("/log_blocks/memory_blocks_low"), or undefined.
export function atPointer(value, pointer) {
  return pointer.split('/').slice(1).reduce((v, k) => (v !== null && typeof v === 'object' ? v[k] : undefined), value);
}

// snake_case option names as the CLI's flags: kv_dtype -> --kv-dtype.
export function cliFlags(options) {
  return Object.entries(options).flatMap(([k, v]) => [`--${k.replace(/_/g, '-')}`, String(v)]);
}

// The engine ids of the llama.cpp manifest's "engine" (as the sources name them).
const llamaEngines = { 'llama.cpp': 'llamacpp', Ollama: 'ollama', 'LM Studio': 'lmstudio' };

// One table for every engine: the vLLM / SGLang manifest, then llama.cpp's, Ollama's and LM Studio's
// (tests/fixtures/engine-logs/llamacpp/manifest.json, whose model documents sit in llamacpp/gguf/).
export function conformanceCases() {
  const read = (rel) => JSON.parse(readFileSync(join(logsDir, rel), 'utf8'));
  const llama = read('llamacpp/manifest.json').map((e) => ({
    ...e,
    file: `llamacpp/${e.file}`,
    engine: llamaEngines[e.engine] ?? e.engine,
    config: e.gguf ? `llamacpp/${e.gguf}` : null,
  }));
  return [...read('manifest.json'), ...llama].map((e) => {
    const c = e.check;
    const config = e.config ?? e.config_same_geometry ?? null;
    const expect = Object.entries(c.expect ?? {}).map(([pointer, f]) => {
      if (f.arithmetic !== undefined && evaluate(f.arithmetic) !== BigInt(f.value)) {
        throw new Error(`manifest.json ${e.file} ${pointer}: ${f.arithmetic} is ${evaluate(f.arithmetic)}, not ${f.value}`);
      }
      return { pointer, value: f.value, arithmetic: f.arithmetic ?? null, from: f.from ?? null };
    });
    return {
      file: e.file, logPath: join(logsDir, e.file), source: e.source, engine: e.engine, version: e.engine_version,
      model: e.model, logSays: e.log_says, config, configPath: config ? configPath(config) : null,
      sameGeometry: !e.config && !!e.config_same_geometry,
      options: c.options ?? {}, status: c.status, reason: c.reason ?? null, error: c.error ?? null,
      expect, agree: c.agree ?? [], disagree: c.disagree ?? [], verdict: e.verdict ?? null,
    };
  });
}
