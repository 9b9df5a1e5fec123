#include "engines/llamacpp/ggml_type.hpp"

#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

// Block sizes from type_traits[] in ggml/src/ggml.c; block bytes from the static_asserts of
// ggml/src/ggml-common.h (LLAMACPP.md 1.2): q8_0 sizeof(ggml_half) + QK8_0 = 34, q4_0
// sizeof(ggml_half) + QK4_0/2 = 18, q4_1 2 x sizeof(ggml_half) + QK4_1/2 = 20, q5_0 sizeof(ggml_half)
// + sizeof(uint32_t) + QK5_0/2 = 22, q5_1 2 x sizeof(ggml_half) + sizeof(uint32_t) + QK5_1/2 = 24,
// iq4_nl sizeof(ggml_half) + QK4_NL/2 = 18.
constexpr GgmlType types[] = {
    {"f32", 1, 4},    {"f16", 1, 2},    {"bf16", 1, 2},   {"q8_0", 32, 34},   {"q4_0", 32, 18},
    {"q4_1", 32, 20}, {"q5_0", 32, 22}, {"q5_1", 32, 24}, {"iq4_nl", 32, 18},
};

}  // namespace

const GgmlType* find_ggml_type(std::string_view name) {
    for (const GgmlType& t : types)
        if (name == t.name) return &t;
    return nullptr;
}

const GgmlType& ggml_f32() {
    return types[0];
}

std::optional<std::uint64_t> ggml_row_bytes(const GgmlType& t, std::uint64_t n) {
    if (n % t.block != 0) return std::nullopt;
    return mul(n / t.block, t.block_bytes);
}

}  // namespace kvcalc
