// Text in, text out: the coarse calls of the CLI and the wasm module, over a Session
// (session.hpp) that keeps the configs it has read. Each returns a JSON report, or
// {"error": {...}}; none throws. The one-shot functions below read their config afresh.
#pragma once

#include <string>
#include <string_view>

#include "config/gguf.hpp"
#include "config/json.hpp"
#include "config/model.hpp"
#include "options.hpp"
#include "session.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

// JSON text (starts with '{' after white space), or a bundled preset id.
Result<ModelSpec> load_config(std::string_view config_or_preset);

// Options text for the text calls: "" (or white space) is {}; anything but an object, or
// malformed JSON, is a bad_option error on the field "options".
Result<json> parse_options_text(std::string_view options_json);

// Text calls on a model read before: a report, or {"error": ...}. Options and axes are JSON
// text ("" for none).
std::string size_text(const Model& model, std::string_view options);
std::string check_text(const Model& model, std::string_view options);
std::string series_text(const Model& model, std::string_view options, std::string_view axes);

// The reports, from options already read.
Result<json> size_report(const Model& model, const Options& options);
// [{"id", "name", "attention_kind", "max_context", "layers", "bytes_per_token"}, ...], the
// presets read through (and kept by) `session`.
Result<json> presets_report(Session& session);

// size()'s headline figures, without its report: what a live view redraws on each input
// (bytes per token, the sequence's and the batch's KV bytes, per GPU). Every value is the
// size report's field of the same name: SizeFigures' (the context's) and these.
struct ModelFigures : SizeFigures {
    Accounting accounting = Accounting::resident;
    std::uint64_t context = 0, batch = 1, tp = 1, pp = 1, kv_dtype_bits = 16;
    std::uint64_t bytes_per_token = 0, bytes_per_token_per_gpu = 0, state_bytes = 0;
};

// The figures of size_report(model, options) without building it: the options are checked
// as size_text checks them, in the same order, so bad options give the same error. Options
// are JSON text ("" for none).
Result<ModelFigures> size_figures(const Model& model, const Options& options);
Result<ModelFigures> size_figures(const Model& model, std::string_view options);

// One-shot text calls (a Session of their own): the tests', the fuzz target's.
std::string size_json(std::string_view config_or_preset, std::string_view options_json);
std::string check_json(std::string_view config_or_preset, std::string_view options_json);
std::string table_json(std::string_view configs_json, std::string_view options_json);

// A GGUF reader's state as JSON text, for the wasm module's callers: while reading
// {"state": "reading", "next_offset", "offset", "kv_index", "kv_count", "key", "index",
// "count"} (progress(), next_offset() where to read next), once read {"state": "done",
// "metadata_bytes", "document"} (the document's text), or the error report {"error": {...}}.
std::string gguf_status_text(const GgufReader& reader);

// The bundled preset's config text, or "" for an unknown id.
std::string preset_config(std::string_view id);

// [{"id", "name", "nominal", "memory_bytes", "memory_gib", "measured", "source"}, ...]
std::string gpu_presets_json();

}  // namespace kvcalc
