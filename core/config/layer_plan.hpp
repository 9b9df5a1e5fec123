// Which layers keep which kind of cache, from the config's own fields (never its name).
#pragma once

#include "config/config_fields.hpp"
#include "config/model.hpp"

namespace kvcalc {

// Fills m.groups, m.layer_group and the plan's warnings. kv_heads and head_dim are the
// text model's defaults; groups may override them (Gemma 4's full layers).
Result<bool> build_layer_plan(const Fields& f, ModelSpec& m, const Sourced& kv_heads,
                              const Sourced& head_dim);

// Voxtral Realtime (family voxtral_realtime): appends audio_config's causal Whisper encoder as a group of
// sliding-window layers beside the text model's. Needs m.config set.
Result<bool> add_causal_encoder(ModelSpec& m);

}  // namespace kvcalc
