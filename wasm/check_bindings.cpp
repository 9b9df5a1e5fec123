// The wasm modules' surface, part two: the check against a KV pool, the per-model table and
// the GPU presets. Only kvcalc_core (the full module) has it, with size_bindings.cpp.
#include <emscripten/bind.h>

#include <string>

#include "api.hpp"
#include "check_api.hpp"

namespace {

std::string check(const std::string& config, const std::string& options_json) {
    return kvcalc::check_json(config, options_json);
}

std::string table(const std::string& configs_json, const std::string& options_json) {
    return kvcalc::table_json(configs_json, options_json);
}

std::string gpu_presets() {
    return kvcalc::gpu_presets_json();
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvcalc_check) {
    emscripten::function("check", &check);
    emscripten::function("table", &table);
    emscripten::function("gpuPresets", &gpu_presets);
}
