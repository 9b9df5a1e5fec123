// The parameter count, layer by layer, from the config's own fields (never its name).
#include "sizing/weights.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "config/architectures.hpp"
#include "config/config_fields.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

// A checked figure: * and + stay exact or become "overflowed" (nullopt), never a wrapped
// number. Config values are at most 2^53 - 1 each, but their products need not be.
struct N {
    opt_u64 v;
    N(std::uint64_t x) : v(x) {}  // NOLINT: implicit by design, so expressions read as arithmetic
    N(opt_u64 x) : v(x) {}        // NOLINT
};
// Out of line, as push() below: the estimate (run once a model) writes some 70 of these, and
// each inlined copy of the overflow check cost its site more wasm than a call.
[[gnu::noinline]] N operator*(N a, N b) {
    return N(mul(a.v, b.v));
}
[[gnu::noinline]] N operator+(N a, N b) {
    return N(add(a.v, b.v));
}

Failure overflow_error() {
    return fail(code::overflow, "hidden_size",
                "the parameter count exceeds 2^53 - 1, the largest figure kvcalc reports exactly (check the "
                "config's sizes)");
}

// An optional non-negative integer field: nullopt when absent or null.
Result<std::optional<std::uint64_t>> optional_int(const Fields& f, const char* name) {
    if (!f.find(name)) return std::optional<std::uint64_t>();
    auto v = f.non_negative(name);
    if (!v) return v.forward_error();
    return std::optional<std::uint64_t>(v->value);
}

// The first present of `names`, as a positive integer; {} when none is present.
Result<Sourced> first_positive(const Fields& f, std::initializer_list<const char*> names) {
    const char* n = f.first_of(names);
    if (!n) return Sourced{};
    return f.positive(n);
}

// A list of layer indices (mlp_only_layers, moe_layers); errors name the element.
Result<std::vector<std::uint64_t>> index_list(const Fields& f, const char* name) {
    std::vector<std::uint64_t> out;
    const json* v = f.find(name);
    if (!v) return out;
    if (!v->is_array())
        return f.error(code::invalid_value, name, "must be a list of layer indices, got {}", described(*v));
    for (std::size_t i = 0; i < v->size(); ++i) {
        auto n = checked_integer((*v)[i], format("{}[{}]", f.path(name), i), true);
        if (!n) return n.forward_error();
        out.push_back(*n);
    }
    return out;
}

