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
 * (what the tokens occupy: windows capped, plus fixed state), `vllm` (vLLM's per-request
 * reservation in blocks; engines vllm and sglang) or `llamacpp` (the whole cache llama.cpp
 * allocates; the llama.cpp engines, whose default it is).
 */
export type Accounting = 'naive' | 'resident' | 'vllm' | 'llamacpp';

/**
 * Whose allocation is sized: vLLM (the default), SGLang, or llama.cpp; `ollama` and
 * `lmstudio` are llama.cpp with Ollama's and LM Studio's defaults (slots, swa_full, flash
 * attention, default context).
 */
export type Engine = 'vllm' | 'sglang' | LlamacppEngine;
export type LlamacppEngine = 'llamacpp' | 'ollama' | 'lmstudio';

/** llama.cpp's cache types (-ctk / -ctv): ggml types; q8_0 is 34 B per block of 32 values, q4_0 18 B. */
export type CacheType = 'f32' | 'f16' | 'bf16' | 'q8_0' | 'q4_0' | 'q4_1' | 'q5_0' | 'q5_1' | 'iq4_nl';

/**
 * The options of the llama.cpp engines, with llama-server's names; the core refuses them
 * (KvCalcError naming the option) with engine vllm or sglang.
 */
export interface LlamacppOptions {
  /** llama.cpp's -np: slots, each its own stream of cells unless kvUnified (llama-server: 4 unified by default, b6931+). */
  parallel?: number;
  /** -ctk (default f16; Ollama: OLLAMA_KV_CACHE_TYPE). */
  cacheTypeK?: CacheType;
  /** -ctv (default f16); a quantized V needs flash attention. */
  cacheTypeV?: CacheType;
  /** -fa (default auto, which counts as on when the cache is made; off before b6325). */
  flashAttn?: 'on' | 'off' | 'auto';
  /** --swa-full: sliding-window layers keep the whole context (LM Studio's default, llama.cpp's library default). */
  swaFull?: boolean;
  /** -ub (default 512): sliding-window layers keep it beside the window. */
  ubatchSize?: number;
  /** --kv-unified: one stream shared by the slots. */
  kvUnified?: boolean;
  /** The llama.cpp build (its log's `build: N`) whose rules apply (default: the current rules; Ollama: its bundled build). */
  llamacppBuild?: number;
  /** Engine ollama: its release, "0.30.0" or later (default "0.33.0"). */
  ollamaVersion?: string;
}

/** Options of size() and formula() for vLLM (the default) and SGLang; every one is optional, as on the CLI. */
export interface SizeOptions {
  /** Tokens in one sequence (default: the model's max context). */
  context?: number;
  /** Default `vllm` (LlamacppSizeOptions for llama.cpp's engines). */
  engine?: 'vllm' | 'sglang';
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
  accounting?: 'naive' | 'resident' | 'vllm';
  /** vLLM's in-flight token budget, for sliding and chunked layers (default 8192). */
  maxNumBatchedTokens?: number;
  /** Tokens of a prefix shared by the whole batch, stored once (default 0). */
  sharedPrefix?: number;
  /**
   * vLLM's speculative tokens drafted by the model's own MTP layers (Qwen3-Next, Qwen3.5, DeepSeek-V3; default 0):
   * the draft's attention layers join the cache, and each gated-delta-net state grows.
   */
  numSpeculativeTokens?: number;
  /** vLLM's Mamba state mode: `align` (prefix caching on a hybrid model) keeps two state blocks, `none` one (default). */
  mambaCacheMode?: MambaCacheMode;
  /** vLLM's `--attention-config` indexer_kv_dtype: MiniMax-M3's indexer keys in bf16 (vLLM's default) or fp8. */
  indexerKvDtype?: IndexerKvDtype;
  /**
   * vLLM's max_num_encoder_input_tokens: the encoder tokens an encoder-decoder's (Whisper's) cross-attention holds a
   * request, cdiv(N, block) blocks in every decoder layer. Required for such a model (no default: vLLM releases differ).
   */
  maxNumEncoderInputTokens?: number;
}

export type MambaCacheMode = 'none' | 'align';

export type IndexerKvDtype = 'bf16' | 'fp8';

export type LayerKind = 'full_attention' | 'mla' | 'sliding_window' | 'chunked_local' | 'linear_state' | 'no_cache';

/** Figures every layer group has, for one sequence (whole model unless named PerGpu). */
interface GroupFigures {
  /** As the config names these layers ("sliding_attention", "M", ...). */
  name: string;
  layers: number;
  bytesPerTokenLayer: number;
  bytesPerTokenLayerPerGpu: number;
  /** An encoder-decoder's cross-attention: it holds maxNumEncoderInputTokens a request, not the context. */
  crossAttention?: true;
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
  /** Bytes a token of a sparse-attention indexer's keys beside K and V (MiniMax-M3's sparse layers, in
   * indexerKvDtype), part of bytesPerTokenLayer, the same on every GPU. */
  indexerBytes?: Sourced;
}

