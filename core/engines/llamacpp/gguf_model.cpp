#include "engines/llamacpp/gguf_model.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "config/json.hpp"
#include "engines/llamacpp/llamacpp_model.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

// The most layers kvcalc reads from a block_count (ModelSpec::max_layers).
constexpr std::uint64_t max_blocks = ModelSpec::max_layers;

// The metadata of one architecture: "{arch}.key" by its short name, each value read as llama.cpp's
// loader reads it (get_key_or_arr: a scalar, or an array of block_count values).
class Metadata {
public:
    Metadata(const json& meta, std::string arch) : meta_(meta), arch_(std::move(arch)) {}

    std::string key(const char* name) const { return arch_ + "." + name; }
    const json* find(const char* name) const {
        const json* v = member(meta_, key(name));
        return v && !v->is_null() ? v : nullptr;
    }

    // A whole number, or an error naming the key.
    Result<std::uint64_t> number(const json& v, const std::string& at) const {
        if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
            const std::uint64_t n = v.get<std::uint64_t>();
            if (n > 0xffffffffu) return fail(code::invalid_value, at, "{}: {} is beyond any model's", at, n);
            return n;
        }
        return fail(code::invalid_value, at, "{}: must be a whole number, got {}", at, described(v));
    }
    Result<Sourced> required(const char* name) const {
        const json* v = find(name);
        if (!v)
            return fail(code::missing_field, key(name), "{}: missing, which llama.cpp's loader requires",
                        key(name));
        auto n = number(*v, key(name));
        if (!n) return n.forward_error();
        return Sourced{*n, key(name)};
    }
    // The value, or `fallback` when the key is absent.
    Result<Sourced> optional(const char* name, Sourced fallback) const {
        const json* v = find(name);
        if (!v) return fallback;
        auto n = number(*v, key(name));
        if (!n) return n.forward_error();
        return Sourced{*n, key(name)};
    }
    // A scalar for every layer, or one value a layer (llama-model-loader.cpp get_key_or_arr: an array's
    // length must be block_count); `fallback` for every layer when absent.
    Result<std::vector<Sourced>> per_layer(const char* name, std::uint64_t layers,
                                           const std::vector<Sourced>& fallback) const {
        const json* v = find(name);
        if (!v) return fallback;
        const std::string at = key(name);
        if (v->is_object() && v->contains("gguf_array"))
            return fail(code::unsupported, at, "{}: an array the GGUF reader left unread (over 4096 values)",
                        at);
        if (!v->is_array()) {
            auto n = number(*v, at);
            if (!n) return n.forward_error();
            return std::vector<Sourced>(layers, Sourced{*n, at});
        }
        if (v->size() != layers)
            return fail(code::inconsistent, at, "{}: {} values, but block_count is {} (llama.cpp refuses it)",
                        at, v->size(), layers);
        std::vector<Sourced> out;
        for (std::size_t i = 0; i < v->size(); ++i) {
            auto n = number((*v)[i], format("{}[{}]", at, i));
            if (!n) return n.forward_error();
            out.push_back({*n, format("{}[{}]", at, i)});
        }
        return out;
    }

private:
    const json& meta_;
    std::string arch_;
};

// One layer as llama.cpp allocates for it.
struct Layer {
    LayerKind kind = LayerKind::no_cache;
    std::string name;
    Sourced heads, k, v, window, latent, latent_v, mla_k, mla_v;
    bool state = false;  // a recurrent state besides (Falcon-H1) or instead of attention
};

}  // namespace

bool is_gguf_document(const json& root) {
    return root.is_object() && root.contains("gguf");
}

