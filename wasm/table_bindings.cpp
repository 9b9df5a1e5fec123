// The wasm modules' surface, part two: the per-model table. kvcalc_table (with
// size_bindings.cpp: what a page of table views needs) and kvcalc_core (the full module)
// have it.
#include <emscripten/bind.h>

#include <string>

#include "check_api.hpp"

namespace {

std::string table(const std::string& configs_json, const std::string& options_json) {
    return kvcalc::table_json(configs_json, options_json);
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvcalc_table) {
    emscripten::function("table", &table);
}
