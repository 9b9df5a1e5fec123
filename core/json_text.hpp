// Parsing config.json text without exceptions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "result.hpp"

namespace kvcalc {

using json = nlohmann::json;

// Python's json writer emits bare NaN / Infinity / -Infinity (Nemotron-H does). They are
// read as these marker strings, so a field that needs a number can say "got NaN".
inline constexpr const char* nan_marker = "\x01NaN";
inline constexpr const char* inf_marker = "\x01Infinity";
inline constexpr const char* neg_inf_marker = "\x01-Infinity";

// Malformed text gives code malformed_json with 1-based line and column; duplicate keys
// and nesting deeper than max_json_depth are errors too (a config must not be ambiguous).
inline constexpr int max_json_depth = 128;
Result<json> parse_json_text(std::string_view text);

// True for the marker strings that stand for NaN / Infinity / -Infinity.
bool is_number_marker(const json& value);

// "NaN" for a marker string, else the JSON text of the value (shortened), for messages.
std::string describe_value(const json& value);

}  // namespace kvcalc
