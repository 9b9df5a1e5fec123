// The size report with engine llamacpp: the report's common figures (naive, resident, kv_bytes, the
// model's layers) and, in "llamacpp", what llama.cpp allocates per memory object, K and V apart,
// with the settings it was sized with and where each comes from.
#pragma once

#include "config/json.hpp"
#include "session.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

json llamacpp_size_report(const Model& model, const SizeResult& r);

// The report's "llamacpp" object: the settings llama.cpp was sized with and where each comes from, and
// each memory object with its cells, layers, K and V bytes and its log line.
json allocation_json(const LlamacppAllocation& a, const LlamacppPlan& plan);

}  // namespace kvcalc
