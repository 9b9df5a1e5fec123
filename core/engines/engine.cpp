#include "engines/engine.hpp"

namespace kvcalc {

const char* engine_name(Engine e) {
    return e == Engine::sglang ? "sglang" : e == Engine::llamacpp ? "llamacpp" : "vllm";
}

Result<Engine> parse_engine(std::string_view text) {
    if (text == "vllm" || text == "vLLM") return Engine::vllm;
    if (text == "sglang" || text == "SGLang") return Engine::sglang;
    return field_error(code::bad_option, "engine", "must be vllm or sglang, got \"{}\"", text.substr(0, 40));
}

}  // namespace kvcalc
