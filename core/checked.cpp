#include "checked.hpp"

namespace kvcalc {

opt_u64 mul(opt_u64 a, opt_u64 b) {
    u64 r = 0;
    if (!a || !b || __builtin_mul_overflow(*a, *b, &r) || r > max_exact) return std::nullopt;
    return r;
}

opt_u64 add(opt_u64 a, opt_u64 b) {
    u64 r = 0;
    if (!a || !b || __builtin_add_overflow(*a, *b, &r) || r > max_exact) return std::nullopt;
    return r;
}

}  // namespace kvcalc
