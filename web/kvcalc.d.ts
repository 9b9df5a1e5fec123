// Types for kvcalc's JS API (dist/kvcalc.js). Hand-written; tests/js/usage.ts type-checks
// against it with tsc --strict. Every byte count is an exact integer (at most 2^53 - 1).

/** A value with its provenance: the config field it was read from, or its derivation. */
export interface Sourced {
  value: number;
  /** "num_key_value_heads", "hidden_size 3584 / num_attention_heads 28", ... */
  source: string;
}

/** A model config: JSON text, a parsed config object, or a bundled preset id ("Qwen/Qwen3-8B"). */
export type Config = string | object;

/** KV-cache element types. `auto` uses the model's dtype (16-bit when it is float32 or absent). */
export type KvDtype =
  | 'auto' | 'fp32' | 'float32' | 'fp16' | 'float16' | 'bf16' | 'bfloat16'
  | 'fp8' | 'fp8_e4m3' | 'fp8_e5m2' | 'int8' | 'int4' | 'fp8_ds_mla';

/**
 * How one sequence is charged: `naive` (every cached layer for every token), `resident`
 * (what the tokens occupy: windows capped, plus fixed state) or `vllm` (vLLM's per-request
 * reservation in blocks).
 */
export type Accounting = 'naive' | 'resident' | 'vllm';

/** Options of size() and formula(); every one is optional, as on the CLI. */
export interface SizeOptions {
  /** Tokens in one sequence (default: the model's max context). */
  context?: number;
  /** Sequences (default 1). */
  batch?: number;
  /** Default `auto`. */
  kvDtype?: KvDtype;
  /** Tensor-parallel GPUs (default 1). */
  tp?: number;
  /** Pipeline-parallel stages (default 1). */
  pp?: number;
  /** Rounds the resident figure up to whole blocks per layer; vLLM's block size (default 16). */
  blockSize?: number;
  /** Default `resident`. */
  accounting?: Accounting;
  /** vLLM's in-flight token budget, for sliding and chunked layers (default 8192). */
  maxNumBatchedTokens?: number;
  /** Tokens of a prefix shared by the whole batch, stored once (default 0). */
  sharedPrefix?: number;
}

export type LayerKind = 'full_attention' | 'mla' | 'sliding_window' | 'chunked_local' | 'linear_state' | 'no_cache';

/** Figures every layer group has, for one sequence (whole model unless named PerGpu). */
interface GroupFigures {
  /** As the config names these layers ("sliding_attention", "M", ...). */
  name: string;
  layers: number;
  bytesPerTokenLayer: number;
  bytesPerTokenLayerPerGpu: number;
  residentTokens: number;
  vllmBlockSize: number;
  vllmBlocks: number;
  sequenceBytesNaive: number;
  sequenceBytesResident: number;
  sequenceBytesVllm: number;
}

/** Full, sliding-window and chunked-local attention: K and V per KV head. */
export interface AttentionGroup extends GroupFigures {
  kind: 'full_attention' | 'sliding_window' | 'chunked_local';
  kvHeads: Sourced;
  /** The K head size. */
  headDim: Sourced;
  vHeadDim: Sourced;
  kvHeadsPerGpu: number;
  /** Tokens kept, for sliding and chunked layers. */
  window?: Sourced;
}

/** Multi-head latent attention: one latent per token (kv_lora_rank + qk_rope_head_dim). */
export interface MlaGroup extends GroupFigures {
  kind: 'mla';
  latentDim: Sourced;
}

/** Linear attention / Mamba: no per-token cache, a fixed state per sequence. */
export interface LinearStateGroup extends GroupFigures {
  kind: 'linear_state';
  /** "gated_delta_net", "mamba2", "kda" */
  mixer: string;
  stateSource: string;
  stateBytesLayer: number;
  stateBytesLayerPerGpu: number;
}

export interface NoCacheGroup extends GroupFigures {
  kind: 'no_cache';
}

export type LayerGroup = AttentionGroup | MlaGroup | LinearStateGroup | NoCacheGroup;

export interface Warning {
  field: string;
  message: string;
}

/** The CLI's `kvcalc size --json` report, with camelCase keys. */
export interface SizeReport {
  model: string;
  modelSource: string;
  /** "" for the root, or "text_config" / "llm_config" / ... */
  textConfig: string;
  /** "GQA", "MLA", "GQA, sliding window", "GQA + linear state (mamba2)", ... */
  attentionKind: string;
  numLayers: Sourced;
  queryHeads: Sourced;
  maxContext: Sourced | null;
  layerPlanSource: string;
  /** What one more token adds while the context is below every window. */
  bytesPerToken: number;
  bytesPerTokenPerGpu: number;
  context: number;
  contextSource: string;
  batch: number;
  kvDtype: string;
  kvDtypeSource: string;
  kvDtypeBits: number;
  accounting: Accounting;
  tp: number;
  pp: number;
  /** 0 when resident figures are not block-rounded. */
  blockSize: number;
  vllmBlockSize: number;
  maxNumBatchedTokens: number;
  sharedPrefix: number;
  sequenceBytesNaive: number;
  /** Includes stateBytes. */
  sequenceBytesResident: number;
  /** Includes the state pages. */
  sequenceBytesVllm: number;
  /** Fixed per-sequence state of linear-attention / Mamba layers. */
  stateBytes: number;
  /** The whole batch under the chosen accounting, whole model. */
  kvBytes: number;
  /** The heaviest pipeline stage on one GPU. */
  kvBytesPerGpu: number;
  /** Summed over all tp x pp GPUs. */
  kvBytesDeployment: number;
  layers: Record<LayerKind | 'total', number>;
  groups: LayerGroup[];
  stages: { firstLayer: number; layers: number; bytesPerTokenPerGpu: number; kvBytesPerGpu: number }[];
  warnings: Warning[];
}

