// Many figures of one model in one call: a chart's points over contexts and KV dtypes, and
// the GQA demo's variants of the model (other KV-head counts, MLA), each sized by the core.
#pragma once

#include <cstdint>

#include "config/json.hpp"
#include "options.hpp"
#include "session.hpp"

namespace kvcalc {

// The model with `kv_heads` KV heads on every attention layer (they must divide the query
// heads). An MLA model is expanded into heads first: each keeps its full key
// (qk_nope_head_dim + qk_rope_head_dim) and value (v_head_dim), what MLA compresses away.
Result<ModelSpec> with_kv_heads(const ModelSpec& m, std::uint64_t kv_heads);

// The model with every attention layer caching one MLA latent and no window: its own latent
// for an MLA model, else DeepSeek-V3's kv_lora_rank 512 + qk_rope_head_dim 64.
ModelSpec with_mla(const ModelSpec& m);

// axes (all optional): {"contexts": [...], "kv_dtypes": [...], "variants": ["model", "mla",
// {"kv_heads": n}, ...]}; the defaults: the options' context (else the model's max), the
// options' kv_dtype, the model as configured. One series per variant and dtype (variants
// outer), each with kv_bytes and kv_bytes_per_gpu per context; a series the model cannot
// have (fp8_ds_mla without MLA, KV heads that do not divide) carries its error instead.
Result<json> series_report(const Model& model, const Options& options, const json& axes);

}  // namespace kvcalc