/** Multi-head latent attention: one latent per token (kv_lora_rank + qk_rope_head_dim). */
export interface MlaGroup extends GroupFigures {
  kind: 'mla';
  latentDim: Sourced;
  /** Bytes a token of a sparse-attention indexer's keys (DeepSeek-V3.2), in bytesPerTokenLayer. */
  indexerBytes?: Sourced;
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
  numSpeculativeTokens: number;
  mambaCacheMode: MambaCacheMode;
  /** The dtype of the indexer keys of a model that keeps them in it (MiniMax-M3); absent for other models. */
  indexerKvDtype?: IndexerKvDtype;
  /** An encoder-decoder's cross-attention tokens a request; absent for other models. */
  maxNumEncoderInputTokens?: number;
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
  /** Estimated from the config (null, with a warning, when it cannot be). */
  paramCount: number | null;
  weightBytes: number | null;
  /** "bf16", "fp8", "int4", ... */
  weightDtype: string | null;
  /** Why paramCount and the weights are null (the config lacks what the estimate needs). */
  weightsError: { code: ErrorCode; message: string; field: string } | null;
  layers: Record<LayerKind | 'total', number>;
  groups: LayerGroup[];
  stages: { firstLayer: number; layers: number; bytesPerTokenPerGpu: number; kvBytesPerGpu: number }[];
  warnings: Warning[];
}

/** A layer group with a llama.cpp engine: which of its memory objects holds it. */
interface LlamacppGroupFigures {
  name: string;
  layers: number;
  /** The memory object these layers are in: `base` (full attention), `swa`, `recurrent`, or `none`. */
  cache: 'base' | 'swa' | 'recurrent' | 'none';
  /** K and V of one cell of one layer (0 for recurrent layers). */
  bytesPerTokenLayer: number;
  residentTokens: number;
  sequenceBytesNaive: number;
  sequenceBytesResident: number;
  /** What llama.cpp allocates for these layers: cells x streams x bytes per cell. */
  sequenceBytesLlamacpp: number;
}

/** K and V as llama.cpp allocates them: one cell's row of each, in its cache type's blocks. */
interface LlamacppCellRows {
  /** Values in one cell's K row (KV heads x head size, or the MLA latent). */
  kWidth: number;
  /** Values in one cell's V row (0: no V, an MLA latent kept as K only); without flash attention padded to the widest layer's. */
  vWidth: number;
  /** kWidth / the K type's block x its block bytes. */
  kBytesPerCell: number;
  vBytesPerCell: number;
}

export interface LlamacppAttentionGroup extends LlamacppGroupFigures, LlamacppCellRows {
  kind: 'full_attention' | 'sliding_window' | 'chunked_local';
  kvHeads: Sourced;
  headDim: Sourced;
  vHeadDim: Sourced;
  window?: Sourced;
}

export interface LlamacppMlaGroup extends LlamacppGroupFigures, LlamacppCellRows {
  kind: 'mla';
  latentDim: Sourced;
  /** kv_lora_rank: the V that builds before b7836 allocate. */
  latentVDim: Sourced;
}

/** Recurrent layers (Mamba, gated delta net, LFM2's conv): one cell per sequence, in f32. */
export interface LlamacppStateGroup extends LlamacppGroupFigures {
  kind: 'linear_state';
  mixer: string;
  stateSource: string;
  stateBytesLayer: number;
  /** R: the conv rows of one sequence in one layer. */
  rBytesPerSequence: number;
  /** S: the recurrent state of one sequence in one layer. */
  sBytesPerSequence: number;
}

export interface LlamacppNoCacheGroup extends LlamacppGroupFigures {
  kind: 'no_cache';
}

export type LlamacppLayerGroup = LlamacppAttentionGroup | LlamacppMlaGroup | LlamacppStateGroup | LlamacppNoCacheGroup;

/** One memory object of llama.cpp, as its log prints it: K and V (R and S) apart. */
export interface LlamacppMemory {
  object: 'llama_kv_cache' | 'llama_memory_recurrent';
  cache: 'base' | 'swa' | 'recurrent';
  /** Cells of one stream: n_ctx_seq, the SWA cells, or one a sequence. */
  cells: number;
  /** How: "n_ctx_seq", "PAD(min(131072, 128 x 4 + 512), 256)", ... */
  cellsRule: string;
  layers: number;
  seqs: number;
  streams: number;
  kType?: CacheType;
  vType?: CacheType;
  kBytes?: number;
  vBytes?: number;
  rType?: 'f32';
  sType?: 'f32';
  rBytes?: number;
  sBytes?: number;
  bytes: number;
  /** The line llama.cpp's log prints for it: "llama_kv_cache: size = 3072.00 MiB (131072 cells, ...". */
  logLine: string;
}

