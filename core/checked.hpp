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

// a x b and a + b, or nullopt when either is or the result exceeds max_exact. Out of line
// and never inlined (checked.cpp): on wasm32 a 64-bit overflow check is a 128-bit multiply,
// too much code to repeat at each of the core's sums and products.
[[gnu::noinline]] opt_u64 mul(opt_u64 a, opt_u64 b);
[[gnu::noinline]] opt_u64 add(opt_u64 a, opt_u64 b);

inline u64 cdiv(u64 a, u64 b) {
    return a / b + (a % b != 0 ? 1 : 0);
}

inline opt_u64 round_up(opt_u64 a, u64 multiple) {
    if (!a) return std::nullopt;
    return mul(cdiv(*a, multiple), multiple);
}

}  // namespace kvcalc
