// Speculative decoding as vLLM allocates it: a draft of the model's own MTP layers adds
// attention layers to the cache, and each Mamba-like state grows by the draft tokens.
#pragma once

#include <cstdint>

#include "config/model.hpp"

namespace kvcalc {

inline constexpr std::uint64_t max_speculative_tokens = 1024;  // kvcalc's bound on the option

// The model as vLLM serves it with `tokens` speculative tokens (num_speculative_tokens)
// drafted by the model's own MTP layers: the draft's full-attention layers are added after
// the model's, and each gated-delta-net state keeps `tokens` more conv rows. The model itself
// when tokens is 0. An error names num_speculative_tokens when the model has no MTP draft
// kvcalc models, or pp when the model is split into pipeline stages.
Result<ModelSpec> with_speculative_tokens(const ModelSpec& m, std::uint64_t tokens, std::uint64_t pp);

}  // namespace kvcalc