/** What llama.cpp allocates (a size or check report's `llamacpp`), each setting with its source. */
export interface LlamacppAllocation {
  /** "llama-server", "ollama" or "lmstudio". */
  host: string;
  /** The build whose rules apply. */
  build: number;
  buildSource: string;
  /** Engine ollama only. */
  ollamaVersion?: string;
  /** -c as asked (Ollama: num_ctx x slots), then padded and split. */
  nCtxRequested: number;
  nCtx: number;
  /** Cells of one stream (a slot's, unless unified). */
  nCtxSeq: number;
  contextRule: string;
  /** 256 in current builds; 32 or 256 by flash attention, or none, in older ones. */
  padding: number;
  nSeqMax: number;
  nSeqMaxSource: string;
  nStream: number;
  kvUnified: boolean;
  kvUnifiedSource: string;
  nBatch: number;
  nUbatch: number;
  nUbatchSource: string;
  flashAttn: 'on' | 'off' | 'auto';
  flashAttnSource: string;
  /** What the cache is made with: -fa auto counts as on. */
  flashAttnAtCreation: boolean;
  swaFull: boolean;
  swaFullSource: string;
  /** The sliding window, when the model has one. */
  nSwa: number | null;
  cacheTypeK: CacheType;
  cacheTypeKSource: string;
  /** Values per block of the K type (1, or 32 for the quantized types) and its bytes (q8_0: 34). */
  cacheTypeKBlock: number;
  cacheTypeKBlockBytes: number;
  cacheTypeV: CacheType;
  cacheTypeVSource: string;
  cacheTypeVBlock: number;
  cacheTypeVBlockBytes: number;
  memory: LlamacppMemory[];
  /** The sum of the memory objects. */
  bytes: number;
}

/** size() with a llama.cpp engine (the CLI's `kvcalc size --engine llamacpp --json`), camelCase keys. */
export interface LlamacppSizeReport {
  model: string;
  modelSource: string;
  textConfig: string;
  engine: 'llamacpp';
  llamacppHost: string;
  /** llama.cpp's architecture ("gpt-oss", "qwen3next"), and how the config or GGUF names it. */
  llamacppArch: string;
  llamacppArchSource: string;
  attentionKind: string;
  numLayers: Sourced;
  queryHeads: Sourced;
  maxContext: Sourced | null;
  layerPlanSource: string;
  /** K and V of one cell in every layer. */
  bytesPerToken: number;
  bytesPerTokenPerGpu: number;
  /** -c (n_ctx as asked). */
  context: number;
  contextSource: string;
  /** "f16", or "q8_0/f16" when K and V differ. */
  kvDtype: string;
  kvDtypeSource: string;
  cacheTypeK: CacheType;
  cacheTypeV: CacheType;
  accounting: 'naive' | 'resident' | 'llamacpp';
  sequenceBytesNaive: number;
  sequenceBytesResident: number;
  sequenceBytesLlamacpp: number;
  stateBytes: number;
  /** In the chosen accounting (llamacpp: llamacpp.bytes). */
  kvBytes: number;
  kvBytesPerGpu: number;
  kvBytesDeployment: number;
  paramCount: number | null;
  weightBytes: number | null;
  weightDtype: string | null;
  weightsError: { code: ErrorCode; message: string; field: string } | null;
  layers: Record<LayerKind | 'total', number>;
  groups: LlamacppLayerGroup[];
  llamacpp: LlamacppAllocation;
  warnings: Warning[];
}

/**
 * Options of size() and formula() with a llama.cpp engine, which then answer a
 * LlamacppSizeReport: the engine, llama-server's options, and the context as its -c
 * (Ollama's num_ctx: one slot's). The vLLM options (batch, kvDtype, tp, blockSize ...) are
 * refused with these engines.
 */
export interface LlamacppSizeOptions extends LlamacppOptions {
  engine: LlamacppEngine;
  /** -c: the whole cache, split among the slots unless unified (default: the model's max; Ollama: num_ctx 4096; LM Studio: 4096). */
  context?: number;
  /** Default `llamacpp`: what it allocates. */
  accounting?: 'naive' | 'resident' | 'llamacpp';
}

/**
 * KvModel.figures()'s answer: size()'s headline figures, each its SizeReport field of the
 * same name, with no report built (a live view redrawn on every input).
 */
export interface SizeFigures {
  accounting: Accounting;
  context: number;
  batch: number;
  tp: number;
  pp: number;
  /** 0 with a llama.cpp engine (its report's llamacpp object has the K and V types). */
  kvDtypeBits: number;
  bytesPerToken: number;
  bytesPerTokenPerGpu: number;
  stateBytes: number;
  sequenceBytesNaive: number;
  sequenceBytesResident: number;
  /** 0 with a llama.cpp engine. */
  sequenceBytesVllm: number;
  /** With a llama.cpp engine, what it allocates; 0 with vLLM and SGLang. */
  sequenceBytesLlamacpp: number;
  kvBytes: number;
  kvBytesPerGpu: number;
  kvBytesDeployment: number;
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
  /** The whole model's (tp 1): the report's groups have the per-GPU figures. */
  bytes: number;
  /** Sliding and chunked layers keep at most this many tokens. */
  window?: Term;
}

export interface Formula<R = SizeReport> {
  model: string;
  attentionKind: string;
  kvDtype: string;
  /** With a llama.cpp engine, the K cache type's (each group's terms have K and V apart). */
  bytesPerElement: Term;
  groups: GroupFormula[];
  /** The sum of the per-token groups' bytes. */
  bytesPerToken: number;
  /** The sum of the per-sequence groups' bytes. */
  stateBytes: number;
  /** The size report the formula was read from. */
  report: R;
}

