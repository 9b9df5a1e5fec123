#include "engines/llamacpp/llamacpp_model.hpp"

#include <vector>

namespace kvcalc {
namespace {

#include "engines/llamacpp/llamacpp_architectures.inc"

// Builds where llama.cpp's allocation of a kind of model changed and what came before is not
// specified (LLAMACPP.md 8).
constexpr std::uint64_t b_recurrent_memory = 5761;  // llama_memory_recurrent (#13979)
constexpr std::uint64_t b_layer_reuse = 6264;       // shared-KV layers reuse (#15504)
constexpr std::uint64_t b_mla = 5137;               // MLA conversion: K the latent (#12801)

bool in_list(std::string_view list, std::string_view word) {
    while (!list.empty()) {
        const std::size_t sp = list.find(' ');
        if (list.substr(0, sp) == word) return true;
        list = sp == std::string_view::npos ? std::string_view() : list.substr(sp + 1);
    }
    return false;
}

}  // namespace

const LlamacppArch* find_llamacpp_arch(std::string_view arch) {
    for (const LlamacppArch& a : llamacpp_arch_table)
        if (arch == a.arch) return &a;
    return nullptr;
}

const LlamacppArch* llamacpp_arch_for_model_type(std::string_view model_type) {
    if (model_type.empty()) return nullptr;
    for (const LlamacppArch& a : llamacpp_arch_table)
        if (in_list(a.model_types, model_type)) return &a;
    return nullptr;
}

bool llamacpp_swa_layer(SwaRule rule, std::uint32_t period, std::uint32_t il) {
    // llama-hparams.cpp set_swa_pattern: il % p < p - 1 (the last of each period is full), or with
    // dense_first il % p != 0; a period of 0 makes every layer SWA.
    if (rule == SwaRule::period) return period == 0 || il % period < period - 1;
    if (rule == SwaRule::dense_first) return period == 0 || il % period != 0;
    return false;
}

Result<ModelSpec> llamacpp_model(const ModelSpec& m, std::uint64_t build) {
    // What is not llama.cpp's: the constructs vLLM sizes for some models.
    for (const LayerGroup& g : m.groups) {
        const char* what = g.cross_attention  ? "the cross-attention of an encoder-decoder"
                           : g.encoder        ? "an encoder run beside the text model"
                           : g.per_layer != 1 ? "looped layers, a cache per loop step"
                           : g.indexer_dim.value || g.indexer_bytes.value
                               ? "a sparse-attention indexer's keys"
                               : nullptr;
        if (what)
            return fail(code::unsupported, "engine",
                        "engine llamacpp: this model has {} (the {} layers), which kvcalc sizes only as vLLM "
                        "does",
                        what, g.name);
    }
    if (!m.llamacpp_arch.empty()) return m;  // a GGUF's model: llama.cpp's rules applied when it was read

    const LlamacppArch* arch = llamacpp_arch_for_model_type(m.model_type);
    if (!arch)
        return fail(
            code::unsupported, "engine",
            "engine llamacpp: kvcalc has no mapping from model_type \"{}\" to a llama.cpp architecture "
            "whose rules it has: size the GGUF file instead",
            m.model_type.empty() ? std::string("(none)") : m.model_type);
    if (m.k_eq_v)
        return fail(
            code::unsupported, "engine",
            "engine llamacpp: attention_k_eq_v is not mapped to llama.cpp: size the GGUF file instead");
    const std::uint64_t n = m.num_layers.value;
    if (arch->kv_layers && build < b_layer_reuse)
        return fail(code::unsupported, "llamacpp_build",
                    "llamacpp_build {}: {}'s shared-KV layers before b6264 are not modelled", build,
                    arch->arch);
    if (arch->kv_layers && n < arch->kv_layers)
        return fail(code::invalid_value, m.num_layers.source,
                    "{} {}: llama.cpp's {} keeps KV on its first {} layers (n_layer_kv_from_start)",
                    m.num_layers.source, n, arch->arch, arch->kv_layers);

    // The window llama.cpp's SWA layers keep: the config's sliding window, else the architecture's default.
    Sourced window;
    for (const LayerGroup& g : m.groups) {
        if (g.kind != LayerKind::sliding_window && g.kind != LayerKind::chunked_local) continue;
        if (window.value && window.value != g.window.value)
            return fail(
                code::unsupported, "engine",
                "engine llamacpp: the config has sliding windows of {} and {} tokens; llama.cpp keeps one "
                "n_swa",
                window.value, g.window.value);
        window = g.window;
    }
    if (arch->chunked)
        window = {arch->default_window,
                  format("llama.cpp's {} chunks of {}", arch->arch, arch->default_window)};
    else if (!window.value && arch->default_window)
        window = {arch->default_window,
                  format("llama.cpp's {} default n_swa {}", arch->arch, arch->default_window)};
    const bool swa = (arch->swa == SwaRule::period || arch->swa == SwaRule::dense_first) && window.value;

    // Each layer's group in llama.cpp's view: the config's group, with the kind llama.cpp gives it.
    ModelSpec out = m;
    out.groups.clear();
    out.layer_group.clear();
    out.layer_second_group.clear();
    // A config has a handful of groups: a search beats a map's code.
    struct Placed {
        std::uint32_t from;
        LayerKind kind;
    };
    std::vector<Placed> placed;  // out.groups[i] came from placed[i]
    auto place = [&](std::uint32_t from, LayerKind kind) -> std::uint32_t {
        for (std::uint32_t i = 0; i < placed.size(); ++i)
            if (placed[i].from == from && placed[i].kind == kind) return i;
        LayerGroup g = m.groups[from];
        if (g.kind != kind) g.name = layer_kind_name(kind);
        g.kind = kind;
        g.count = 0;
        g.window = kind == LayerKind::sliding_window || kind == LayerKind::chunked_local ? window : Sourced{};
        out.groups.push_back(std::move(g));
        placed.push_back({from, kind});
        return static_cast<std::uint32_t>(placed.size() - 1);
    };
    for (std::uint32_t il = 0; il < n; ++il) {
        const std::uint32_t from = m.layer_group[il];
        LayerKind kind = m.groups[from].kind;
        const bool attention = kind == LayerKind::full_attention || kind == LayerKind::sliding_window ||
                               kind == LayerKind::chunked_local;
        if (arch->kv_layers && il >= arch->kv_layers) {
            kind = LayerKind::no_cache;  // reuses an earlier layer's cache
        } else if (attention) {
            kind = !swa                                                   ? LayerKind::full_attention
                   : !llamacpp_swa_layer(arch->swa, arch->swa_period, il) ? LayerKind::full_attention
                   : arch->chunked                                        ? LayerKind::chunked_local
                                                                          : LayerKind::sliding_window;
        }
        out.layer_group.push_back(place(from, kind));
        if (!m.layer_second_group.empty()) {
            const std::uint32_t second = m.layer_second_group[il];
            if (out.layer_second_group.empty()) out.layer_second_group.assign(n, ModelSpec::no_second_cache);
            if (second != ModelSpec::no_second_cache)
                out.layer_second_group[il] = place(second, m.groups[second].kind);
        }
    }
    for (std::uint32_t il = 0; il < n; ++il) {
        out.groups[out.layer_group[il]].count += 1;
        if (!out.layer_second_group.empty() && out.layer_second_group[il] != ModelSpec::no_second_cache)
            out.groups[out.layer_second_group[il]].count += 1;
    }
    // Before b5137 a DeepSeek config converted to full attention: head_count_kv = the query heads, key_length
    // qk_nope + qk_rope, value_length v_head_dim (LLAMACPP.md 1.8, "GGUFs converted before b5137").
    for (LayerGroup& g : out.groups) {
        if (g.kind != LayerKind::mla || build >= b_mla) continue;
        if (!g.mla_k_head_dim.value || !g.mla_v_head_dim.value)
            return fail(code::missing_field, "qk_nope_head_dim",
                        "qk_nope_head_dim or v_head_dim: missing, which a file converted before b5137 caches "
                        "per head");
        g.kind = LayerKind::full_attention;
        g.name = "attention (converted before b5137)";
        g.kv_heads = m.query_heads;
        g.k_head_dim = g.mla_k_head_dim;
        g.v_head_dim = g.mla_v_head_dim;
        g.latent_dim = g.latent_v_dim = {};
    }
    for (const LayerGroup& g : out.groups) {
        if (g.kind != LayerKind::linear_state) continue;
        if (build < b_recurrent_memory)
            return fail(code::unsupported, "llamacpp_build",
                        "llamacpp_build {}: recurrent state before b5761 is not modelled", build);
        const std::string& mixer = g.state.mixer;
        if (mixer != "mamba1" && mixer != "mamba2" && mixer != "gated_delta_net" && mixer != "short_conv")
            return fail(code::unsupported, "engine",
                        "engine llamacpp: the {} layers' {} state is not mapped to llama.cpp's", g.name,
                        mixer);
    }
    out.llamacpp_arch = arch->arch;
    out.llamacpp_arch_source = format("model_type {} converts to llama.cpp's {}", m.model_type, arch->arch);
    return out;
}

}  // namespace kvcalc
