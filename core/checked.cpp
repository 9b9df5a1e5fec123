#include "checked.hpp"

namespace kvcalc {

u64 exact_product(u64 a, u64 b) {
    u64 r = 0;
    return __builtin_mul_overflow(a, b, &r) ? ~u64{0} : r;
}

}  // namespace kvcalc
