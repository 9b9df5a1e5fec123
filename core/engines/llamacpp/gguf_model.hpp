// A GGUF file's model, from the metadata document the GGUF reader builds of its header
// ({"gguf": {"version", "byte_order", "tensor_count", "metadata_bytes", "metadata": {...}}}; an
// array of more than 4096 values stands as {"gguf_array": TYPE, "count": N}): the layers by
// llama.cpp's rules for its general.architecture (llamacpp_architectures.inc), as llama.cpp's
// hparams loader and create_memory read them (LLAMACPP.md 1.5-1.8, 3.2).
#pragma once

#include <memory>

#include "config/json_fwd.hpp"
#include "config/model.hpp"

namespace kvcalc {

// Whether a parsed config is a GGUF metadata document (its root has "gguf").
bool is_gguf_document(const json& root);

// The model; a key the sizing needs and the document lacks is an error naming the key
// ("llama.block_count"), and an architecture kvcalc has no llama.cpp rule for is refused by name.
Result<ModelSpec> read_gguf_model(std::shared_ptr<const json> document);

}  // namespace kvcalc