bool contains(const std::vector<std::uint64_t>& v, std::uint64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// Config classes whose tie_word_embeddings defaults to false in transformers; every other
// class inherits PretrainedConfig's true. Only consulted when the config omits the field.
bool untied_by_default(const std::string& model_type) {
    static const char* untied[] = {"llama", "llama4_text", "mistral",     "mixtral",    "qwen2",
                                   "qwen3", "qwen3_moe",   "deepseek_v2", "deepseek_v3"};
    for (const char* t : untied)
        if (model_type == t) return true;
    return false;
}

struct Layout {
    std::uint64_t hidden = 0, vocab = 0, query_heads = 0;
    std::uint64_t intermediate = 0;  // dense MLP width
    std::string intermediate_source;
    bool gated = true;  // SwiGLU-style MLP: gate, up and down matrices
    bool attn_bias = false, qkv_bias = false, mlp_bias = false;
    std::uint64_t norm_elems = 1;   // 2 for LayerNorm with a bias
    bool attn_output_gate = false;  // q_proj also produces a per-head output gate
    // MoE
    std::uint64_t experts = 0;
    std::uint64_t expert_intermediate = 0;
    std::uint64_t shared_intermediate = 0;  // n_shared_experts x expert width, or the shared width
    bool shared_gate = false;               // Qwen's shared_expert_gate (hidden x 1)
    bool dense_beside_moe = false;          // Gemma 4: a dense MLP in parallel with the experts
    std::uint64_t first_dense = 0, moe_freq = 1, sparse_step = 1, interleave_step = 1;
    std::vector<std::uint64_t> mlp_only, moe_list;
    bool moe_by_layer = false;             // moe_list from moe_layer_freq's per-layer flags (none may be MoE)
    std::uint64_t dense_intermediate = 0;  // Llama 4's intermediate_size_mlp
    std::string pattern;                   // hybrid_override_pattern, when present
};

Result<Layout> read_layout(const ModelSpec& m, const Fields& f, const Fields& top) {
    Layout L;
    L.hidden = m.hidden_size.value;
    if (L.hidden == 0)
        return f.error(
            code::missing_field, "hidden_size",
            "missing (the weights estimate needs the model width; also looked for n_embd, d_model)");
    L.query_heads = m.query_heads.value;
    auto vocab = first_positive(f, {"vocab_size", "padded_vocab_size"});
    if (!vocab) return vocab.forward_error();
    if (vocab->value == 0) {
        vocab = first_positive(top, {"vocab_size", "padded_vocab_size"});
        if (!vocab) return vocab.forward_error();
    }
    if (vocab->value == 0)
        return f.error(code::missing_field, "vocab_size",
                       "missing (the weights estimate needs the vocabulary size; also looked for "
                       "padded_vocab_size)");
    L.vocab = vocab->value;

    auto inter = first_positive(f, {"intermediate_size", "ffn_hidden_size", "n_inner"});
    if (!inter) return inter.forward_error();
    bool plain_act = f.find("activation_function") != nullptr;  // GPT-2 style: Conv1D, biases, no gate
    for (const char* n : {"mlp_hidden_act", "hidden_act", "hidden_activation"}) {
        auto a = f.text(n);
        if (!a) return a.forward_error();
        if (*a == "relu2" || *a == "relu" || *a == "gelu_new") plain_act = true;
        if (!a->empty()) break;
    }
    if (inter->value == 0) {
        L.intermediate = 4 * L.hidden;
        L.intermediate_source = "4 x hidden_size (no intermediate_size)";
        L.gated = false;
    } else {
        L.intermediate = inter->value;
        L.intermediate_source = inter->source;
        L.gated = !plain_act;
    }

    auto bias_flag = [&](std::initializer_list<const char*> names, bool fallback) -> Result<bool> {
        for (const char* n : names)
            if (f.find(n)) return f.flag(n, false);
        return fallback;
    };
    auto ab = bias_flag({"attention_bias", "bias", "use_bias"}, plain_act);
    auto qb = f.flag("add_qkv_bias", false);
    auto mb = bias_flag({"mlp_bias", "bias", "use_bias"}, plain_act);
    if (m.family == "openpangu") {
        // openpangu.py OpenPanguDecoderLayer: attention_bias or bias on QKV and o_proj (qkv_bias, when set,
        // decides QKV alone: not modelled), mlp_bias alone on the MLP.
        if (f.find("qkv_bias"))
            return f.error(code::unsupported, "qkv_bias",
                           "set: openPangu's QKV bias apart from o_proj's is not modelled in the weights");
        auto a1 = f.flag("attention_bias", false), a2 = f.flag("bias", false);
        if (!a1) return a1.forward_error();
        if (!a2) return a2.forward_error();
        ab = *a1 || *a2;
        mb = f.flag("mlp_bias", false);
    }
    for (auto* r : {&ab, &qb, &mb})
        if (!*r) return r->forward_error();
    L.attn_bias = *ab;
    L.qkv_bias = *qb;
    L.mlp_bias = *mb;

    auto rms = f.flag("rmsnorm", false);
    if (!rms) return rms.forward_error();
    bool layer_norm = f.first_of({"layer_norm_epsilon", "layer_norm_eps", "layernorm_epsilon"}) != nullptr;
    L.norm_elems = layer_norm && !*rms ? 2 : 1;

    // Gated-DeltaNet hybrids gate their full attention's output: Qwen3.5 says so with
    // attn_output_gate, Qwen3-Next always does and has no field for it.
    auto gate = f.flag("attn_output_gate", f.find("linear_num_value_heads") != nullptr);
    if (!gate) return gate.forward_error();
    L.attn_output_gate = *gate;

    auto experts = first_positive(f, {"n_routed_experts", "num_experts", "num_local_experts"});
    if (!experts) return experts.forward_error();
    L.experts = experts->value > 1 ? experts->value : 0;
    if (L.experts) {
        auto ei = first_positive(f, {"moe_intermediate_size"});
        if (!ei) return ei.forward_error();
        L.expert_intermediate = ei->value ? ei->value : L.intermediate;
        auto shared = first_positive(f, {"n_shared_experts", "num_shared_experts"});
        auto shared_width = first_positive(f, {"shared_expert_intermediate_size"});
        if (!shared) return shared.forward_error();
        if (!shared_width) return shared_width.forward_error();
        if (shared->value) {
            auto width = mul(shared->value, L.expert_intermediate);
            if (!width) return overflow_error();
            L.shared_intermediate = *width;
        } else if (shared_width->value) {
            L.shared_intermediate = shared_width->value;
            L.shared_gate = true;
        } else if (f.find("interleave_moe_layer_step")) {
            L.shared_intermediate = L.expert_intermediate;  // Llama 4: one always-on expert
        }
        auto both = f.flag("enable_moe_block", false);
        if (!both) return both.forward_error();
        // vLLM's DiffusionGemmaTextConfig (transformers_utils/configs/diffusion_gemma.py) sets
        // enable_moe_block whenever num_experts is set: the dense MLP runs beside the experts, as in Gemma 4.
        L.dense_beside_moe = *both || m.family == "diffusion_gemma";
        // moe_layer_freq as a list: one flag a layer, MoE where it is set (vLLM mimo_v2.py
        // MiMoV2DecoderLayer, MiniMax-M3: bool(config.moe_layer_freq[layer_idx])).
        if (const json* freq = f.find("moe_layer_freq"); freq && freq->is_array()) {
            if (freq->size() != m.num_layers.value)
                return field_error(code::inconsistent, f.path("moe_layer_freq"),
                                   "has {} entries but the model has {} layers", freq->size(),
                                   m.num_layers.value);
            L.moe_by_layer = true;
            for (std::size_t i = 0; i < freq->size(); ++i) {
                const json& e = (*freq)[i];
                if (e.is_boolean()) {
                    if (e.get<bool>()) L.moe_list.push_back(i);
                    continue;
                }
                auto n = checked_integer(e, format("{}[{}]", f.path("moe_layer_freq"), i), true);
                if (!n) return n.forward_error();
                if (*n > 1)
                    return fail(code::invalid_value, format("{}[{}]", f.path("moe_layer_freq"), i),
                                "{}[{}]: must be 0 or 1 (a layer's MoE flag), got {}",
                                f.path("moe_layer_freq"), i, *n);
                if (*n) L.moe_list.push_back(i);
            }
        }
        for (auto [name, out] : {std::pair{"first_k_dense_replace", &L.first_dense},
                                 std::pair{"moe_layer_freq", L.moe_by_layer ? nullptr : &L.moe_freq},
                                 std::pair{"decoder_sparse_step", &L.sparse_step},
                                 std::pair{"interleave_moe_layer_step", &L.interleave_step}}) {
            if (!out) continue;
            auto v = optional_int(f, name);
            if (!v) return v.forward_error();
            if (*v) *out = **v;
        }
        for (auto [name, v] : {std::pair{"moe_freq", L.moe_freq}, std::pair{"sparse_step", L.sparse_step},
                               std::pair{"interleave_step", L.interleave_step}})
            if (v == 0)
                return fail(code::invalid_value, f.path(name),
                            "a MoE layer interval ({}) must be positive, got 0", name);
        auto only = index_list(f, "mlp_only_layers");
        if (!only) return only.forward_error();
        L.mlp_only = std::move(only.value());
        if (!L.moe_by_layer) {
            auto list = index_list(f, "moe_layers");
            if (!list) return list.forward_error();
            L.moe_list = std::move(list.value());
        }
    }
    auto dense = first_positive(f, {"intermediate_size_mlp"});
    if (!dense) return dense.forward_error();
    L.dense_intermediate = dense->value ? dense->value : L.intermediate;
    auto pat = f.text("hybrid_override_pattern");
    if (!pat) return pat.forward_error();
    // The layer plan may come from layer_types, which wins over the pattern: a pattern of
    // another length must not be read past its end.
    if (!pat->empty() && pat->size() != m.num_layers.value)
        return field_error(code::inconsistent, f.path("hybrid_override_pattern"),
                           "has {} characters but the model has {} layers", pat->size(), m.num_layers.value);
    L.pattern = std::move(pat.value());
    return L;
}

bool is_moe_layer(const Layout& L, std::uint64_t i) {
    if (!L.experts) return false;
    if (!L.pattern.empty()) return L.pattern[i] == 'E';
    if (contains(L.mlp_only, i)) return false;
    if (L.moe_by_layer || !L.moe_list.empty()) return contains(L.moe_list, i);
    return i >= L.first_dense && i % L.moe_freq == 0 && (i + 1) % L.sparse_step == 0 &&
           (i + 1) % L.interleave_step == 0;
}

// MLP matrices of width `inter` (2 without a gate), plus biases.
N mlp_params(const Layout& L, std::uint64_t inter, bool bias) {
    std::uint64_t mats = L.gated ? 3 : 2;
    return N(mats) * L.hidden * inter + (bias ? N(mats - 1) * inter + L.hidden : N(0));
}

// One layer's blocks; an overflowed block marks the layer, and the estimate fails.
struct Blocks {
    std::vector<ParamBlock> list;
    bool overflow = false;
};

[[gnu::noinline]] void push(Blocks& b, const char* part, N params, Shard s = Shard::split, bool linear = true,
                            std::uint64_t kv_heads = 0) {
    if (!params.v) {
        b.overflow = true;
        return;
    }
    if (*params.v == 0) return;
    ParamBlock p;
    p.part = part;
    p.params = *params.v;
    p.shard = s;
    p.linear = linear;
    p.kv_heads = kv_heads;
    b.list.push_back(p);
}

// Standard attention of one layer with the group's geometry.
void attention_blocks(const Layout& L, const LayerGroup& g, bool k_eq_v, Blocks& b) {
    const std::uint64_t H = L.hidden, nq = L.query_heads, kv = g.kv_heads.value;
    const std::uint64_t kd = g.k_head_dim.value, vd = g.v_head_dim.value, qd = kd;
    push(b, "attention", N(H) * nq * qd * (L.attn_output_gate ? 2 : 1));
    push(b, "attention", N(H) * kv * kd, Shard::kv_heads, true, kv);
    if (!k_eq_v) push(b, "attention", N(H) * kv * vd, Shard::kv_heads, true, kv);
    push(b, "attention", N(nq) * vd * H);
    if (L.attn_bias || L.qkv_bias) {
        push(b, "attention", N(nq) * qd, Shard::split, false);
        push(b, "attention", N(kv) * (N(kd) + (k_eq_v ? 0 : vd)), Shard::kv_heads, false, kv);
    }
    if (L.attn_bias) push(b, "attention", H, Shard::replicated, false);
}

Result<bool> mla_blocks(const Layout& L, const Fields& f, Blocks& b) {
    const std::uint64_t H = L.hidden, nq = L.query_heads;
    auto nope = f.non_negative("qk_nope_head_dim");
    auto rope = f.non_negative("qk_rope_head_dim");
    auto vd = f.positive("v_head_dim");
    auto rank = f.positive("kv_lora_rank");
    auto qrank = optional_int(f, "q_lora_rank");
    for (auto* r : {&nope, &rope, &vd, &rank})
        if (!*r) return r->forward_error();
    if (!qrank) return qrank.forward_error();
    const N qk = N(nope->value) + rope->value;
    if (*qrank && **qrank > 0) {
        std::uint64_t ql = **qrank;
        push(b, "attention", N(H) * ql, Shard::replicated);  // q_a_proj
        push(b, "attention", ql, Shard::replicated, false);  // q_a_layernorm
        push(b, "attention", N(ql) * nq * qk);               // q_b_proj
    } else {
        push(b, "attention", N(H) * nq * qk);  // q_proj
    }
    push(b, "attention", N(H) * (N(rank->value) + rope->value), Shard::replicated);  // kv_a_proj_with_mqa
    push(b, "attention", rank->value, Shard::replicated, false);                     // kv_a_layernorm
    push(b, "attention", N(rank->value) * nq * (N(nope->value) + vd->value));        // kv_b_proj
    push(b, "attention", N(nq) * vd->value * H);                                     // o_proj
    return true;
}

Result<bool> mixer_blocks(const Layout& L, const Fields& f, const std::string& mixer, Blocks& b) {
    const std::uint64_t H = L.hidden;
    auto need = [&](const Fields& src, const char* n) { return src.positive(n); };
    if (mixer == "gated_delta_net") {
        auto k = need(f, "linear_conv_kernel_dim");
        auto nk = need(f, "linear_num_key_heads");
        auto dk = need(f, "linear_key_head_dim");
        auto nv = need(f, "linear_num_value_heads");
        auto dv = need(f, "linear_value_head_dim");
        for (auto* r : {&k, &nk, &dk, &nv, &dv})
            if (!*r) return r->forward_error();
        const N key = N(nk->value) * dk->value, value = N(nv->value) * dv->value;
        push(b, "mixer", N(H) * (N(2) * key + N(2) * value));                    // in_proj_qkvz
        push(b, "mixer", N(H) * 2 * nv->value);                                  // in_proj_ba
        push(b, "mixer", (N(2) * key + value) * k->value, Shard::split, false);  // conv1d
        push(b, "mixer", N(2) * nv->value, Shard::split, false);                 // dt_bias, A_log
        push(b, "mixer", dv->value, Shard::replicated, false);                   // gated norm
        push(b, "mixer", value * H);                                             // out_proj
    } else if (mixer == "mamba2") {
        auto k = need(f, "conv_kernel");
        auto heads = need(f, "mamba_num_heads");
        auto hd = need(f, "mamba_head_dim");
        auto groups = need(f, "n_groups");
        auto dstate = need(f, "ssm_state_size");
        for (auto* r : {&k, &heads, &hd, &groups, &dstate})
            if (!*r) return r->forward_error();
        auto conv_bias = f.flag("use_conv_bias", true);
        if (!conv_bias) return conv_bias.forward_error();
        const N inner = N(heads->value) * hd->value, bc = N(2) * groups->value * dstate->value;
        push(b, "mixer", N(H) * (N(2) * inner + bc + heads->value));  // in_proj
        push(b, "mixer", (inner + bc) * (N(k->value) + (*conv_bias ? 1 : 0)), Shard::split, false);  // conv1d
        push(b, "mixer", N(3) * heads->value, Shard::split, false);  // dt_bias, A_log, D
        push(b, "mixer", inner, Shard::split, false);                // gated norm
        push(b, "mixer", inner * H);                                 // out_proj
    } else if (mixer == "kda") {
        const json* cfg = f.find("linear_attn_config");
        Fields lf(*cfg, f.path("linear_attn_config"));
        auto k = need(lf, "short_conv_kernel_size");
        auto heads = need(lf, "num_heads");
        auto hd = need(lf, "head_dim");
        for (auto* r : {&k, &heads, &hd})
            if (!*r) return r->forward_error();
        const N width = N(heads->value) * hd->value;
        push(b, "mixer", N(3) * H * width);                              // q, k, v
        push(b, "mixer", N(3) * width * k->value, Shard::split, false);  // their short convs
        push(b, "mixer", N(2) * H * hd->value, Shard::replicated);       // f_a, g_a (low rank)
        push(b, "mixer", N(2) * hd->value * width);                      // f_b, g_b
        push(b, "mixer", N(H) * heads->value);                           // b_proj
        push(b, "mixer", width + heads->value, Shard::split, false);     // A_log, dt_bias
        push(b, "mixer", hd->value, Shard::replicated, false);           // o_norm
        push(b, "mixer", width * H);                                     // o_proj
    } else {
        return fail(code::invalid_value, f.path("layer_types"), "no weights model for the {} mixer", mixer);
    }
    return true;
}

void mlp_blocks(const Layout& L, std::uint64_t i, bool mlp_layer, Blocks& b) {
    if (!mlp_layer) return;
    if (is_moe_layer(L, i)) {
        push(b, "experts", N(L.experts) * mlp_params(L, L.expert_intermediate, false));
        push(b, "router", N(L.hidden) * L.experts, Shard::replicated, false);
        if (L.shared_intermediate) push(b, "shared_experts", mlp_params(L, L.shared_intermediate, false));
        if (L.shared_gate) push(b, "router", L.hidden, Shard::replicated, false);
        if (L.dense_beside_moe) push(b, "mlp", mlp_params(L, L.intermediate, L.mlp_bias));
        return;
    }
    const std::uint64_t inter = L.dense_intermediate;
    push(b, "mlp", mlp_params(L, inter, false));
    if (L.mlp_bias) push(b, "mlp", N(L.gated ? 2 : 1) * inter + L.hidden, Shard::split, false);
}

bool add_to(WeightParts& p, const ParamBlock& b) {
    const std::string_view part = b.part;
    std::uint64_t* slot = part == "attention"        ? &p.attention
                          : part == "mixer"          ? &p.mixer
                          : part == "mlp"            ? &p.mlp
                          : part == "experts"        ? &p.experts
                          : part == "shared_experts" ? &p.shared_experts
                          : part == "router"         ? &p.router
                                                     : &p.norms;
    auto sum = add(*slot, b.params);
    if (sum) *slot = *sum;
    return sum.has_value();
}

// Bytes of `params` elements: quantized linear weights at the dtype's bits fraction, the
// rest at other_bits, rounded up to a whole byte. Split into whole scale groups and a rest
// so that fractions like (8 x 128 x 128 + 32) / (128 x 128) cannot overflow.
opt_u64 element_bytes(std::uint64_t params, bool quantized, const WeightDtype& d) {
    if (!quantized) {
        auto bits = mul(params, d.other_bits);
        return bits ? opt_u64(cdiv(*bits, 8)) : std::nullopt;
    }
    const std::uint64_t per = d.linear_bits_den * 8;  // elements whose bits are a whole number of bytes
    return add(mul(params / per, d.linear_bits_num), cdiv(params % per * d.linear_bits_num, per));
}

bool quantized(const ParamBlock& b, const WeightDtype& d) {
    return b.linear && (d.attention_quantized || std::string_view(b.part) != "attention");
}

std::uint64_t params_on_rank(const ParamBlock& b, std::uint64_t tp) {
    switch (b.shard) {
        case Shard::split:
            return cdiv(b.params, tp);
        case Shard::kv_heads:
            return b.kv_heads <= tp ? b.params / b.kv_heads : cdiv(b.params, tp);
        case Shard::replicated:
            return b.params;
    }
    return b.params;
}

// A quant_method and its fields, as the bits of one quantized element.
Result<bool> read_quantization(const Fields& q, WeightDtype& d) {
    auto method = q.text("quant_method");
    if (!method) return method.forward_error();
    std::string src = format("{} {}", q.path("quant_method"), *method);
    if (*method == "fp8") {
        d.name = "fp8";
        d.linear_bits_num = 8;
        d.linear_bits_den = 1;
        const json* blk = q.find("weight_block_size");
        if (blk && blk->is_array() && blk->size() == 2) {
            auto a = checked_integer((*blk)[0], q.path("weight_block_size[0]"), false);
            auto b = checked_integer((*blk)[1], q.path("weight_block_size[1]"), false);
            if (!a) return a.forward_error();
            if (!b) return b.forward_error();
            auto area = mul(*a, *b);
            auto num = add(mul(area, 8), 32);
            if (!area || !num || *area > 1048576)
                return q.error(code::invalid_value, "weight_block_size", "blocks are too large");
            d.linear_bits_num = *num;  // one fp32 scale per block
            d.linear_bits_den = *area;
            format_to(src, ", one fp32 scale per {} x {} block", *a, *b);
        }
    } else if (*method == "mxfp4") {
        d.name = "mxfp4";
        d.linear_bits_num = 17;  // 32 4-bit values and one 8-bit scale: 136 bits per 32
        d.linear_bits_den = 4;
        src += " (4-bit values, one 8-bit scale per 32)";
    } else if (*method == "gptq" || *method == "awq" || *method == "awq_marlin" || *method == "gptq_marlin") {
        auto bits = q.positive("bits");
        if (!bits) bits = q.positive("w_bit");
        if (!bits) return bits.forward_error();
        if (bits->value > 16)
            return field_error(code::invalid_value, bits->source,
                               "{} bits per weight is beyond any quantization scheme (at most 16)",
                               bits->value);
        std::uint64_t group = 0;
        for (const char* n : {"group_size", "q_group_size"}) {
            const json* g = q.find(n);
            if (g && g->is_number_unsigned()) group = g->get<std::uint64_t>();
        }
        d.name = format("int{}", bits->value);
        d.linear_bits_num = bits->value;
        d.linear_bits_den = 1;
        if (group > 0 && group <= 1048576) {
            d.linear_bits_num = bits->value * group + 16 + bits->value;  // fp16 scale + packed zero per group
            d.linear_bits_den = group;
            format_to(src, ", {}-bit, group {}", bits->value, group);
        }
    } else if (*method == "bitsandbytes") {
        auto four = q.flag("load_in_4bit", false);
        auto eight = q.flag("load_in_8bit", false);
        if (!four) return four.forward_error();
        if (!eight) return eight.forward_error();
        d.name = *four ? "int4" : *eight ? "int8" : "bf16";
        d.linear_bits_num = *four ? 4 : *eight ? 8 : 16;
        d.linear_bits_den = 1;
    } else {
        return false;  // not understood: the caller warns and keeps 16-bit
    }
    const json* skip = q.find("modules_to_not_convert");
    if (!skip) skip = q.find("ignore");
    if (!skip) skip = q.find("ignored_layers");
    if (skip && skip->is_array())
        for (const auto& s : *skip)
            if (s.is_string() && s.get<std::string>().find("attn") != std::string::npos) {
                d.attention_quantized = false;
                format_to(src, "; attention kept 16-bit ({})", q.path("modules_to_not_convert"));
                break;
            }
    d.source = format("{}; embeddings, lm_head, norms and routers stay 16-bit", src);
    return true;
}

}  // namespace

