// The wasm modules' surface, part one: sizing and the bundled presets. Every shipped module
// has it: kvcalc_size (this file alone: what the formula and GQA views need), kvcalc_table
// (with table_bindings.cpp), kvcalc_check (with check_bindings.cpp) and kvcalc_core (with
// both). Coarse text-in, text-out calls into core/api.hpp: every call returns JSON text (a
// report, or {"error": {...}}); nothing here throws, and no logic lives here: web/api.js
// turns the text into objects and errors into KvCalcError.
#include <emscripten/bind.h>

#include <string>

#include "allocator.hpp"
#include "api.hpp"

namespace {

std::string size(const std::string& config, const std::string& options_json) {
    return kvcalc::size_json(config, options_json);
}

std::string presets() {
    return kvcalc::presets_json();
}

std::string preset_config(const std::string& id) {
    return kvcalc::preset_config(id);
}

// The allocator's own view of the heap, for the leak test and diagnostics: the break (the
// top of the memory it has claimed) and the bytes currently allocated.
std::string heap_stats() {
    kvcalc_wasm::HeapStats h = kvcalc_wasm::heap_stats();
    return kvcalc::format("{\"heap_top\":{},\"in_use\":{}}", h.top, h.in_use);
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvcalc_size) {
    emscripten::function("size", &size);
    emscripten::function("presets", &presets);
    emscripten::function("presetConfig", &preset_config);
    emscripten::function("heapStats", &heap_stats);
}
