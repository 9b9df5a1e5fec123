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

// a x b and a + b, or nullopt when either is or the result exceeds max_exact.
inline opt_u64 mul(opt_u64 a, opt_u64 b) {
    if (!a || !b) return std::nullopt;
    const u64 x = *a, y = *b;
    // Both below 2^26: the product is below 2^52 (the usual case, and no division).
    if (((x | y) >> 26) != 0 && x != 0 && y > max_exact / x) return std::nullopt;
    return x * y;
}

inline opt_u64 add(opt_u64 a, opt_u64 b) {
    if (!a || !b) return std::nullopt;
    const u64 r = *a + *b;  // both at most max_exact: no wrap in 64 bits
    if (*a > max_exact || *b > max_exact || r > max_exact) return std::nullopt;
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
