// The serving engines kvcalc sizes for, each in its folder under core/engines/: its
// accounting, its pool and its log reader.
#pragma once

#include <string_view>

#include "result.hpp"

namespace kvcalc {

enum class Engine { vllm, sglang, llamacpp };  // llamacpp: llama-server, Ollama, LM Studio
const char* engine_name(Engine e);
Result<Engine> parse_engine(std::string_view text);

}  // namespace kvcalc