/** Options of check(); the pool comes from exactly one of poolTokens, engineLog, gpu / gpuMemory. */
export interface CheckOptions {
  /** The context the deployment advertises (vLLM's --max-model-len); an engine log can give it. */
  maxContext?: number;
  /** The KV pool in tokens, as the engine logged it. */
  poolTokens?: number;
  /** The engine's startup log text: vLLM's "GPU KV cache size: N tokens", SGLang's "#tokens: N", ... */
  engineLog?: string;
  /** A GPU preset id (see gpuPresets()), to derive the pool from its memory. */
  gpu?: string;
  /** GPU memory in bytes, or text like "80GiB" (instead of, or over, the gpu preset's). */
  gpuMemory?: number | string;
  /** GPUs in all: tp x pp. */
  gpuCount?: number;
  /** vLLM's fraction of GPU memory (default 0.9). */
  gpuMemoryUtilization?: number | string;
  /** SGLang's fraction of GPU memory (default 0.88). */
  memFractionStatic?: number | string;
  /** vLLM's activation peak, bytes or text. */
  activationPeak?: number | string;
  /** Memory outside torch, bytes or text. */
  nonTorch?: number | string;
  weightDtype?: string;
  engine?: 'vllm' | 'sglang';
  /** Requests that should fit at once. */
  concurrency?: number;
  /**
   * With an engine log whose printed figures disagree with kvcalc's derivation from the memory
   * it logs: follow the engine's (default) or kvcalc's.
   */
  verdictFrom?: 'engine' | 'kvcalc';
  tp?: number;
  pp?: number;
  kvDtype?: KvDtype;
  blockSize?: number;
  /** Default `vllm`: what the engine reserves for one request. */
  accounting?: Accounting;
  maxNumBatchedTokens?: number;
  numSpeculativeTokens?: number;
  mambaCacheMode?: MambaCacheMode;
  indexerKvDtype?: IndexerKvDtype;
}

/** The CLI's `kvcalc check --json` report, with camelCase keys. */
export interface CheckReport {
  model: string;
  engine: 'vllm' | 'sglang';
  poolTokens: number;
  poolSource: string;
  maxContext: number;
  maxContextSource: string;
  modelMaxContext: number | null;
  blockSize: number;
  blockSizeSource: string;
  /** One request of maxContext tokens fits the pool. */
  fits: boolean;
  /** "kvcalc", or the engine's own verdict that fits, maxConcurrency and maxSafeContext follow. */
  verdictSource: string;
  /**
   * 'tokens': fits, maxConcurrency and maxSafeContext compare maxContext with poolTokens.
   * 'bytes': vLLM with a model whose layers keep different numbers of tokens (windows,
   * linear state) and a pool whose bytes are known: they compare requestBytesPerGpu with
   * poolBytesPerGpu, as vLLM admits requests.
   */
  fitsBy: 'tokens' | 'bytes';
  /** One request's blocks of blockSize tokens, and the pool's (fitsBy 'tokens'). */
  blocksNeeded: number;
  blocksAvailable: number;
  /** poolTokens / maxContext (fitsBy 'bytes': poolBytesPerGpu / requestBytesPerGpu), to 2 decimals, as vLLM prints it. */
  maxConcurrency: number;
  maxConcurrencyText: string;
  maxConcurrencyHundredths: number;
  /** The pool in whole blocks (fitsBy 'bytes': the longest request that fits), never above the model's own max. */
  maxSafeContext: number;
  maxSafeContextSource: string;
  concurrency: number | null;
  concurrencyFits: boolean | null;
  maxContextAtConcurrency: number | null;
  /** Plain sentences: what to set, and what to test. */
  advice: string[];
  tp: number;
  pp: number;
  kvDtype: string;
  bytesPerTokenPerGpu: number;
  accounting: Accounting;
  requestBytesPerGpu: number;
  poolBytesPerGpu: number | null;
  paramCount: number | null;
  weightBytes: number | null;
  weightBytesPerGpu: number | null;
  weightDtype: string | null;
  /** The derivation, when the pool came from a GPU's memory. */
  pool: PoolDerivation | null;
  /** What was read from engineLog. */
  log: EngineLogReading | null;
  /** vLLM's pool in blocks, from an engine log. */
  poolBlocks: number | null;
  /** Each figure the engine log printed beside what kvcalc derives for it. */
  crossChecks: CrossCheck[];
  /** With an engine log: whose figures the verdict follows. */
  verdictFrom: 'engine' | 'kvcalc' | null;
  /** The engine's own verdict on its max model length, when its log states one. */
  engineVerdict: EngineVerdict | null;
  /** vLLM's layout of the model in blocks, and the blocks the log's lines and memory allow. */
  logBlocks: LogBlocks | null;
  warnings: Warning[];
}

/** Options of check() with a llama.cpp engine: the pool is the cache its -c and slots allocate. */
export interface LlamacppCheckOptions extends LlamacppOptions {
  engine: LlamacppEngine;
  /** The context the deployment advertises (default: the model's max). */
  maxContext?: number;
  /** -c (Ollama's num_ctx), whose cells make the pool. */
  context?: number;
  /** Requests that should fit at once. */
  concurrency?: number;
  accounting?: 'naive' | 'resident' | 'llamacpp';
}

