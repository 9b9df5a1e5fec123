// JSON in the core: nlohmann::json, read without exceptions (the wasm module is built
// without them), with the few rules a config needs on top: Python's NaN / Infinity tokens,
// duplicate keys and runaway nesting refused, and errors placed by line and column.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/json_fwd.hpp"
#include "result.hpp"

namespace kvcalc {

// Python's json writer emits bare NaN / Infinity / -Infinity (Nemotron-H does). They are
// read as these marker strings, so a field that needs a number can say "got NaN".
inline constexpr const char* nan_marker = "\x01NaN";
inline constexpr const char* inf_marker = "\x01Infinity";
inline constexpr const char* neg_inf_marker = "\x01-Infinity";

// Malformed text gives code malformed_json with 1-based line and column; duplicate keys
// and nesting deeper than max_json_depth are errors too (a config must not be ambiguous).
inline constexpr int max_json_depth = 128;
// Texts longer than this are refused before parsing: a config.json is kilobytes (the largest
// in ../shared/configs is 4 KB), and an engine log's structured parts are smaller still.
inline constexpr std::size_t max_json_bytes = std::size_t{1} << 20;  // 1 MiB
// Options may carry a whole engine log as pasted (DEBUG logs run to megabytes).
inline constexpr std::size_t max_options_bytes = std::size_t{64} << 20;  // 64 MiB
Result<json> parse_json_text(std::string_view text, std::size_t max_bytes = max_json_bytes);

// True for the marker strings that stand for NaN / Infinity / -Infinity.
bool is_number_marker(const json& value);

// "NaN" for a marker string, else the JSON text of the value (shortened), for messages.
std::string describe_value(const json& value);

// Compact text (indent < 0) or pretty text with `indent` spaces a level. Invalid UTF-8 in
// strings is written as U+FFFD (nlohmann would throw).
std::string to_text(const json& j, int indent = -1);

// The member `key` of an object, or nullptr when absent (or `object` is not an object).
const json* member(const json& object, std::string_view key);

// object[key] = value, out of line: the reports set some 270 members, and each
// `j["key"] = value` written inline costs its site the lookup call, the value's
// construction, nlohmann's move assignment and a destructor (about 60 bytes of wasm); a
// call costs about 12. One instance per value type.
template <class T>
[[gnu::noinline]] void set_member(json& object, const char* key, const T& value) {
    object[key] = value;
}
void set_member(json& object, const char* key, json&& value);

// A whole number as JSON, or null when there is none.
inline json or_null(const std::optional<std::uint64_t>& v) {
    return v ? json(*v) : json(nullptr);
}

// hundredths / 100 as the double it stands for, which nlohmann writes with two decimals at
// most ("0.65", "100.0"): the division is correctly rounded, so the nearest double is found.
inline json hundredths_json(std::uint64_t hundredths) {
    return json(static_cast<double>(hundredths) / 100.0);
}

}  // namespace kvcalc
