// The expected-figures table (tests/expected/configs.json) for the Node and browser tests,
// with the evaluator of its arithmetic: integers, x, +, -, (a/b) exact, ceildiv(a, b), floordiv(a, b),
// min(a, b).
// BigInt throughout, so no figure is rounded.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, '../..');
export const sharedDir = process.env.KVCALC_SHARED_DIR || resolve(repoRoot, '../shared');
export const configsDir = join(sharedDir, 'configs');

export function evaluate(text) {
  let i = 0;
  const fail = (why) => { throw new Error(`arithmetic "${text}": ${why} at ${i}`); };
  const skip = () => { while (text[i] === ' ') i++; };
  const eat = (tok) => { skip(); if (text.startsWith(tok, i)) { i += tok.length; return true; } return false; };
  const expr = () => {
    let v = term();
    for (;;) {
      if (eat('+')) v += term();
      else if (eat('-')) v -= term();
      else return v;
    }
  };
  const term = () => {
    let v = factor();
    for (;;) {
      skip();
      if (text[i] === 'x' && text[i + 1] === ' ') { i++; v *= factor(); }
      else if (eat('/')) { const d = factor(); if (d === 0n || v % d !== 0n) fail('inexact division'); v /= d; }
      else return v;
    }
  };
  const pair = () => { const a = expr(); if (!eat(',')) fail('expected ,'); const b = expr(); if (!eat(')')) fail('expected )'); return [a, b]; };
  const factor = () => {
    if (eat('ceildiv(')) { const [a, b] = pair(); return (a + b - 1n) / b; }
    if (eat('floordiv(')) { const [a, b] = pair(); return a / b; }
    if (eat('min(')) { const [a, b] = pair(); return a < b ? a : b; }
    if (eat('(')) { const v = expr(); if (!eat(')')) fail('expected )'); return v; }
    skip();
    const m = /^\d+/.exec(text.slice(i));
    if (!m) fail('expected a number');
    i += m[0].length;
    return BigInt(m[0]);
  };
  const v = expr();
  skip();
  if (i !== text.length) fail('trailing text');
  return v;
}

const readTable = () => JSON.parse(readFileSync(join(here, 'configs.json'), 'utf8'));

// A figure of the table, once its arithmetic is checked to give it.
function num(f) {
  const v = evaluate(f.arithmetic);
  if (v !== BigInt(f.value)) throw new Error(`configs.json: ${f.arithmetic} is ${v}, not ${f.value}`);
  return f.value;
}

// Every entry, with each figure checked against its own arithmetic (as Numbers: all are
// below 2^53, which kvcalc guarantees for every figure it reports).
export function expectedConfigs() {
  const table = readTable();
  return table.configs.map((e) => {
    const at = (a) => a && { context: a.context, naive: num(a.naive), resident: num(a.resident), vllm: num(a.vllm), state: num(a.state) };
    return { file: e.file, path: join(configsDir, e.file), note: e.note,
      bytesPerToken: num(e.bytes_per_token), at4096: at(e.at_4096), atMax: at(e.at_max) };
  });
}

// The real configs under tests/fixtures/ (configs.json "fixtures"): each with its figures at
// two contexts and at tp 8, or the error that refuses it. Every arithmetic is checked.
export function expectedFixtures() {
  const table = readTable();
  return table.fixtures.map((e) => {
    if (e.refused) return { file: e.file, path: join(repoRoot, e.file), refused: e.refused };
    const ats = Object.keys(e).filter((k) => k.startsWith('at_')).map((k) => e[k]).map((a) => ({
      context: a.context, naive: num(a.naive), resident: num(a.resident), vllm: num(a.vllm), state: num(a.state) }));
    // tp 8 at 4,096 tokens, or at the entry's context (a model whose max is shorter).
    const tp8 = e.tp8.refused ? { context: e.tp8.context ?? 4096, refused: e.tp8.refused }
      : { context: e.tp8.context, kvBytesPerGpu: num(e.tp8.kv_bytes_per_gpu) };
    // An encoder-decoder's figures assume the encoder length its entry gives.
    return { file: e.file, path: join(repoRoot, e.file), bytesPerToken: num(e.bytes_per_token), ats, tp8,
      encoderTokens: e.max_num_encoder_input_tokens };
  });
}

// tests/expected/llamacpp.json: llama.cpp's allocation cases (engine llamacpp, ollama, lmstudio), each
// config as a path, each figure checked against its arithmetic; and the refusals with their field.
export function llamacppCases() {
  const table = JSON.parse(readFileSync(join(here, 'llamacpp.json'), 'utf8'));
  const shared = '../shared/configs/';
  const path = (c) => (c.startsWith(shared) ? join(configsDir, c.slice(shared.length)) : join(repoRoot, c));
  const cases = table.cases.map((c) => ({
    name: c.name, path: path(c.config), options: c.options, nCtx: num(c.n_ctx), nCtxSeq: num(c.n_ctx_seq), nStream: c.n_stream,
    memory: c.memory.map((m) => ({ cache: m.cache, layers: m.layers, cells: num(m.cells), bytes: num(m.bytes) })),
    bytes: num(c.bytes), mib: c.mib ?? null,
  }));
  const errors = table.errors.map((e) => ({ ...e, path: path(e.config) }));
  return { cases, errors };
}