/** check() with a llama.cpp engine: does the advertised context fit each slot of the cache it allocates? */
export interface LlamacppCheckReport {
  model: string;
  engine: 'llamacpp';
  llamacppHost: string;
  /** The cells of the cache (n_ctx), the pool the slots share. */
  poolTokens: number;
  poolSource: string;
  maxContext: number;
  maxContextSource: string;
  modelMaxContext: number | null;
  /** A request of maxContext tokens fits one slot. */
  fits: boolean;
  fitsBy: 'slot';
  /** The tokens one slot holds: its cells, at most the model's training context. */
  slotContext: number;
  slotContextSource: string;
  nSeqMax: number;
  kvUnified: boolean;
  /** Requests of maxContext tokens that fit at once. */
  maxConcurrency: number;
  maxConcurrencyText: string;
  maxSafeContext: number;
  maxSafeContextSource: string;
  concurrency: number | null;
  concurrencyFits: boolean | null;
  advice: string[];
  kvBytes: number;
  /** "kvcalc", or the log's figures the verdict follows. */
  verdictSource: string;
  llamacpp: LlamacppAllocation;
  log: EngineLogReading | null;
  crossChecks: CrossCheck[];
  warnings: Warning[];
}

export interface PoolDerivation {
  engine: 'vllm' | 'sglang';
  gpuMemoryBytes: number;
  gpuSource: string;
  /** The memory fraction as written ("0.9"). */
  fraction: string;
  fractionSource: string;
  requestedBytes: number;
  weightBytesPerGpu: number;
  activationPeakBytes: number | null;
  activationPeakSource: string | null;
  nonTorchBytes: number;
  nonTorchSource: string;
  poolBytesPerGpu: number;
  memoryLeft: boolean;
  bytesPerTokenPerGpu: number;
  blockSize: number;
  poolBlocks: number;
  poolTokens: number;
  /** The arithmetic, one line per step. */
  steps: string[];
}

export interface CrossCheck {
  /** "pool", "GPU KV cache size", "concurrency", "verdict", "KV cache needed", "K size", ... */
  figure: string;
  /** What the engine printed. */
  engine: string;
  /** What kvcalc derives, and from what. */
  kvcalc: string;
  /** kvcalc's figure alone. */
  kvcalcFigure: string;
  agree: boolean;
  line: number | null;
  /** One sentence with both. */
  text: string;
}

export interface EngineVerdict {
  fits: boolean;
  maxContext: number;
  maxConcurrencyText: string | null;
  estimatedMaxContext: number | null;
  said: string;
}

export interface LogBlocks {
  layout: string;
  groups: number;
  groupSize: number | null;
  paddingLayers: number;
  blockBytesPerGpu: number;
  blocksPerRequest: number | null;
  engineBlocksLow: number | null;
  engineBlocksHigh: number | null;
  memoryBlocksLow: number | null;
  memoryBlocksHigh: number | null;
}

export interface EngineLogReading {
  engine: string;
  /** The release the log states ("0.19.0"), or "". */
  version: string;
  /** SGLang's disaggregation mode as its log prints it ("null", "prefill", "decode"), else null. */
  disaggregationMode: string | null;
  poolTokens: number | null;
  gpuBlocks: number | null;
  kvMemoryBytes: number | null;
  kvMemoryText: string;
  maxModelLen: number | null;
  maxConcurrencyText: string | null;
  fullLayerTokens: number | null;
  swaLayerTokens: number | null;
  mambaCacheSize: number | null;
  /** vLLM's refusal to start, when the log has it. */
  refusal: { maxModelLen: number | null; neededText: string | null; availableText: string | null;
    estimatedMaxModelLen: number | null; line: number } | null;
  paddingLayers: number | null;
  tp: number | null;
  pp: number | null;
  /** The lines understood, 1-based; repeats: further lines that said the same. */
  understood: { line: number; what: string; text: string; repeats: number }[];
  /** How the pool was read, in order. */
  notes: string[];
}

/** Options of table(); with a llama.cpp engine, each context is -c and each cell what llama.cpp allocates. */
export interface TableOptions extends LlamacppOptions {
  engine?: Engine;
  /** Contexts for the kvBytes columns: a list, or text "4096,32768" (default 4096, 32768, 131072). */
  contexts?: number[] | string;
  kvDtype?: KvDtype;
  accounting?: Accounting;
  blockSize?: number;
  numSpeculativeTokens?: number;
  mambaCacheMode?: MambaCacheMode;
  indexerKvDtype?: IndexerKvDtype;
  maxNumEncoderInputTokens?: number;
  weightDtype?: string;
  /** Also render the table as text (the report's `text`). */
  format?: 'md' | 'html' | 'csv' | 'json';
}

export interface TableRow {
  model: string;
  attentionKind: string;
  layers: number;
  /** "8", "1 latent", or per group. */
  kvHeadsText: string;
  queryHeads: number;
  headSizeText: string;
  bytesPerToken: number;
  /** One sequence at each of the table's contexts; null above the model's own max. */
  kvBytes: (number | null)[];
  maxContext: number | null;
  paramCount: number | null;
  weightBytes: number | null;
  weightDtype: string | null;
  kvDtype: string;
  /** An encoder-decoder's maxNumEncoderInputTokens: its kvBytes include the cross-attention cache of these tokens. */
  encoderTokens?: number;
}