/** One factor of a formula, to render with its provenance. */
export interface Term {
  /** "K and V", "layers", "KV heads", "head size", "latent", "bytes per element", ... */
  name: string;
  /** A count, or bytes per element (0.5 for int4). */
  value: number;
  source: string;
}

export interface GroupFormula {
  kind: LayerKind;
  name: string;
  layers: number;
  /** What `bytes` is per: a token (attention), a sequence (linear state), or nothing (no cache). */
  per: 'token' | 'sequence' | 'none';
  /** The factors; their product is `bytes`. */
  terms: Term[];
  /** The factors' values joined by " x ", e.g. "2 x 32 x 8 x 128 x 2". */
  expression: string;
  bytes: number;
  /** Sliding and chunked layers keep at most this many tokens. */
  window?: Term;
}

export interface Formula {
  model: string;
  attentionKind: string;
  kvDtype: string;
  bytesPerElement: Term;
  groups: GroupFormula[];
  /** The sum of the per-token groups' bytes. */
  bytesPerToken: number;
  /** The sum of the per-sequence groups' bytes. */
  stateBytes: number;
  /** The size report the formula was read from. */
  report: SizeReport;
}

/** A bundled model (the real config.json files the package was built with). */
export interface Preset {
  /** Pass it as a config: "Qwen/Qwen2.5-7B-Instruct". */
  id: string;
  name: string;
  attentionKind: string;
  maxContext: number | null;
  layers: number;
  /** At the model's own KV dtype. */
  bytesPerToken: number | null;
}

export type ErrorCode =
  | 'malformed_json' | 'missing_field' | 'invalid_value' | 'inconsistent' | 'overflow'
  | 'bad_option' | 'unknown_preset' | 'unrecognised_log'
  /** The API was called before load() resolved. */
  | 'not_loaded'
  /** The wasm could not be fetched or compiled. */
  | 'load_failed'
  /** The wasm module failed: a bug; please report it. */
  | 'internal_error';

/** The one error the API throws. The instance keeps working after it. */
export class KvCalcError extends Error {
  readonly name: 'KvCalcError';
  readonly code: ErrorCode;
  /** The config field or option the message is about ("num_key_value_heads", "kvDtype"); may be "". */
  readonly field: string;
  /** 1-based position of malformed JSON. */
  readonly line?: number;
  readonly column?: number;
  constructor(error: { code: ErrorCode; message: string; field?: string; line?: number; column?: number });
}

export interface LoadOptions {
  /** The bytes of kvcalc_core.wasm, instead of fetching it (Node, tests, bundlers). */
  wasmBinary?: ArrayBuffer | ArrayBufferView;
  /** Where to fetch the wasm from (default: wasmUrl, beside kvcalc.js). */
  wasmUrl?: string | URL;
}

/** The loaded API: the same calls as the module's functions. */
export interface KvCalc {
  /** Sizes the KV cache of a model. Throws KvCalcError on bad input. */
  size(config: Config, options?: SizeOptions): SizeReport;
  /** The per-token formula's terms, with values and provenance, over size(). */
  formula(config: Config, options?: SizeOptions): Formula;
  /** The bundled models. */
  presets(): Preset[];
  /** A bundled model's config.json text. Throws KvCalcError (unknown_preset). */
  presetConfig(id: string): string;
  /** The wasm heap: the allocator's break, the bytes in use, and the memory's size. */
  heapStats(): { heapTop: number; inUse: number; memoryBytes: number };
}

/** Where kvcalc_core.wasm is: beside kvcalc.js. In Node: load({ wasmBinary: readFileSync(wasmUrl) }). */
export const wasmUrl: URL;

/**
 * Loads the wasm module, once per page: every call returns the same promise (the first
 * call's options win). Rejects with KvCalcError (load_failed); a later call retries.
 */
export function load(options?: LoadOptions): Promise<KvCalc>;

/** As KvCalc.size; throws KvCalcError (not_loaded) until load() has resolved. */
export function size(config: Config, options?: SizeOptions): SizeReport;
/** As KvCalc.formula; throws KvCalcError (not_loaded) until load() has resolved. */
export function formula(config: Config, options?: SizeOptions): Formula;
/** As KvCalc.presets; throws KvCalcError (not_loaded) until load() has resolved. */
export function presets(): Preset[];
/** As KvCalc.presetConfig; throws KvCalcError (not_loaded) until load() has resolved. */
export function presetConfig(id: string): string;
/** As KvCalc.heapStats; throws KvCalcError (not_loaded) until load() has resolved. */
export function heapStats(): { heapTop: number; inUse: number; memoryBytes: number };
