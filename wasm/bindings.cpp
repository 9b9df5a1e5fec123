// The wasm module's surface: Embind bindings over the core's text calls (core/api.hpp,
// core/check_api.hpp). Every call answers JSON text, a report or {"error": {...}}; nothing
// here throws and no logic lives here: web/api.js turns the text into objects and errors
// into KvCalcError.
#include <emscripten/bind.h>
#include <malloc.h>

#include <string>

#include "api.hpp"
#include "check_api.hpp"

namespace {

std::string size(const std::string& config, const std::string& options_json) {
    return kvcalc::size_json(config, options_json);
}

std::string check(const std::string& config, const std::string& options_json) {
    return kvcalc::check_json(config, options_json);
}

std::string table(const std::string& configs_json, const std::string& options_json) {
    return kvcalc::table_json(configs_json, options_json);
}

std::string presets() {
    return kvcalc::presets_json();
}

std::string preset_config(const std::string& id) {
    return kvcalc::preset_config(id);
}

std::string gpu_presets() {
    return kvcalc::gpu_presets_json();
}

// Bytes the allocator has handed out and not had back: a private hook for the test that
// checks the heap stays flat after many bad inputs (not part of the JS API).
double heap_in_use() {
    return static_cast<double>(mallinfo().uordblks);
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvcalc) {
    emscripten::function("size", &size);
    emscripten::function("check", &check);
    emscripten::function("table", &table);
    emscripten::function("presets", &presets);
    emscripten::function("presetConfig", &preset_config);
    emscripten::function("gpuPresets", &gpu_presets);
    emscripten::function("heapInUse", &heap_in_use);
}
