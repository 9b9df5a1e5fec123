// The wasm modules' surface, part three: the check against a KV pool and the GPU presets.
// Only kvcalc_core (the full module) has it, with size_bindings.cpp and table_bindings.cpp.
#include <emscripten/bind.h>

#include <string>

#include "api.hpp"
#include "check_api.hpp"

namespace {

std::string check(const std::string& config, const std::string& options_json) {
    return kvcalc::check_json(config, options_json);
}

std::string gpu_presets() {
    return kvcalc::gpu_presets_json();
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvcalc_check) {
    emscripten::function("check", &check);
    emscripten::function("gpuPresets", &gpu_presets);
}
