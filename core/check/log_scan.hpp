// The log scanner's line handling, shared by every engine's log reader: a pasted line cleaned
// of colour codes, and the figures a line states (counts with thousands separators, decimals,
// memory in GiB with the byte range its printed precision allows), found after a phrase or a
// key. A hand-written scanner (no std::regex: it would weigh on the wasm module).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "check/engine_log.hpp"

namespace kvcalc::scan {

constexpr std::size_t npos = std::string_view::npos;

inline bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
inline bool is_word(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// The line without colour codes (ESC [ ... final byte; ESC ] ... BEL), the "[1;36m" a paste
// keeps when it drops the ESC, and other control characters (shown as spaces).
void clean(std::string_view raw, std::string& out);

// The line as a finding shows it: trimmed, at most 240 characters.
std::string shown(std::string_view line);

std::size_t skip_spaces(std::string_view s, std::size_t i);

// An integer with optional thousands separators ("681,280" or "681280") at `pos`.
std::optional<std::uint64_t> read_count(std::string_view s, std::size_t pos, std::size_t* end = nullptr);

// A decimal like "43.21" at `pos`: its digits without the point, and how many follow it.
struct Decimal {
    std::uint64_t mantissa = 0;
    unsigned decimals = 0;
    std::size_t end = 0;
};
std::optional<Decimal> read_decimal(std::string_view s, std::size_t pos);
std::string decimal_text(const Decimal& d);

// x units of 2^shift bytes printed to `decimals` places (at least `min_places`) came from bytes in
// [x - half, x + half] of its last place. GiB by default; llama.cpp's MiB is shift 20.
std::optional<LogMemory> memory_range(const Decimal& d, const char* unit, int line, unsigned shift = 30,
                                      unsigned min_places = 2);

// A memory figure at `pos`: a decimal, optional spaces, then GiB, Gib or GB.
std::optional<LogMemory> read_memory(std::string_view s, std::size_t pos, int line,
                                     std::size_t* end = nullptr);

// Hundredths of a decimal with at most two places ("0.65" -> 65).
std::optional<std::uint64_t> hundredths(const Decimal& d);

// A callable passed by reference, so that the scanning loops below are compiled once, not once
// per line the reader knows (the wasm module's size).
template <class... A>
class Visit {
public:
    template <class F>
    Visit(F&& f)  // NOLINT: implicit, as a lambda argument
        : obj_(&f), call_([](void* o, A... a) { (*static_cast<std::remove_reference_t<F>*>(o))(a...); }) {}
    void operator()(A... a) const { call_(obj_, a...); }

private:
    void* obj_;
    void (*call_)(void*, A...);
};

// Every position just after `phrase` in `line`, and where the phrase starts.
void each_after(std::string_view line, std::string_view phrase, Visit<std::size_t, std::size_t> f);

// After `key` where it starts a word ("tp_size=" but not "attn_tp_size=", "-tp" but not "--tp").
void each_key(std::string_view line, std::string_view key, Visit<std::size_t> f);

// A word after `pos`, past spaces, '=' and quotes: "fp8" in "kv_cache_dtype='fp8'".
std::string read_word(std::string_view s, std::size_t pos);

// A count after `pos`, past spaces, '=', ':' and quotes.
std::optional<std::uint64_t> count_after(std::string_view s, std::size_t pos);

// A count inside "(...)" right after `pos` ("(262144)"), or plain.
std::optional<std::uint64_t> count_in_parens(std::string_view s, std::size_t pos);

}  // namespace kvcalc::scan
