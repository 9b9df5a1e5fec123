// The bundled models: the real config.json files from ../shared/configs, embedded at
// build time (cmake/embed_presets.cmake writes presets_data.cpp into the build tree).
#pragma once

#include <cstddef>
#include <string_view>

namespace kvcalc {

struct Preset {
    const char* id;           // "Qwen/Qwen2.5-7B-Instruct" (the file name, "--" read as "/")
    const char* config_json;  // the file's text, unchanged
};

std::size_t preset_count();
const Preset& preset_at(std::size_t i);
const Preset* find_preset(std::string_view id);

}  // namespace kvcalc
