// Exact unsigned arithmetic. Every figure users see passes through these, so an
// overflow becomes an error instead of a wrapped, silently wrong number.
#pragma once

#include <cstdint>
#include <optional>

namespace kvcalc {

// Largest figure the reports carry: JavaScript numbers are exact up to 2^53 - 1,
// so the CLI and the JS API refuse anything larger in the same way.
inline constexpr std::uint64_t max_exact = (std::uint64_t{1} << 53) - 1;

using u64 = std::uint64_t;
using opt_u64 = std::optional<u64>;

// a x b, or a value above max_exact when it overflows. Out of line (checked.cpp): on wasm32
// a 64-bit overflow check is a 128-bit multiply, too much code for each of the core's products.
[[gnu::noinline]] u64 exact_product(u64 a, u64 b);

inline opt_u64 mul(opt_u64 a, opt_u64 b) {
    if (!a || !b) return std::nullopt;
    const u64 r = exact_product(*a, *b);
    if (r > max_exact) return std::nullopt;
    return r;
}

inline opt_u64 add(opt_u64 a, opt_u64 b) {
    u64 r = 0;
    if (!a || !b || __builtin_add_overflow(*a, *b, &r) || r > max_exact) return std::nullopt;
    return r;
}

inline u64 cdiv(u64 a, u64 b) {
    return a / b + (a % b != 0 ? 1 : 0);
}

inline opt_u64 round_up(opt_u64 a, u64 multiple) {
    if (!a) return std::nullopt;
    return mul(cdiv(*a, multiple), multiple);
}

}  // namespace kvcalc