/** The per-model table (the CLI's `kvcalc table --format json`), with camelCase keys. */
export interface TableReport {
  contexts: number[];
  /** With a llama.cpp engine: its host ("llama-server", "ollama", "lmstudio"). */
  engine?: string;
  accounting: Accounting;
  kvDtype: string;
  rows: TableRow[];
  /** With options.format. */
  format?: 'md' | 'html' | 'csv' | 'json';
  /** The rendering, escaped for the format, with options.format. */
  text?: string;
}

/** A GPU whose memory the check can derive a pool from. */
/**
 * A variant of a model in a series: `'model'` as configured; `{ kvHeads: n }` the same model
 * with n KV heads on every attention layer (n must divide the query heads; an MLA model is
 * expanded into full heads of qk_nope_head_dim + qk_rope_head_dim key and v_head_dim value);
 * `'mla'` every attention layer caching one latent (the model's own for an MLA model, else
 * DeepSeek-V3's kv_lora_rank 512 + qk_rope_head_dim 64), without windows.
 */
export type SeriesVariant = 'model' | 'mla' | { kvHeads: number };

/** The axes of KvModel.series(); each optional. */
export interface SeriesAxes {
  /** Tokens per sequence (default: the options' context, else the model's max). */
  contexts?: number[];
  /** Default: the options' kvDtype; with a llama.cpp engine, cache types for K and V both ('auto': as the options set them). */
  kvDtypes?: (KvDtype | CacheType)[];
  /** Default ['model']. */
  variants?: SeriesVariant[];
}

/** One variant at one KV dtype: its bytes per token, and its KV bytes at each context. */
export interface Series {
  variant: SeriesVariant;
  /** As asked ('auto'). */
  kvDtype: KvDtype | CacheType;
  /** Resolved ('bf16' for auto on a bf16 model); null when the series has an error. */
  kvDtypeName: string | null;
  /** The variant's KV heads (of its first attention group); null for MLA. */
  kvHeads: number | null;
  attentionKind: string | null;
  /** kv_lora_rank + qk_rope_head_dim of an MLA variant, else null. */
  latentDim: number | null;
  bytesPerToken: number | null;
  bytesPerTokenPerGpu: number | null;
  /** One per context, for the options' batch and accounting. */
  kvBytes: number[] | null;
  kvBytesPerGpu: number[] | null;
  /** Why this series has no figures (e.g. fp8_ds_mla on a model without MLA); the others stand. */
  error: { code: ErrorCode; message: string; field: string } | null;
}

/** KvModel.series()'s answer: variants outer, KV dtypes inner. */
export interface SeriesReport {
  contexts: number[];
  series: Series[];
}

/**
 * A model read once, evaluated many times (a chart, a table, a dragged control): what
 * kv.model(config) returns. Its calls take and give what the API's do, without reading the
 * config again; bad options throw KvCalcError.
 */
export interface KvModel {
  /** As KvCalc.size(config, options). */
  size(options: LlamacppSizeOptions): LlamacppSizeReport;
  size(options?: SizeOptions): SizeReport;
  size(options?: SizeOptions | LlamacppSizeOptions): SizeReport | LlamacppSizeReport;
  /**
   * size(options)'s headline figures without its report: faster, for a view redrawn on every
   * input. The options are checked as size() checks them (the same KvCalcError).
   */
  figures(options?: SizeOptions | LlamacppSizeOptions): SizeFigures;
  /** As KvCalc.formula(config, options). */
  formula(options: LlamacppSizeOptions): Formula<LlamacppSizeReport>;
  formula(options?: SizeOptions): Formula;
  formula(options?: SizeOptions | LlamacppSizeOptions): Formula<SizeReport | LlamacppSizeReport>;
  /** As KvCalc.check(config, options). */
  check(options: LlamacppCheckOptions): LlamacppCheckReport;
  check(options: CheckOptions): CheckReport;
  check(options: CheckOptions | LlamacppCheckOptions): CheckReport | LlamacppCheckReport;
  /**
   * Many figures in one call: every variant x KV dtype, each at every context, at the
   * options' batch, accounting and parallelism. A malformed axis throws KvCalcError; a
   * series the core cannot figure carries its `error`.
   */
  series(options?: SizeOptions | LlamacppSizeOptions, axes?: SeriesAxes): SeriesReport;
}