Result<WeightDtype> resolve_weight_dtype(const std::string& req, const ModelSpec& m) {
    WeightDtype d;
    std::string sixteen =
        m.model_dtype_bits == 16 && !m.dtype.empty()
            ? (m.dtype == "float16" || m.dtype == "fp16" || m.dtype == "half" ? "fp16" : "bf16")
            : "bf16";
    if (req.empty() || req == "auto") {
        Fields f(*m.text, m.text_path), top(m.root(), "");
        for (const Fields* src : {&f, &top}) {
            const json* q = src->find("quantization_config");
            if (!q || !q->is_object()) continue;
            auto ok = read_quantization(Fields(*q, src->path("quantization_config")), d);
            if (!ok) return ok.forward_error();
            if (*ok) return d;
            break;
        }
        d.name = sixteen;
        d.source = m.dtype.empty() ? "auto: no dtype in the config, served 16-bit"
                   : m.model_dtype_bits == 32
                       ? format("auto: {} {} served in 16-bit", m.dtype_source, m.dtype)
                       : format("auto: {} {}", m.dtype_source, m.dtype);
        return d;
    }
    d.source = format("weight_dtype {}", req);
    struct Known {
        const char* name;
        const char* shown;
        std::uint64_t num, den, other;
    };
    static const Known known[] = {
        {"bf16", "bf16", 16, 1, 16},    {"bfloat16", "bf16", 16, 1, 16}, {"fp16", "fp16", 16, 1, 16},
        {"float16", "fp16", 16, 1, 16}, {"fp32", "fp32", 32, 1, 32},     {"float32", "fp32", 32, 1, 32},
        {"fp8", "fp8", 8, 1, 16},       {"fp8_e4m3", "fp8", 8, 1, 16},   {"int8", "int8", 8, 1, 16},
        {"int4", "int4", 4, 1, 16},     {"mxfp4", "mxfp4", 17, 4, 16},   {"nvfp4", "nvfp4", 9, 2, 16},
    };
    for (const auto& k : known)
        if (req == k.name) {
            d.name = k.shown;
            d.linear_bits_num = k.num;
            d.linear_bits_den = k.den;
            d.other_bits = k.other;
            if (k.other != k.num || k.den != 1)
                d.source +=
                    " for the decoder layers' linear weights; embeddings, lm_head, norms and routers stay "
                    "16-bit";
            return d;
        }
    return field_error(code::bad_option, "weight_dtype",
                       "unknown \"{}\" (expected auto, bf16, fp16, fp32, fp8, int8, int4, mxfp4, nvfp4)",
                       req);
}

