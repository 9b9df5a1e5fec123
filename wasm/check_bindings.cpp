// The wasm modules' surface, part three: the check against a KV pool and the GPU presets.
// kvcalc_check (with size_bindings.cpp: what a page of check views needs) and kvcalc_core
// (the full module) have it.
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