export interface GpuPreset {
  /** Pass it as check's gpu option: "h100-80gb". */
  id: string;
  name: string;
  /** As marketed: "80 GB HBM3". */
  nominal: string;
  /** As CUDA / ROCm reports it. */
  memoryBytes: number;
  memoryGib: string;
  /** From a real report (true) or estimated. */
  measured: boolean;
  source: string;
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
  | 'bad_option' | 'unknown_preset' | 'unrecognised_log' | 'unsupported_architecture'
  /** A GGUF file's header or metadata cannot be read (truncated, corrupt, over a bound): the message names the offset and key. */
  | 'malformed_gguf'
  /** readGguf() was cancelled through its AbortSignal. */
  | 'cancelled'
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
  /**
   * Sizes the KV cache of a model. Throws KvCalcError on bad input. A config seen before
   * (the same text, preset id or object) is not read again.
   */
  size(config: Config, options: LlamacppSizeOptions): LlamacppSizeReport;
  size(config: Config, options?: SizeOptions): SizeReport;
  size(config: Config, options?: SizeOptions | LlamacppSizeOptions): SizeReport | LlamacppSizeReport;
  /** The model of a config, read once, to evaluate many times. Throws KvCalcError when it cannot be read. */
  model(config: Config): KvModel;
  /** The per-token formula's terms, with values and provenance, over size(). */
  formula(config: Config, options: LlamacppSizeOptions): Formula<LlamacppSizeReport>;
  formula(config: Config, options?: SizeOptions): Formula;
  formula(config: Config, options?: SizeOptions | LlamacppSizeOptions): Formula<SizeReport | LlamacppSizeReport>;
  /** Does the advertised context fit the KV pool? Throws KvCalcError on bad input. */
  check(config: Config, options: LlamacppCheckOptions): LlamacppCheckReport;
  check(config: Config, options: CheckOptions): CheckReport;
  check(config: Config, options: CheckOptions | LlamacppCheckOptions): CheckReport | LlamacppCheckReport;
  /** The per-model table docs bake in. */
  table(configs: Config[], options?: TableOptions): TableReport;
  /** The GPUs check() knows by id. */
  gpuPresets(): GpuPreset[];
  /** The bundled models. */
  presets(): Preset[];
  /** A bundled model's config.json text. Throws KvCalcError (unknown_preset). */
  presetConfig(id: string): string;
  /**
   * A standalone SVG figure (the element's chart: memory against context; with
   * chart: 'gqa', the cache for each KV-head count from MQA to MHA as bars and the MLA point;
   * with chart: 'check', the pool line and the advertised context too), with <title> and <desc>,
   * light and dark through prefers-color-scheme, nothing fetched; the same input gives the
   * same text. Rejects with KvCalcError on bad input.
   */
  svg(config: Config, options?: SvgOptions): Promise<string>;
  /**
   * Reads a GGUF file's metadata (a File a reader picked or dropped, any Blob) in slices of
   * 2 MB from where the core's reader asks, never whole and never past the metadata: the
   * long tokenizer arrays of fixed-width values are skipped unread. Nothing leaves the page.
   * Resolves to the document the other calls take as a config text; rejects with KvCalcError
   * (malformed_gguf naming the offset and key; cancelled when the signal aborts, at once).
   * A GgufSource is read the same way: a file elsewhere, such as one on the Hugging Face Hub
   * read by HTTP Range requests (what the element's Hub offer does).
   */
  readGguf(file: Blob | GgufSource, options?: ReadGgufOptions): Promise<GgufRead>;
}

/** A GGUF file readGguf() reads through read(): a file of a known size anywhere. */
export interface GgufSource {
  /** The file's size in bytes. */
  size: number;
  /** Its name, for messages ("the GGUF file" if absent). */
  name?: string;
  /** Its bytes from start up to end (end excluded): fewer only where the file ends. */
  read(start: number, end: number, signal?: AbortSignal): Promise<ArrayBuffer | Uint8Array>;
}

/** Options of readGguf(). */
export interface ReadGgufOptions {
  /** Called after each slice is read, and once when the metadata is read (done: true). */
  onProgress?: (progress: GgufProgress) => void;
  /** Aborting it stops the reading at once: readGguf() rejects with KvCalcError (cancelled). */
  signal?: AbortSignal;
}

/** Where readGguf() is. */
export interface GgufProgress {
  /** Bytes of the file read through (skipped bytes included). */
  offset: number;
  /** The file's size. */
  size: number;
  /** Bytes actually read (sliced) so far. */
  bytesRead: number;
  /** The metadata key being read ("" between keys). */
  key: string;
  /** Within an array value (a tokenizer's tokens): the element reached, of count (0 otherwise). */
  index: number;
  count: number;
  done: boolean;
}

/** What readGguf() resolves to. */
export interface GgufRead {
  /**
   * The document: {"gguf": {"version", "byte_order", "tensor_count", "metadata_bytes",
   * "metadata": {KEY: value, ...}}}, arrays over 4,096 elements as {"gguf_array": TYPE,
   * "count": N}. Give it to size(), check(), model() as a config text.
   */
  text: string;
  /** general.name, or the file's name when the metadata has none. */
  name: string;
  /** Bytes read from the file (the metadata, less what was skipped, plus the last slice's rest). */
  bytesRead: number;
  /** Where the metadata ends in the file. */
  metadataBytes: number;
}

/** Options of svg(): the size options, the chart, and the check's pool and context. */
export type SvgOptions = (SizeOptions | LlamacppSizeOptions) & {
  /** 'context' (default), 'gqa', or 'check' (needs poolTokens and maxContext; vLLM and SGLang). */
  chart?: 'context' | 'gqa' | 'check';
  poolTokens?: number;
  maxContext?: number;
};

/** Where kvcalc_core.wasm is: beside kvcalc.js. In Node: load({ wasmBinary: readFileSync(wasmUrl) }). */
export const wasmUrl: URL;