Result<std::uint64_t> block_bytes(const ParamBlock& b, const WeightDtype& d, std::uint64_t tp) {
    auto bytes = element_bytes(params_on_rank(b, tp), quantized(b, d), d);
    if (!bytes) return overflow_error();
    return *bytes;
}

Result<WeightEstimate> estimate_weights(const ModelSpec& m, const std::string& weight_dtype) {
    Fields f(*m.text, m.text_path), top(m.root(), "");
    // LongCat-Flash: two MLA attentions, two MLPs and a MoE with zero experts in every layer
    // (longcat_flash.py FlashDecoderLayer), which this estimate does not read.
    // Encoder-decoders (Whisper, FireRedLID, Cohere ASR, Nemotron Parse): an audio or vision encoder and a
    // decoder with cross-attention, which this estimate does not read.
    if (encoder_decoder(m.family))
        return fail(code::unsupported, "architectures",
                    "no weights model for an encoder-decoder ({}: an encoder beside a decoder with "
                    "cross-attention)",
                    m.family);
    // Voxtral Realtime: its causal Whisper encoder and audio-language adapter (audio_config) are not read.
    if (m.family == "voxtral_realtime")
        return fail(code::unsupported, "architectures",
                    "no weights model for Voxtral Realtime (its causal Whisper encoder and audio-language "
                    "adapter, in audio_config, are not read)");
    if (m.family == "longcat_flash")
        return fail(
            code::unsupported, "architectures",
            "no weights model for LongCat-Flash (two attentions and two MLPs beside a MoE in every layer)");
    // Layers with two mixers (Falcon-H1's attention and Mamba-2 side by side, Zamba2's shared
    // attention blocks): not modelled here.
    // IQuest-LoopCoder's second caches are its later loops' sliding attention, on the same weights (below).
    if (!m.layer_second_group.empty() && m.family != "iquest_loopcoder")
        return fail(code::unsupported, "architectures",
                    "no weights model for layers that keep attention and a Mamba-2 mixer together");
    // HRM-Text's attention projects a gate beside Q, K and V (hrm_text.py HrmTextAttention.gqkv_proj) and its
    // norms carry no weight: not read.
    if (m.family == "hrm_text")
        return fail(code::unsupported, "architectures",
                    "no weights model for HRM-Text (its gated gqkv_proj and weightless norms are not read)");
    // Unlimited-OCR: its DeepEncoder vision tower (SAM-ViT-B + CLIP-L, unlimited_ocr.py) is not read.
    if (m.family == "unlimited_ocr")
        return fail(code::unsupported, "architectures",
                    "no weights model for Unlimited-OCR (its DeepEncoder vision tower, SAM-ViT-B and CLIP-L, "
                    "is not read)");
    // openPangu's sink attention (k_layernorm, sink keys and values) and its MLA variants (sandwich norms,
    // mHC streams: openpangu.py OpenPanguDecoderLayer) are not read: only its plain attention is estimated.
    if (m.family == "openpangu")
        for (const auto& g : m.groups)
            if (g.kind == LayerKind::mla || g.name == "sink_attention")
                return fail(
                    code::unsupported, "architectures",
                    "no weights model for openPangu's {} layers (sandwich norms, mHC streams and sink "
                    "parameters are not read)",
                    g.kind == LayerKind::mla ? "MLA" : "sink-attention");
    // PLaMo2's Mamba mixer has its own projections (plamo2.py Plamo2MambaMixer: bcdt_proj, dt_proj, norms).
    if (m.family == "plamo2")
        return fail(code::unsupported, "architectures", "no weights model for PLaMo2's Mamba mixer");
    // Moondream3: tau attention parameters, biased LayerNorms and projections, MoE from moe.start_layer
    // (moondream3.py Moondream3Attention, Moondream3TextMoE): not read by this estimate.
    if (m.family == "moondream3")
        return fail(
            code::unsupported, "architectures",
            "no weights model for Moondream3 (tau attention parameters, its MoE from moe.start_layer)");
    // PLaMo3: four norms a layer, q/k norms, and tie_word_embeddings defaulting to true in the remote
    // Plamo3Config (plamo3.py Plamo3DecoderLayer, Plamo3ForCausalLM): not read by this estimate.
    if (m.family == "plamo3")
        return fail(
            code::unsupported, "architectures",
            "no weights model for PLaMo3 (its remote config's tie_word_embeddings default and four norms "
            "a layer are not read)");
    // Step-3.5's experts (moe_num_experts on the moe_layers_enum layers, step3p5.py FusedMoEBlock) and its
    // layers of another query-head count (attention_other_setting) are not read by this estimate.
    if (m.family == "step3p5")
        return fail(
            code::unsupported, "architectures",
            "no weights model for Step-3.5 (moe_num_experts on moe_layers_enum layers, per-layer heads)");
    auto layout = read_layout(m, f, top);
    if (!layout) return layout.forward_error();
    const Layout& L = *layout;
    auto dtype = resolve_weight_dtype(weight_dtype, m);
    if (!dtype) return dtype.forward_error();

    WeightEstimate w;
    w.dtype = std::move(dtype.value());
    if (weight_dtype.empty() || weight_dtype == "auto") {
        for (const Fields* src : {&f, &top}) {
            const json* q = src->find("quantization_config");
            if (!q || !q->is_object()) continue;
            auto method = Fields(*q, src->path("quantization_config")).text("quant_method");
            if (w.dtype.source.rfind("auto:", 0) == 0 && method && !method->empty())
                w.warnings.push_back(
                    {src->path("quantization_config.quant_method"),
                     format("quant_method \"{}\" is not modelled: weights are sized at 16 bits", *method)});
            break;
        }
    }

    // Tied embeddings: the text config's field, the root's, else the config class's default.
    for (const Fields* src : {&f, &top}) {
        if (!src->find("tie_word_embeddings")) continue;
        auto t = src->flag("tie_word_embeddings", true);
        if (!t) return t.forward_error();
        w.tied_embeddings = *t;
        w.tied_source = format("{} {}", src->path("tie_word_embeddings"), *t ? "true" : "false");
        break;
    }
    if (w.tied_source.empty()) {
        auto type = f.text("model_type");
        if (!type) return type.forward_error();
        w.tied_embeddings = !untied_by_default(*type);
        w.tied_source = w.tied_embeddings
                            ? "no tie_word_embeddings: transformers' default true"
                            : format("no tie_word_embeddings: the {} config's default false", *type);
    }

    // Embeddings, learned positions, per-layer input embeddings (Gemma 3n / 4).
    const std::uint64_t H = L.hidden, layers = m.num_layers.value;
    opt_u64 embed = mul(L.vocab, H);
    bool rope = f.first_of({"rope_theta", "rope_scaling", "rope_parameters", "rotary_dim", "rotary_pct",
                            "rotary_emb_base"}) != nullptr;
    auto positions = optional_int(f, "n_positions");
    if (!positions) return positions.forward_error();
    opt_u64 pos = *positions && !rope ? mul(**positions, H) : opt_u64(0);
    auto per_layer_width = optional_int(f, "hidden_size_per_layer_input");
    auto per_layer_vocab = optional_int(f, "vocab_size_per_layer_input");
    if (!per_layer_width) return per_layer_width.forward_error();
    if (!per_layer_vocab) return per_layer_vocab.forward_error();
    if (*per_layer_width && **per_layer_width > 0)
        embed = add(embed, mul(mul(per_layer_vocab->value_or(L.vocab), **per_layer_width), layers));
    if (!embed || !pos) return overflow_error();
    w.parts.embedding = *embed;
    w.parts.position_embedding = *pos;
    auto head_params = mul(L.vocab, H);
    if (!head_params) return overflow_error();
    w.parts.lm_head = w.tied_embeddings ? 0 : *head_params;

    // Decoder layers.
    const LayerGroup* default_attention = nullptr;
    for (const auto& g : m.groups)
        if (g.kind == LayerKind::full_attention || g.kind == LayerKind::sliding_window ||
            g.kind == LayerKind::chunked_local) {
            default_attention = &g;
            break;
        }
    const bool pattern = !L.pattern.empty();
    w.layers.reserve(layers);
    // A layer's attention or mixer blocks depend on its group only: built once per group
    // (DeepSeek-V3 has 61 MLA layers and one group), then copied for each of its layers.
    std::vector<std::optional<Blocks>> by_group(m.groups.size());
    for (std::uint64_t i = 0; i < layers; ++i) {
        const std::size_t gi = m.layer_group[i];
        const LayerGroup& g = m.groups[gi];
        if (!by_group[gi]) {
            Blocks first;
            switch (g.kind) {
                case LayerKind::mla: {
                    auto ok = mla_blocks(L, f, first);
                    if (!ok) return ok.forward_error();
                    break;
                }
                case LayerKind::full_attention: {
                    // MiniCPM3 caches full keys and values but projects them as MLA does.
                    if (m.family == "minicpm3") {
                        auto ok = mla_blocks(L, f, first);
                        if (!ok) return ok.forward_error();
                        break;
                    }
                    attention_blocks(L, g, m.k_eq_v, first);  // no v_proj with k_eq_v
                    break;
                }
                case LayerKind::sliding_window:
                case LayerKind::chunked_local:
                    attention_blocks(L, g, false, first);
                    break;
                case LayerKind::linear_state: {
                    auto ok = mixer_blocks(L, f, g.state.mixer, first);
                    if (!ok) return ok.forward_error();
                    break;
                }
                case LayerKind::no_cache:
                    // A pattern's MLP-only block, or a layer reusing another layer's KV (its
                    // projections still exist).
                    if (!pattern && default_attention) attention_blocks(L, *default_attention, false, first);
                    break;
            }
            by_group[gi] = std::move(first);
        }
        Blocks b = *by_group[gi];
        b.list.reserve(b.list.size() + 8);
        bool mlp_layer = true;
        if (pattern) mlp_layer = L.pattern[i] == '-' || L.pattern[i] == 'E';
        mlp_blocks(L, i, mlp_layer, b);
        // A looped model's layer has its weights once, whatever its loop steps: Ouro's layer has two more
        // norms (ouro.py OuroDecoderLayer input_layernorm_2, post_attention_layernorm_2), IQuest's a gate
        // projection (iquest_loopcoder.py LoopGateProjection: ColumnParallelLinear(head_dim, heads, bias)).
        std::uint64_t norms = pattern ? 1 : m.family == "ouro" ? 4 : 2;
        push(b, "norms", N(norms) * L.norm_elems * H, Shard::replicated, false);
        if (m.family == "iquest_loopcoder") {
            push(b, "attention", N(g.k_head_dim.value) * m.query_heads.value);
            push(b, "attention", m.query_heads.value, Shard::split, false);
        }
        if (m.family == "ouro" &&
            i + 1 == layers) {  // OuroModel.early_exit_gate: RowParallelLinear(H, 1, bias)
            push(b, "router", H, Shard::split, false);
            push(b, "router", 1, Shard::replicated, false);
        }
        if (b.overflow) return overflow_error();
        for (const auto& blk : b.list)
            if (!add_to(w.parts, blk)) return overflow_error();
        w.layers.push_back(std::move(b.list));
    }
    const std::uint64_t final_norm = L.norm_elems * H;
    w.parts.norms += final_norm;

    const WeightParts& p = w.parts;
    opt_u64 total = 0;
    for (std::uint64_t v : {p.embedding, p.position_embedding, p.lm_head, p.attention, p.mixer, p.mlp,
                            p.experts, p.shared_experts, p.router, p.norms})
        total = add(total, v);
    if (!total) return overflow_error();
    w.param_count = *total;

    // Bytes: the embeddings and head are never quantized.
    const WeightDtype& d = w.dtype;
    auto emb = element_bytes(p.embedding + p.position_embedding, false, d);
    auto head = element_bytes(p.lm_head, false, d);
    auto norm = element_bytes(final_norm, false, d);
    opt_u64 body = 0;
    for (const auto& b : w.layers)
        for (const auto& blk : b)
            body = add(body, element_bytes(blk.params, quantized(blk, d), d));
    auto all = add(add(add(emb, head), norm), body);
    if (!emb || !head || !norm || !body || !all) return overflow_error();
    w.embedding_bytes = *emb;
    w.head_bytes = *head;
    w.final_norm_bytes = *norm;
    w.weight_bytes = *all;

    // What the count leaves out.
    for (const auto& member : m.root().items()) {
        const std::string& k = member.key();
        bool tower = false;
        for (const char* t : {"vision", "visual", "audio", "speech", "image", "video"})
            tower |= k.find(t) != std::string::npos && member.value().is_object();
        if (tower) w.excluded.push_back(format("{} (a multimodal tower, not counted)", k));
    }
    if (m.family == "diffusion_gemma")  // diffusion_gemma.py DiffusionGemmaSelfConditioning: gate, up, down
        w.excluded.push_back(
            "the self-conditioning MLP (3 x hidden_size x self_conditioning_size, else intermediate_size; "
            "not counted)");
    for (const char* mtp : {"num_nextn_predict_layers", "mtp_num_hidden_layers"}) {
        auto n = optional_int(f, mtp);
        if (n && *n && **n > 0)
            w.excluded.push_back(
                format("{} multi-token-prediction layer(s) ({}, not counted)", **n, f.path(mtp)));
    }
    return w;
}

