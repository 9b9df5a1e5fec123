// The JSON reports: the one shape the CLI prints with --json and the JS API returns
// (there with camelCase keys), so the two agree by construction.
#pragma once

#include "config/json.hpp"
#include "config/model.hpp"
#include "options.hpp"
#include "session.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

// {"error": {"code", "message", "field"[, "line", "column"]}}
json error_report(const Error& e);

// The Error of an {"error": {...}} report.
Error error_from_report(const json& report);

// to_text(error_report(e)); the second frees the error.
std::string error_text(const Error& e);
std::string error_text(Failure f);

// "GQA", "MHA", "MQA", "MLA", with ", sliding window" / ", chunked local" / " + linear
// state (mamba2)" where the model has such layers.
std::string attention_kind(const ModelSpec& m);

json size_report(const Model& model, const SizeResult& r);

// The sizing options among `options` (context, batch, kv_dtype, tp, pp, block_size,
// accounting, max_num_batched_tokens, shared_prefix); the others' defaults.
SizeOptions size_options(const Options& options);

// [{"field", "message"}, ...]
json warnings_json(const std::vector<Warning>& warnings);

// {"value", "source"}; the layer counts per kind ({"total", "full_attention", ...}).
json sourced(const Sourced& s);
json layer_counts(const ModelSpec& m);

// A size report's members about the model, whatever the engine: its name, attention kind, layers, heads,
// max context, layer plan and counts, and the weights estimate.
void set_model_members(json& j, const Model& model);
// A layer group's kind, name, layers and geometry (heads and head sizes, the MLA latent, window, state).
json group_geometry(const LayerGroup& g);

}  // namespace kvcalc
