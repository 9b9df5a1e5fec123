// Text in, text out, like api.hpp: the check, the per-model table and the GPU list, for
// the CLI and the wasm bindings. Each returns a JSON report or {"error": {...}}; none throws.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"
#include "model.hpp"
#include "table.hpp"

namespace kvcalc {

// Options (a JSON object): max_context; the pool, one of pool_tokens, engine_log (the log's
// text) or gpu (a preset id) / gpu_memory (bytes or "80GiB") with gpu_count,
// gpu_memory_utilization, mem_fraction_static, activation_peak, non_torch, weight_dtype;
// engine (vllm | sglang); tp, pp, kv_dtype, block_size, accounting, concurrency,
// max_num_batched_tokens. Unknown keys and bad values are errors naming the key.
Result<json> check_report(const ModelSpec& m, const json& options);
std::string check_json(std::string_view config_or_preset, std::string_view options_json);

// configs_json: a JSON array of preset ids, config objects, or config JSON texts. The
// report carries "text" (the rendering) when options name a format.
std::string table_json(std::string_view configs_json, std::string_view options_json);

// [{"id", "name", "nominal", "memory_bytes", "memory_gib", "measured", "source"}, ...]
std::string gpu_presets_json();

}  // namespace kvcalc