Result<std::uint64_t> weight_bytes_per_gpu(const WeightEstimate& w, const std::vector<StageFigures>& stages,
                                           std::uint64_t tp) {
    if (tp == 0) return fail(code::bad_option, "tp", "tp: must be at least 1");
    const WeightDtype& d = w.dtype;
    // The embedding and head are vocab-parallel (split by tp); with pipeline stages a tied
    // head is a copy of the embedding on the last stage.
    auto split_bytes = [&](std::uint64_t bytes) { return cdiv(bytes, tp); };
    std::uint64_t head = w.head_bytes;
    if (w.tied_embeddings && stages.size() > 1) head += w.embedding_bytes;
    std::uint64_t busiest = 0;
    std::vector<StageFigures> one;
    if (stages.empty()) {
        StageFigures s;
        s.first_layer = 0;
        s.layers = static_cast<std::uint32_t>(w.layers.size());
        one.push_back(s);
    }
    const std::vector<StageFigures>& st = stages.empty() ? one : stages;
    for (std::size_t s = 0; s < st.size(); ++s) {
        opt_u64 bytes = 0;
        for (std::uint32_t l = st[s].first_layer; l < st[s].first_layer + st[s].layers && l < w.layers.size();
             ++l)
            for (const auto& blk : w.layers[l]) {
                auto b = block_bytes(blk, d, tp);
                if (!b) return b.forward_error();
                bytes = add(bytes, *b);
            }
        if (s == 0) bytes = add(bytes, split_bytes(w.embedding_bytes));
        if (s + 1 == st.size()) bytes = add(add(bytes, split_bytes(head)), w.final_norm_bytes);
        if (!bytes) return overflow_error();
        busiest = std::max(busiest, *bytes);
    }
    return busiest;
}

std::string format_param_count(std::uint64_t params) {
    static const std::uint64_t sizes[] = {1000000000000ull, 1000000000ull, 1000000ull, 1000ull};
    static const char* suffixes[] = {"T", "B", "M", "K"};
    for (std::size_t i = 0; i < 4; ++i) {
        if (params < sizes[i]) continue;
        const std::uint64_t size = sizes[i];
        std::uint64_t whole = params / size;
        std::uint64_t hundredths = (params % size * 100 + size / 2) / size;  // rounded half up
        if (hundredths >= 100) {
            whole += 1;
            hundredths -= 100;
        }
        if (whole == 1000 && i > 0) return format("1{}", suffixes[i - 1]);  // 999.995M is 1B
        if (!hundredths) return format("{}{}", whole, suffixes[i]);
        // Two decimals, a trailing zero dropped: 1.05, 1.5.
        if (hundredths % 10 == 0) return format("{}.{}{}", whole, hundredths / 10, suffixes[i]);
        return format(hundredths < 10 ? "{}.0{}{}" : "{}.{}{}", whole, hundredths, suffixes[i]);
    }
    return format("{}", params);
}

}  // namespace kvcalc