/**
 * Loads the wasm module, once per page (one instance): every call returns the same promise
 * (the first call's options win). Rejects with KvCalcError (load_failed, or bad_option for a bad
 * option); a later call retries.
 */
export function load(options?: LoadOptions): Promise<KvCalc>;

/** As KvCalc.size; throws KvCalcError (not_loaded) until load() has resolved. */
export function size(config: Config, options: LlamacppSizeOptions): LlamacppSizeReport;
export function size(config: Config, options?: SizeOptions): SizeReport;
export function size(config: Config, options?: SizeOptions | LlamacppSizeOptions): SizeReport | LlamacppSizeReport;
/** As KvCalc.model; throws KvCalcError (not_loaded) until load() has resolved. */
export function model(config: Config): KvModel;
/** As KvCalc.formula; throws KvCalcError (not_loaded) until load() has resolved. */
export function formula(config: Config, options: LlamacppSizeOptions): Formula<LlamacppSizeReport>;
export function formula(config: Config, options?: SizeOptions): Formula;
export function formula(config: Config, options?: SizeOptions | LlamacppSizeOptions): Formula<SizeReport | LlamacppSizeReport>;
/** As KvCalc.check; throws KvCalcError (not_loaded) until load() has resolved. */
export function check(config: Config, options: LlamacppCheckOptions): LlamacppCheckReport;
export function check(config: Config, options: CheckOptions): CheckReport;
export function check(config: Config, options: CheckOptions | LlamacppCheckOptions): CheckReport | LlamacppCheckReport;
/** As KvCalc.table; throws KvCalcError (not_loaded) until load() has resolved. */
export function table(configs: Config[], options?: TableOptions): TableReport;
/** As KvCalc.gpuPresets; throws KvCalcError (not_loaded) until load() has resolved. */
export function gpuPresets(): GpuPreset[];
/** As KvCalc.presets; throws KvCalcError (not_loaded) until load() has resolved. */
export function presets(): Preset[];
/** As KvCalc.presetConfig; throws KvCalcError (not_loaded) until load() has resolved. */
export function presetConfig(id: string): string;
/** As KvCalc.svg; throws KvCalcError (not_loaded) until load() has resolved. */
export function svg(config: Config, options?: SvgOptions): Promise<string>;
/** As KvCalc.readGguf; throws KvCalcError (not_loaded) until load() has resolved. */
export function readGguf(file: Blob | GgufSource, options?: ReadGgufOptions): Promise<GgufRead>;

// ---- The <kv-calc> element (web/element/element.js; its source header documents attributes,
// parts and custom properties). Importing kvcalc.js defines it unless the tag is taken.

/** Fired when a new result is on screen. Bubbles, composed. */
export class KvCalcChangeEvent extends Event {
  /** A LlamacppSizeReport when the element's engine is llama.cpp's (or a GGUF file without an engine attribute). */
  readonly result: SizeReport | LlamacppSizeReport;
  readonly check: CheckReport | LlamacppCheckReport | null;
  readonly state: Record<string, unknown>;
}

/** `<kv-calc>`: properties mirror the kebab-case attributes (null when absent or invalid). */
export class KvCalcElement extends HTMLElement {
  static readonly observedAttributes: string[];
  /** Defines the element under `tag` unless that tag is taken; returns the class registered under it. */
  static define(tag?: string, registry?: CustomElementRegistry): CustomElementConstructor | null;
  model: string | null;
  context: number | null;
  batch: number | null;
  kvDtype: string | null;
  tp: number | null;
  view: 'formula' | 'table' | 'gqa' | 'check' | 'all' | null;
  models: string[] | null;
  poolTokens: number | null;
  maxContext: number | null;
  accounting: Accounting | null;
  /** The engine attribute; absent, vLLM, or llama.cpp for a GGUF file. */
  engine: Engine | null;
  /** llama.cpp's options (engines llamacpp, ollama, lmstudio), as the attributes parallel, cache-type-k ... */
  parallel: number | null;
  cacheTypeK: string | null;
  cacheTypeV: string | null;
  flashAttn: string | null;
  swaFull: boolean | null;
  ubatchSize: number | null;
  kvUnified: boolean | null;
  llamacppBuild: number | null;
  ollamaVersion: string | null;
  /** 'lazy' (the default when absent): fetch when near the viewport; 'eager': at once. */
  loading: 'lazy' | 'eager' | null;
  /** A config.json (text or object) to use instead of the model; null clears it. */
  config: string | object | null;
  readonly result: SizeReport | LlamacppSizeReport | null;
  readonly checkResult: CheckReport | LlamacppCheckReport | null;
  /** Resolves once every section shows the current state (after the element went live). */
  readonly updateComplete: Promise<boolean>;
}

/** Defines `<kv-calc>` (or `tag`) unless the tag is taken; null where there is no registry. */
export function define(tag?: string, registry?: CustomElementRegistry): CustomElementConstructor | null;

declare global {
  interface HTMLElementTagNameMap {
    'kv-calc': KvCalcElement;
  }
  interface HTMLElementEventMap {
    'kvcalc-change': KvCalcChangeEvent;
  }
}
