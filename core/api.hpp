// Text in, text out: the coarse calls the CLI and the wasm bindings share. Each returns
// a JSON report, or {"error": {...}}; none throws.
#pragma once

#include <string>
#include <string_view>

#include "model.hpp"

namespace kvcalc {

// JSON text (starts with '{' after white space), or a bundled preset id.
Result<ModelSpec> load_config(std::string_view config_or_preset);

// Options text for the text calls: "" (or white space) is {}; anything but an object, or
// malformed JSON, is a bad_option error on the field "options".
Result<json> parse_options_text(std::string_view options_json);

// size_model over load_config; options_json as in size_options_from_json ("" = defaults).
std::string size_json(std::string_view config_or_preset, std::string_view options_json);

// [{"id", "name", "attention_kind", "max_context", "layers", "bytes_per_token"}, ...]
std::string presets_json();

// The bundled preset's config text, or "" for an unknown id.
std::string preset_config(std::string_view id);

}  // namespace kvcalc
