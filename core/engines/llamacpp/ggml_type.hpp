// The ggml types llama.cpp stores its cache in (-ctk / -ctv), with their exact block
// arithmetic: a row of n values takes n / block x bytes-per-block bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace kvcalc {

struct GgmlType {
    const char* name;     // as -ctk takes it: "q8_0"
    std::uint32_t block;  // values per block
    std::uint32_t block_bytes;
    bool quantized() const { return block > 1; }
};

// The nine types -ctk/-ctv accept (common/arg.cpp kv_cache_types), or nullptr.
const GgmlType* find_ggml_type(std::string_view name);

// ggml's f32, which recurrent and conv states are kept in (llama-model.cpp create_memory).
const GgmlType& ggml_f32();

// ggml_row_size: n values of type t, in bytes; none when n is not a whole number of blocks (ggml
// asserts it) or the bytes overflow.
std::optional<std::uint64_t> ggml_row_bytes(const GgmlType& t, std::uint64_t n);

}  // namespace kvcalc