Result<ModelSpec> read_gguf_model(std::shared_ptr<const json> document) {
    const json* gguf = member(*document, "gguf");
    const json* meta = gguf ? member(*gguf, "metadata") : nullptr;
    if (!meta || !meta->is_object())
        return fail(code::invalid_value, "gguf.metadata", "gguf.metadata: missing or not an object");
    const json& doc = *gguf;
    const json* arch_v = member(*meta, "general.architecture");
    if (!arch_v) return fail(code::missing_field, "general.architecture", "general.architecture: missing");
    if (!arch_v->is_string())
        return fail(code::invalid_value, "general.architecture",
                    "general.architecture: must be a string, got {}", described(*arch_v));
    const std::string arch_name = arch_v->get<std::string>();
    const LlamacppArch* arch = find_llamacpp_arch(arch_name);
    if (!arch)
        return fail(
            code::unsupported, "general.architecture",
            "general.architecture \"{}\": kvcalc has no llama.cpp rule for this architecture (its layers, "
            "sliding windows and states), so it does not size it",
            std::string_view(arch_name).substr(0, 60));
    const Metadata md(*meta, arch_name);

    ModelSpec m;
    m.model_type = arch_name;
    m.llamacpp_arch = arch_name;
    m.llamacpp_arch_source = "general.architecture";
    m.config = std::move(document);  // doc stays alive: m.config owns it now
    m.text = &doc;
    const json* name = member(*meta, "general.name");
    m.name = name && name->is_string() ? name->get<std::string>() : arch_name;
    m.name_source = name && name->is_string() ? "general.name" : "general.architecture";

    auto blocks = md.required("block_count");
    if (!blocks) return blocks.forward_error();
    if (blocks->value == 0 || blocks->value > max_blocks)
        return fail(code::invalid_value, blocks->source, "{}: must be from 1 to {}, got {}", blocks->source,
                    max_blocks, blocks->value);
    const std::uint64_t n = blocks->value;
    m.num_layers = *blocks;
    auto ctx = md.required("context_length");
    if (!ctx) return ctx.forward_error();
    m.max_context = *ctx;
    auto embd = md.optional("embedding_length", Sourced{});
    if (!embd) return embd.forward_error();
    m.hidden_size = *embd;

    // Heads: head_count (0: no attention), head_count_kv (default head_count), a scalar or one a layer
    // (src/llama-model.cpp:1184-1192).
    auto heads = md.per_layer("attention.head_count", n,
                              std::vector<Sourced>(n, Sourced{0, md.key("attention.head_count")}));
    if (!heads) return heads.forward_error();
    auto kv = md.per_layer("attention.head_count_kv", n, *heads);
    if (!kv) return kv.forward_error();
    for (const Sourced& h : *heads)
        if (h.value > m.query_heads.value) m.query_heads = h;
    // Head sizes: key_length, else n_embd / n_head(0); the SWA layers' key_length_swa, else the full
    // layers' (src/llama-model.cpp:1224-1253). V likewise.
    auto head_default = [&]() -> Result<Sourced> {
        const Sourced& h0 = (*heads)[0];
        if (!embd->value || !h0.value || embd->value % h0.value != 0)
            return fail(code::missing_field, md.key("attention.key_length"),
                        "{}: missing, and {} / {} does not give it", md.key("attention.key_length"),
                        md.key("embedding_length"), h0.source);
        return Sourced{embd->value / h0.value,
                       format("{} {} / {} {}", embd->source, embd->value, h0.source, h0.value)};
    };
    const bool has_attention =
        std::any_of(kv->begin(), kv->end(), [](const Sourced& s) { return s.value > 0; });
    Sourced hk, hv, hk_swa, hv_swa;
    if (has_attention) {
        Result<Sourced> d = md.find("attention.key_length") && md.find("attention.value_length")
                                ? Result<Sourced>(Sourced{})
                                : head_default();
        if (!d) return d.forward_error();
        auto k = md.optional("attention.key_length", *d);
        auto v = md.optional("attention.value_length", *d);
        if (!k || !v) return k ? v.forward_error() : k.forward_error();
        auto ks = md.optional("attention.key_length_swa", *k);
        auto vs = md.optional("attention.value_length_swa", *v);
        if (!ks || !vs) return ks ? vs.forward_error() : ks.forward_error();
        hk = *k, hv = *v, hk_swa = *ks, hv_swa = *vs;
    }
    // MLA: key_length_mla and value_length_mla both set (src/llama-hparams.cpp:251-256); K is the latent.
    const bool mla =
        arch->mla && md.find("attention.key_length_mla") && md.find("attention.value_length_mla");
    Sourced mla_k, mla_v;
    if (mla) {
        auto a = md.required("attention.key_length_mla");
        auto b = md.required("attention.value_length_mla");
        if (!a || !b) return a ? b.forward_error() : a.forward_error();
        mla_k = *a, mla_v = *b;
    }

    // Which layers allocate (LLAMACPP.md 1.5): Gemma 3n's first 20, Gemma 4's all but shared_kv_layers, and
    // the NextN blocks some architectures' main context leaves out.
    std::uint64_t kv_layers = n;
    if (arch->kv_layers) kv_layers = std::min<std::uint64_t>(n, arch->kv_layers);
    if (arch->shared_kv_key) {
        auto shared = md.optional("attention.shared_kv_layers", Sourced{0, ""});
        if (!shared) return shared.forward_error();
        if (shared->value >= n)
            return fail(code::invalid_value, shared->source, "{}: {} of {} layers", shared->source,
                        shared->value, n);
        kv_layers = n - shared->value;
    }
    auto nextn = md.optional("nextn_predict_layers", Sourced{0, ""});
    if (!nextn) return nextn.forward_error();
    if (nextn->value) {
        if (!arch->nextn_filtered)
            return fail(
                code::unsupported, nextn->source,
                "{} {}: whether llama.cpp's {} allocates KV for its NextN blocks is not settled (LLAMACPP.md "
                "1.5), so kvcalc does not size it",
                nextn->source, nextn->value, arch_name);
        if (nextn->value >= n)
            return fail(code::invalid_value, nextn->source, "{}: {} of {} layers", nextn->source,
                        nextn->value, n);
        kv_layers = std::min(kv_layers, n - nextn->value);
    }

    // Sliding-window layers (LLAMACPP.md 1.6): the window, and the layer set by the architecture's rule; a
    // period architecture takes a scalar sliding_window_pattern (an array is ignored, llama-model-loader.cpp
    // :498-518), a bool-array one one bool a layer.
    Sourced window;
    std::vector<bool> swa(n, false);
    if (arch->swa != SwaRule::none && arch->swa != SwaRule::disabled) {
        auto w = md.optional("attention.sliding_window",
                             Sourced{arch->default_window, format("llama.cpp's {} default n_swa {}",
                                                                  arch_name, arch->default_window)});
        if (!w) return w.forward_error();
        window = *w;
        if (arch->chunked)
            window = {arch->default_window,
                      format("llama.cpp's {} chunk n_swa {}", arch_name, arch->default_window)};
        const json* pattern = md.find("attention.sliding_window_pattern");
        if (arch->swa == SwaRule::layer_bools) {
            const std::string at = md.key("attention.sliding_window_pattern");
            if (!pattern || !pattern->is_array() || pattern->size() != n)
                return fail(pattern ? code::invalid_value : code::missing_field, at,
                            "{}: {} ({} keeps one bool a layer)", at,
                            pattern ? format("must be {} bools, got {}", n, described(*pattern))
                                    : std::string("missing"),
                            arch_name);
            for (std::size_t i = 0; i < n; ++i) {
                if (!(*pattern)[i].is_boolean())
                    return fail(code::invalid_value, format("{}[{}]", at, i), "{}[{}]: must be true or false",
                                at, i);
                swa[i] = (*pattern)[i].get<bool>() && window.value;
            }
        } else {
            std::uint64_t period = arch->swa_period;
            if (pattern && !pattern->is_array()) {
                auto p = md.number(*pattern, md.key("attention.sliding_window_pattern"));
                if (!p) return p.forward_error();
                period = *p;
            }
            for (std::uint32_t i = 0; i < n; ++i)
                swa[i] = window.value && llamacpp_swa_layer(arch->swa, static_cast<std::uint32_t>(period), i);
        }
    }

    // Recurrent layers (LLAMACPP.md 1.7) and their state.
    std::vector<Sourced> ff(n, Sourced{});
    if (arch->recurrent == RecurrentRule::kv_and_ff_zero) {
        auto f = md.per_layer("feed_forward_length", n,
                              std::vector<Sourced>(n, Sourced{0, md.key("feed_forward_length")}));
        if (!f) return f.forward_error();
        ff = *f;
    }
    Sourced interval;
    if (arch->recurrent == RecurrentRule::attention_interval) {
        auto i = md.required("full_attention_interval");
        if (!i) return i.forward_error();
        if (!i->value) return fail(code::invalid_value, i->source, "{}: must be at least 1", i->source);
        interval = *i;
    }
    auto recurrent_layer = [&](std::uint32_t il) {
        switch (arch->recurrent) {
            case RecurrentRule::kv_heads_zero:
                return (*kv)[il].value == 0;
            case RecurrentRule::kv_and_ff_zero:
                return (*kv)[il].value == 0 && ff[il].value == 0;
            case RecurrentRule::attention_interval:
                return (il + 1) % interval.value != 0;
            case RecurrentRule::every_layer:
            case RecurrentRule::all:
                return true;
            case RecurrentRule::none:
                break;
        }
        return false;
    };
    StateShape state;
    if (arch->state == StateRule::ssm) {
        // n_embd_r = (ssm.conv_kernel - 1) x (ssm.inner_size + 2 x ssm.group_count x ssm.state_size),
        // n_embd_s = ssm.state_size x ssm.inner_size (src/llama-hparams.cpp:183-229).
        auto conv = md.required("ssm.conv_kernel");
        auto inner = md.required("ssm.inner_size");
        auto st = md.required("ssm.state_size");
        auto groups = md.optional("ssm.group_count", Sourced{0, md.key("ssm.group_count")});
        for (auto* r : {&conv, &inner, &st, &groups})
            if (!*r) return r->forward_error();
        if (!conv->value)
            return fail(code::invalid_value, conv->source, "{}: must be at least 1", conv->source);
        state.mixer = arch_name == "qwen3next" || arch_name == "qwen35" || arch_name == "qwen35moe"
                          ? "gated_delta_net"
                      : groups->value ? "mamba2"
                                      : "mamba1";
        state.conv_rows = conv->value - 1;
        state.conv_channels = inner->value + 2 * groups->value * st->value;  // each below 2^32
        state.ssm_heads = inner->value;
        state.ssm_head_elements = st->value;
        state.source = format("conv ({} {} - 1) x ({} {} + 2 x {} {} x {} {}), state {} x {}", conv->source,
                              conv->value, inner->source, inner->value, groups->source, groups->value,
                              st->source, st->value, st->source, inner->source);
    } else if (arch->state == StateRule::shortconv) {
        // n_embd_r = n_embd x (shortconv.l_cache - 1), no S (src/llama-hparams.cpp).
        auto l = md.required("shortconv.l_cache");
        if (!l) return l.forward_error();
        if (!embd->value)
            return fail(code::missing_field, md.key("embedding_length"), "{}: missing",
                        md.key("embedding_length"));
        if (l->value < 1) return fail(code::invalid_value, l->source, "{}: must be at least 1", l->source);
        state.mixer = "short_conv";
        state.conv_rows = l->value - 1;
        state.conv_channels = embd->value;
        state.source =
            format("conv ({} {} - 1) x {} {}, no S", l->source, l->value, embd->source, embd->value);
    }

    // Each layer, then the groups of layers alike.
    std::vector<Layer> layers(n);
    const std::uint64_t main_layers = n - nextn->value;  // the NextN blocks come last
    for (std::uint32_t il = 0; il < n; ++il) {
        Layer& L = layers[il];
        if (il >= main_layers) {  // left out of the main context's memory, attention and state alike
            L.kind = LayerKind::no_cache;
            L.name = "nextn";
            continue;
        }
        const bool rec = recurrent_layer(il);
        L.state = rec;
        const bool attends = arch->recurrent == RecurrentRule::every_layer || !rec;
        if (!attends || (*kv)[il].value == 0) {
            L.kind = rec ? LayerKind::linear_state : LayerKind::no_cache;
            L.name = rec ? "recurrent" : "no_kv";
            if (rec) L.state = false;  // the layer's one cache is its state
            continue;
        }
        if (il >= kv_layers) {
            L.kind = LayerKind::no_cache;
            L.name = "kv_shared";
            continue;
        }
        L.heads = (*kv)[il];
        if (mla) {
            L.kind = LayerKind::mla;
            L.name = "mla";
            L.latent = {L.heads.value * hk.value,
                        format("{} {} x {} {}", L.heads.source, L.heads.value, hk.source, hk.value)};
            L.latent_v = {L.heads.value * hv.value,
                          format("{} {} x {} {}", L.heads.source, L.heads.value, hv.source, hv.value)};
            L.mla_k = mla_k;
            L.mla_v = mla_v;
            continue;
        }
        L.kind = swa[il] ? (arch->chunked ? LayerKind::chunked_local : LayerKind::sliding_window)
                         : LayerKind::full_attention;
        L.name = swa[il] ? "sliding_attention" : "full_attention";
        L.k = swa[il] ? hk_swa : hk;
        L.v = swa[il] ? hv_swa : hv;
        if (swa[il]) L.window = window;
    }
    auto group_of = [&](const Layer& L) -> std::uint32_t {
        for (std::uint32_t i = 0; i < m.groups.size(); ++i) {  // a handful of groups: a search
            const LayerGroup& g = m.groups[i];
            if (g.kind == L.kind && g.name == L.name && g.kv_heads.value == L.heads.value &&
                g.k_head_dim.value == L.k.value && g.v_head_dim.value == L.v.value)
                return i;
        }
        LayerGroup g;
        g.kind = L.kind;
        g.name = L.name;
        g.kv_heads = L.heads;
        g.k_head_dim = L.k;
        g.v_head_dim = L.v;
        g.window = L.window;
        g.latent_dim = L.latent;
        g.latent_v_dim = L.latent_v;
        g.mla_k_head_dim = L.mla_k;
        g.mla_v_head_dim = L.mla_v;
        if (L.kind == LayerKind::linear_state) g.state = state;
        m.groups.push_back(std::move(g));
        return static_cast<std::uint32_t>(m.groups.size() - 1);
    };
    for (const Layer& L : layers) {
        const std::uint32_t gi = group_of(L);
        m.groups[gi].count += 1;
        m.layer_group.push_back(gi);
    }
    if (arch->recurrent == RecurrentRule::every_layer) {  // Falcon-H1: a state beside every attention
        Layer s;
        s.kind = LayerKind::linear_state;
        s.name = "recurrent";
        m.layer_second_group.assign(n, ModelSpec::no_second_cache);
        for (std::uint32_t il = 0; il < n; ++il)
            if (layers[il].state) {
                const std::uint32_t gi = group_of(s);
                m.groups[gi].count += 1;
                m.layer_second_group[il] = gi;
            }
    }
    m.layer_plan_source = format("general.architecture {}: llama.cpp's rules", arch_name);
    return m;
}

}  // namespace kvcalc
