#include "config/layer_plan.hpp"

#include <tuple>

#include "config/architectures.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

enum class Mixer { none, gated_delta_net, mamba1, mamba2, kda, short_conv, lightning };

struct Plan {
    std::vector<LayerKind> kinds;
    std::vector<std::string> names;  // the config's name for each layer's type
    std::string source;              // which field decided the kinds
    bool kda_layers = false;         // linear_attn_config's linear layers
    std::vector<Sourced> kv_heads;   // per layer, where the config sets them (block_configs), else empty
    std::vector<Sourced> head_dims;  // per layer, where the config sets them (Step-3.5), else empty
    std::vector<Sourced> q_heads;    // per layer, where they differ from the model's (Step-3.5), else empty
    // A second cache on some layers: Falcon-H1's Mamba-2 state beside every layer's attention
    // (second_kind linear_state), Zamba2's shared-attention KV on its hybrid layers (full_attention).
    LayerKind second_kind = LayerKind::no_cache;
    std::vector<bool> second;  // per layer
    std::string second_name;
    Sourced second_kv, second_head_dim;  // a second attention cache's geometry
    Sourced second_window;               // a second sliding cache's window (IQuest's loop_window_size)
    // Looped models: caches per layer (one per loop step), per layer; empty when each layer has one.
    std::vector<std::uint32_t> per_layer;
    std::uint32_t second_per_layer = 1;
    // An attention's side cache on the layers named indexed_name (MiniMax-M3's indexer keys): elements a
    // token.
    std::string indexed_name;
    Sourced indexer;
};

// layer_types: one string per layer. Rnj1's "chunked_attention" layers are a sliding window of
// sliding_window tokens in vLLM (vllm/model_executor/models/rnj1.py, Rnj1Attention.__init__ passes
// per_layer_sliding_window=config.sliding_window, so Attention.get_kv_cache_spec returns a
// SlidingWindowSpec), not chunked local attention.
Result<bool> from_layer_types(const Fields& f, const json& types, Plan& p, std::uint64_t layers,
                              const std::string& family) {
    std::string field = f.path("layer_types");
    if (!types.is_array())
        return field_error(code::invalid_value, field, "must be an array of strings, got {}",
                           described(types));
    if (types.size() != layers)
        return field_error(code::inconsistent, field, "has {} entries but the model has {} layers",
                           types.size(), layers);
    for (std::size_t i = 0; i < types.size(); ++i) {
        std::string at = format("{}[{}]", field, i);
        if (!types[i].is_string())
            return field_error(code::invalid_value, at, "must be a string, got {}", described(types[i]));
        const std::string& t = types[i].get_ref<const std::string&>();
        LayerKind k;
        if (t == "full_attention" || t == "attention" || t == "global_attention")
            k = LayerKind::full_attention;
        else if (t == "sliding_attention" || t == "sliding_window" || t == "local_attention")
            k = LayerKind::sliding_window;
        else if (t == "chunked_attention")
            k = family == "rnj1" ? LayerKind::sliding_window : LayerKind::chunked_local;
        else if (t == "linear_attention" || t == "mamba" || t == "conv")
            k = LayerKind::linear_state;
        else
            return field_error(code::invalid_value, at,
                               "unknown layer type {} (known: full_attention, sliding_attention, "
                               "chunked_attention, linear_attention, mamba, conv)",
                               described(types[i]));
        p.kinds.push_back(k);
        p.names.push_back(t);
    }
    p.source = field;
    return true;
}

// Zamba2: layers_block_type, one "mamba" or "hybrid" per layer (vLLM zamba2.py Zamba2Model). Every layer
// keeps a Mamba-2 state (Zamba2MambaDecoderLayer, alone or in a Zamba2HybridLayer); a hybrid layer also runs
// a shared attention block whose Attention keeps a cache of its own (Zamba2Attention.dpa_list, one per hybrid
// layer): num_attention_heads KV heads (no GQA) of attention_head_dim, which Zamba2Config always sets to
// 2 x hidden_size / num_attention_heads (a value in config.json is overwritten).
Result<bool> from_zamba2_blocks(const Fields& f, const ModelSpec& m, Plan& p, std::uint64_t layers) {
    std::string field = f.path("layers_block_type");
    const json* bt = f.find("layers_block_type");
    if (!bt)
        return f.error(code::missing_field, "layers_block_type",
                       "missing (Zamba2 names each layer mamba or hybrid there)");
    if (!bt->is_array())
        return field_error(code::invalid_value, field, "must be an array of \"mamba\" and \"hybrid\", got {}",
                           described(*bt));
    // Zamba2Config's default list has 54 entries, whatever num_hidden_layers says: a config without the list
    // whose layers differ is missing it.
    const bool defaulted = !member(f.object(), "layers_block_type");
    if (bt->size() != layers)
        return field_error(defaulted ? code::missing_field : code::inconsistent, field,
                           "{}{} has {} entries but the model has {} layers",
                           defaulted ? "missing, and " : "", f.pattern_source("layers_block_type"),
                           bt->size(), layers);
    p.kinds.assign(layers, LayerKind::linear_state);
    p.names.assign(layers, "mamba");
    p.second.assign(layers, false);
    for (std::size_t i = 0; i < bt->size(); ++i) {
        const json& t = (*bt)[i];
        if (t == "hybrid")
            p.second[i] = true;
        else if (t != "mamba")
            return field_error(code::invalid_value, format("{}[{}]", field, i),
                               "must be \"mamba\" or \"hybrid\", got {}", described(t));
    }
    if (!m.hidden_size.value)
        return f.error(code::missing_field, "hidden_size",
                       "missing (Zamba2's attention is 2 x hidden_size wide)");
    const Sourced& heads = m.query_heads;
    if ((2 * m.hidden_size.value) % heads.value != 0)
        return fail(code::inconsistent, heads.source,
                    "{} {} does not divide 2 x {} {} (Zamba2's attention width; vLLM refuses it)",
                    heads.source, heads.value, m.hidden_size.source, m.hidden_size.value);
    // vLLM sizes the attention pages from num_key_value_heads (ModelConfig.get_total_num_kv_heads) but the
    // layers keep num_attention_heads: a config where they differ is not guessed at.
    if (const json* kv = f.find("num_key_value_heads"); kv && !(kv->is_number() && *kv == heads.value))
        return f.error(code::unsupported, "num_key_value_heads",
                       "{} differs from {} {}: vLLM's Zamba2 layers keep a KV head per query head but its "
                       "page sizes follow num_key_value_heads, which kvcalc does not model",
                       described(*kv), heads.source, heads.value);
    p.second_kind = LayerKind::full_attention;
    p.second_name = "shared attention";
    p.second_kv = {heads.value,
                   format("{} (Zamba2's attention keeps a KV head per query head)", heads.source)};
    p.second_head_dim = {2 * m.hidden_size.value / heads.value,
                         format("2 x {} {} / {} {} (Zamba2Config)", m.hidden_size.source, m.hidden_size.value,
                                heads.source, heads.value)};
    p.source = f.pattern_source("layers_block_type");
    return true;
}

// MiniMax-Text-01 / M1: attn_type_list, else decoder_attention_types, one 0 (lightning linear attention)
// or 1 (full attention) per layer (vLLM minimax_text_01.py MiniMaxText01Model.decoder_attention_types); else
// layer_types (98370df: "linear_attention" 0, "full_attention" 1), which transformers' MiniMaxConfig fills
// when absent. vLLM takes full attention on every layer only when the config class has no layer_types at all.
Result<bool> from_attn_type_list(const Fields& f, Plan& p, std::uint64_t layers,
                                 const std::string& model_type) {
    for (const char* name : {"attn_type_list", "decoder_attention_types"}) {
        const json* list = f.find(name);
        if (!list || (list->is_array() && list->empty())) continue;
        std::string field = f.path(name);
        if (!list->is_array())
            return field_error(code::invalid_value, field, "must be an array of 0 and 1, got {}",
                               described(*list));
        if (list->size() != layers)
            return field_error(code::inconsistent, field, "has {} entries but the model has {} layers",
                               list->size(), layers);
        for (std::size_t i = 0; i < list->size(); ++i) {
            const json& v = (*list)[i];
            const std::int64_t t = v.is_number_integer() ? v.get<std::int64_t>() : -1;
            if (t != 0 && t != 1)
                return field_error(code::invalid_value, format("{}[{}]", field, i), "must be 0 or 1, got {}",
                                   described(v));
            p.kinds.push_back(t == 0 ? LayerKind::linear_state : LayerKind::full_attention);
            p.names.push_back(t == 0 ? "linear_attention" : "full_attention");
        }
        p.source = field;
        return true;
    }
    if (const json* lt = f.find("layer_types")) return from_layer_types(f, *lt, p, layers, "minimax_text_01");
    // MiniMaxConfig.__post_init__ (the class table's layer_types row): full attention where (i + 1) % 2,
    // linear attention on the others.
    if (model_type == "minimax") {
        for (std::uint64_t i = 0; i < layers; ++i) {
            const bool full = (i + 1) % 2 != 0;
            p.kinds.push_back(full ? LayerKind::full_attention : LayerKind::linear_state);
            p.names.push_back(full ? "full_attention" : "linear_attention");
        }
        p.source = f.pattern_source("layer_types");
        return true;
    }
    // Another model_type (minimax_text_01, minimax_m1) is the checkpoint's remote config class, whose default
    // kvcalc has not read: full attention on every layer would be a guess.
    return f.error(
        code::missing_field, "attn_type_list",
        "missing, as are decoder_attention_types and layer_types: which layers are linear attention is "
        "left to model_type {}'s config class, whose default kvcalc has not read",
        model_type.empty() ? std::string("(none)") : model_type);
}

// PLaMo2: vLLM plamo2.py is_mamba(config, i): with num_hidden_layers <= mamba_step // 2 every layer but the
// last is Mamba; otherwise layer i is Mamba unless i % mamba_step == mamba_step // 2 (vLLM asserts
// mamba_step > 1). The others build Plamo2AttentionMixer, full attention.
Result<bool> from_plamo2_step(const Fields& f, Plan& p, std::uint64_t layers) {
    auto step = f.positive("mamba_step");
    if (!step) return step.forward_error();
    if (step->value < 2)
        return f.error(code::invalid_value, "mamba_step", "must be at least 2 (vLLM asserts it), got {}",
                       step->value);
    const std::uint64_t half = step->value / 2;
    for (std::uint64_t i = 0; i < layers; ++i) {
        const bool mamba = layers <= half ? i != layers - 1 : i % step->value != half;
        p.kinds.push_back(mamba ? LayerKind::linear_state : LayerKind::full_attention);
        p.names.push_back(mamba ? "mamba" : "attention");
    }
    p.source = format("{} {}: attention where i % {} == {} (vLLM plamo2.py is_mamba)", step->source,
                      step->value, step->value, half);
    return true;
}

// PLaMo3: vLLM plamo3.py Plamo3AttentionMixer passes per_layer_sliding_window=
// config.interleaved_sliding_window[layer_idx], a list the remote Plamo3Config (pfnet/plamo-3-*,
// configuration_plamo3.py, every version read) derives: layer i is full attention (None) when
// (i + 1) % sliding_window_pattern == 0 (is_full_attn), else it slides by window_size. With both kinds,
// layer_types is interleaved and vLLM leaves cache_config.sliding_window unset, so the full layers stay full.
// The versions give window_size different defaults (128, 2048) and read a legacy sliding_window
// differently (one takes it as the window, another leaves it an attribute), so both fields are required and
// a sliding_window other than window_size is refused; with sliding_window_pattern 1 every layer is full and
// vLLM then reads the model-wide sliding_window, which the versions give differently (window_size, none).
Result<bool> from_plamo3_pattern(const Fields& f, Plan& p, std::uint64_t layers) {
    for (const char* need : {"window_size", "sliding_window_pattern"})
        if (!f.find(need))
            return f.error(code::missing_field, need,
                           "missing (the remote Plamo3Config derives each layer's window from window_size "
                           "and sliding_window_pattern, and its versions default them differently)");
    auto w = f.positive("window_size");
    if (!w) return w.forward_error();
    auto pat = f.positive("sliding_window_pattern");
    if (!pat) return pat.forward_error();
    if (pat->value == 1)
        return f.error(code::unsupported, "sliding_window_pattern",
                       "1 makes every layer full attention, where vLLM then reads the model-wide "
                       "sliding_window, which the versions of the remote Plamo3Config give differently "
                       "(window_size, or none); kvcalc does not guess");
    if (const json* sw = f.find("sliding_window");
        sw && !sw->is_null() && !(sw->is_number_integer() && *sw == w->value))
        return f.error(code::unsupported, "sliding_window",
                       "{} beside {} {}: one version of the remote Plamo3Config takes sliding_window as the "
                       "window, another leaves it to vLLM; kvcalc does not guess",
                       described(*sw), w->source, w->value);
    const json* given = f.find("interleaved_sliding_window");
    if (given && (!given->is_array() || given->size() != layers))
        return f.error(code::inconsistent, "interleaved_sliding_window",
                       "must be an array of {} entries (one a layer, null for full attention), got {}",
                       layers, described(*given));
    for (std::uint64_t i = 0; i < layers; ++i) {
        const bool full = (i + 1) % pat->value == 0;
        if (given) {
            const json& g = (*given)[i];
            if (full ? !g.is_null() : !(g.is_number_integer() && g == w->value))
                return field_error(code::inconsistent,
                                   format("{}[{}]", f.path("interleaved_sliding_window"), i),
                                   "is {} where {} {} and {} {} give {} (the remote Plamo3Config derives it)",
                                   described(g), w->source, w->value, pat->source, pat->value,
                                   full ? std::string("null") : format("{}", w->value));
        }
        p.kinds.push_back(full ? LayerKind::full_attention : LayerKind::sliding_window);
        p.names.push_back(full ? "full_attention" : "sliding_attention");
    }
    p.source = format(
        "{} {}: full attention where (i + 1) % {} == 0, else a window (Plamo3Config's "
        "interleaved_sliding_window, read by vLLM plamo3.py)",
        pat->source, pat->value, pat->value);
    return true;
}

// Bailing linear (BailingMoeV2_5): vLLM bailing_moe_linear.py BailingMoeV25Model, decoder_attention_types
// from is_linear_layer: with layer_group_size (getattr default 1) > 0, layer i is a linear-attention layer
// (BailingMoELinearAttention, a lightning state) unless (i + 1) % layer_group_size == 0, where it is MLA
// (BailingMoeV25MLAAttention).
Result<bool> from_bailing_groups(const Fields& f, Plan& p, std::uint64_t layers) {
    Sourced g{1, "layer_group_size 1 (vLLM's getattr default)"};
    if (f.find("layer_group_size")) {
        auto v = f.non_negative("layer_group_size");
        if (!v) return v.forward_error();
        g = *v;
    }
    for (std::uint64_t i = 0; i < layers; ++i) {
        const bool linear = g.value > 0 && (i + 1) % g.value != 0;
        p.kinds.push_back(linear ? LayerKind::linear_state : LayerKind::full_attention);
        p.names.push_back(linear ? "linear_attention" : "full_attention");
    }
    p.source = format("{}: MLA where (i + 1) % {} == 0, linear attention elsewhere (vLLM is_linear_layer)",
                      g.source, g.value);
    return true;
}

// MiMo-V2: hybrid_layer_pattern, one 0 or 1 per layer; 1 builds the sliding ("compressed softmax")
// attention with its own geometry (vllm/model_executor/models/mimo_v2.py,
// MiMoV2FlashDecoderLayer.is_compressed_softmax_layer), 0 full attention.
Result<bool> from_mimo_pattern(const Fields& f, Plan& p, std::uint64_t layers) {
    std::string field = f.path("hybrid_layer_pattern");
    const json* pat = f.find("hybrid_layer_pattern");
    if (!pat)
        return f.error(code::missing_field, "hybrid_layer_pattern",
                       "missing (MiMo-V2 names each layer's attention there)");
    if (!pat->is_array())
        return field_error(code::invalid_value, field, "must be an array of 0 and 1, got {}",
                           described(*pat));
    if (pat->size() != layers)
        return field_error(code::inconsistent, field, "has {} entries but the model has {} layers",
                           pat->size(), layers);
    for (std::size_t i = 0; i < pat->size(); ++i) {
        const json& v = (*pat)[i];
        const std::int64_t bit = v.is_number_integer() ? v.get<std::int64_t>() : -1;
        if (bit != 0 && bit != 1)
            return field_error(code::invalid_value, format("{}[{}]", field, i), "must be 0 or 1, got {}",
                               described(v));
        bool slides = bit == 1;
        p.kinds.push_back(slides ? LayerKind::sliding_window : LayerKind::full_attention);
        p.names.push_back(slides ? "sliding_attention" : "full_attention");
    }
    p.source = field;
    return true;
}

// DeciLM / Nemotron-NAS: block_configs, one entry per layer. attention.no_op builds no attention
// (no cache); otherwise num_attention_heads / attention.n_heads_in_group KV heads of the model's
// head size (vllm/model_executor/models/nemotron_nas.py, DeciLMDecoderLayer.__init__).
Result<bool> from_block_configs(const Fields& f, const Sourced& query_heads, Plan& p, std::uint64_t layers) {
    std::string field = f.path("block_configs");
    const json* bc = f.find("block_configs");
    if (!bc)
        return f.error(code::missing_field, "block_configs",
                       "missing (DeciLM names each layer's blocks there)");
    if (!bc->is_array())
        return field_error(code::invalid_value, field, "must be an array of per-layer blocks, got {}",
                           described(*bc));
    if (bc->size() != layers)
        return field_error(code::inconsistent, field, "has {} entries but the model has {} layers",
                           bc->size(), layers);
    for (std::size_t i = 0; i < bc->size(); ++i) {
        std::string at = format("{}[{}].attention", field, i);
        const json& block = (*bc)[i];
        const json* attn = block.is_object() && block.contains("attention") ? &block["attention"] : nullptr;
        if (!attn || !attn->is_object())
            return field_error(code::missing_field, at, "missing: each block names its attention");
        Fields af(*attn, at);
        auto no_op = af.flag("no_op", false);
        if (!no_op) return no_op.forward_error();
        auto linear = af.flag("replace_with_linear", false);
        if (!linear) return linear.forward_error();
        if (*no_op) {
            p.kinds.push_back(LayerKind::no_cache);
            p.names.push_back("no_op");
            p.kv_heads.push_back({});
            continue;
        }
        if (*linear)
            return field_error(code::unsupported, af.path("replace_with_linear"),
                               "true: vLLM's DeciLM builds attention on every layer that is not a no_op");
        auto group = af.positive("n_heads_in_group");
        if (!group) return group.forward_error();
        if (query_heads.value % group->value != 0)
            return field_error(code::inconsistent, group->source, "{} does not divide {} {}", group->value,
                               query_heads.source, query_heads.value);
        p.kinds.push_back(LayerKind::full_attention);
        p.names.push_back(format("attention ({} heads a KV group)", group->value));
        p.kv_heads.push_back(
            {query_heads.value / group->value,
             format("{} {} / {} {}", query_heads.source, query_heads.value, group->source, group->value)});
    }
    p.source = field;
    return true;
}

// Step-3.5 (Step3p5ForCausalLM, and Step-3.7's text model): vllm/model_executor/models/step3p5.py.
// Step3p5DecoderLayer.__init__ (att_impl_type "GQA", else vLLM raises) builds Step3p5Attention with
// num_attention_heads, num_kv_heads = num_attention_groups and head_dim (else hidden_size // heads); a layer
// whose layer_types[i] is attention_other_setting["attention_type"] takes that dict's num_attention_heads,
// num_attention_groups and head_dim instead (each where set, read with [] so each key must be there).
// Step3p5Attention.__init__: the layer slides by sliding_window when one is set and layer_types[i] is
// "sliding_attention" (without layer_types: i % 2 == 0), and passes per_layer_sliding_window to its Attention
// (a SlidingWindowSpec); every other layer is full attention. layer_types may list the MTP layers after the
// model's (vLLM indexes it by layer), so it needs at least num_hidden_layers entries.
Result<bool> from_step3p5(const Fields& f, const ModelSpec& m, Plan& p, std::uint64_t layers,
                          const Sourced& kv_heads, const Sourced& head_dim) {
    auto impl = f.text("att_impl_type");
    if (!impl) return impl.forward_error();
    if (!impl->empty() && *impl != "GQA")
        return f.error(
            code::unsupported, "att_impl_type",
            "\"{}\": vLLM's Step3p5DecoderLayer builds only \"GQA\" attention (it raises otherwise)", *impl);
    const json* types = f.find("layer_types");
    const std::string tf = f.path("layer_types");
    if (types && !types->is_array())
        return field_error(code::invalid_value, tf, "must be an array of strings, got {}", described(*types));
    if (types && !types->empty() && types->size() < layers)
        return field_error(code::inconsistent, tf,
                           "has {} entries but the model has {} layers (vLLM reads one per layer)",
                           types->size(), layers);
    const bool listed = types && !types->empty();
    const json* win = f.find("sliding_window");
    // The other geometry, read as Step3p5DecoderLayer reads it.
    const json* other = f.find("attention_other_setting");
    const std::string of = f.path("attention_other_setting");
    std::string other_type;
    Sourced oq = m.query_heads, okv = kv_heads, ohd = head_dim;
    if (other && !(other->is_object() && other->empty()) && listed) {
        if (!other->is_object())
            return field_error(code::invalid_value, of, "must be an object, got {}", described(*other));
        Fields af(*other, of);
        const json* at = member(*other, "attention_type");
        if (!at)
            return field_error(
                code::missing_field, af.path("attention_type"),
                "missing (vLLM's Step3p5DecoderLayer reads it to pick the layers it applies to)");
        if (!at->is_string())
            return field_error(code::invalid_value, af.path("attention_type"), "must be a string, got {}",
                               described(*at));
        other_type = at->get<std::string>();
        bool applies = false;  // vLLM reads the keys below only for a layer of that type
        for (std::uint64_t i = 0; i < layers; ++i)
            applies |= (*types)[i] == other_type;
        for (const char* key : {"num_attention_heads", "num_attention_groups", "head_dim"})
            if (applies && !member(*other, key))
                return field_error(code::missing_field, af.path(key),
                                   "missing (vLLM's Step3p5DecoderLayer reads it for the {} layers)",
                                   other_type);
        // A null value keeps the model's own (vLLM: `x if x else config.x`).
        if (af.find("num_attention_heads")) {
            auto v = af.positive("num_attention_heads");
            if (!v) return v.forward_error();
            oq = *v;
        }
        if (af.find("num_attention_groups")) {
            auto v = af.positive("num_attention_groups");
            if (!v) return v.forward_error();
            okv = *v;
        }
        if (af.find("head_dim")) {
            auto v = af.positive("head_dim");
            if (!v) return v.forward_error();
            ohd = *v;
        } else if (!f.find("head_dim")) {
            // Step3p5Attention: head_dim or hidden_size // its own heads.
            if (!m.hidden_size.value || m.hidden_size.value % oq.value != 0)
                return f.error(code::missing_field, "head_dim",
                               "missing, and hidden_size / {} {} gives no whole head size", oq.source,
                               oq.value);
            ohd = {m.hidden_size.value / oq.value,
                   format("{} {} / {} {}", m.hidden_size.source, m.hidden_size.value, oq.source, oq.value)};
        }
        if (okv.value > oq.value || oq.value % okv.value != 0)
            return fail(code::inconsistent, okv.source, "{} {} does not divide {} {}", okv.source, okv.value,
                        oq.source, oq.value);
    }
    for (std::uint64_t i = 0; i < layers; ++i) {
        std::string name;
        if (listed) {
            const json& t = (*types)[i];
            if (!t.is_string())
                return field_error(code::invalid_value, format("{}[{}]", tf, i), "must be a string, got {}",
                                   described(t));
            name = t.get<std::string>();
        } else {
            name = i % 2 == 0 ? "sliding_attention" : "full_attention";
        }
        const bool slides = win && name == "sliding_attention";
        p.kinds.push_back(slides ? LayerKind::sliding_window : LayerKind::full_attention);
        const bool own = !other_type.empty() && name == other_type;
        // A layer the config calls sliding keeps full attention when there is no window: named apart.
        p.names.push_back(!slides && name == "sliding_attention" ? "sliding_attention (no window)" : name);
        p.kv_heads.push_back(own ? okv : kv_heads);
        p.head_dims.push_back(own ? ohd : head_dim);
        p.q_heads.push_back(own ? oq : m.query_heads);
    }
    p.source = listed ? format("{} (\"sliding_attention\" slides when sliding_window is set){}", tf,
                               other_type.empty() ? "" : format("; {} layers take {}", other_type, of))
                      : format("no {}: even layers slide when sliding_window is set (vLLM step3p5.py)", tf);
    return true;
}

// Nemotron-H: M = Mamba, * = attention, - = MLP, E = MoE.
Result<bool> from_hybrid_pattern(const Fields& f, Plan& p, std::uint64_t layers) {
    std::string field = f.path("hybrid_override_pattern");
    auto pat = f.text("hybrid_override_pattern");
    if (!pat) return pat.forward_error();
    if (pat->size() != layers)
        return field_error(code::inconsistent, field, "has {} characters but the model has {} layers",
                           pat->size(), layers);
    for (std::size_t i = 0; i < pat->size(); ++i) {
        char c = (*pat)[i];
        if (c == 'M')
            p.kinds.push_back(LayerKind::linear_state), p.names.push_back("mamba");
        else if (c == '*')
            p.kinds.push_back(LayerKind::full_attention), p.names.push_back("attention");
        else if (c == '-')
            p.kinds.push_back(LayerKind::no_cache), p.names.push_back("mlp");
        else if (c == 'E')
            p.kinds.push_back(LayerKind::no_cache), p.names.push_back("moe");
        else
            return fail(code::invalid_value, field,
                        "{}[{}]: unknown layer symbol '{}' (known: M Mamba, * attention, - MLP, E MoE)",
                        field, i, std::string_view(&(*pat)[i], 1));
    }
    p.source = field;
    return true;
}

// Kimi-Linear: linear_attn_config.full_attn_layers / kda_layers, 1-indexed.
Result<bool> from_linear_attn_config(const Fields& f, const json& cfg, Plan& p, std::uint64_t layers) {
    std::string field = f.path("linear_attn_config");
    if (!cfg.is_object())
        return field_error(code::invalid_value, field, "must be an object, got {}", described(cfg));
    std::vector<int> seen(layers, 0);
    p.kinds.assign(layers, LayerKind::no_cache);
    p.names.assign(layers, "");
    for (auto [key, kind, label] :
         {std::tuple{"full_attn_layers", LayerKind::full_attention, "full_attention"},
          std::tuple{"kda_layers", LayerKind::linear_state, "kda"}}) {
        std::string kf = format("{}.{}", field, key);
        const json* it = member(cfg, key);
        if (!it || !it->is_array())
            return field_error(code::missing_field, kf, "missing (a list of 1-indexed layers)");
        for (std::size_t i = 0; i < it->size(); ++i) {
            std::string at = format("{}[{}]", kf, i);
            auto n = checked_integer((*it)[i], at, false);
            if (!n) return n.forward_error();
            if (*n > layers)
                return field_error(code::inconsistent, at,
                                   "layer {} is beyond the model's {} layers (the list is 1-indexed)", *n,
                                   layers);
            if (seen[*n - 1]++) return field_error(code::inconsistent, at, "layer {} is listed twice", *n);
            p.kinds[*n - 1] = kind;
            p.names[*n - 1] = label;
        }
    }
    for (std::uint64_t i = 0; i < layers; ++i)
        if (!seen[i])
            return field_error(code::inconsistent, field,
                               "layer {} is in neither full_attn_layers nor kda_layers", i + 1);
    p.source = field;
    p.kda_layers = true;
    return true;
}

// Jamba: attention on layers i % attn_layer_period == attn_layer_offset, Mamba on the others.
Result<bool> from_period(const Fields& f, Plan& p, std::uint64_t layers) {
    auto period = f.positive("attn_layer_period");
    auto offset = f.non_negative("attn_layer_offset");
    if (!period) return period.forward_error();
    if (!offset) return offset.forward_error();
    for (std::uint64_t i = 0; i < layers; ++i) {
        bool attn = i % period->value == offset->value;
        p.kinds.push_back(attn ? LayerKind::full_attention : LayerKind::linear_state);
        p.names.push_back(attn ? "attention" : "mamba");
    }
    p.source = format("{} {}, {} {}", period->source, period->value, offset->source, offset->value);
    return true;
}

// Bamba: attention on the layers attn_layer_indices lists (0-indexed), Mamba on the others; LFM2
// without layer_types: full_attn_idxs, short convolutions on the others (transformers' Lfm2Config
// builds layer_types from it, the way vLLM's lfm2.py reads them).
Result<bool> from_indices(const Fields& f, const char* name, const char* state_name, Plan& p,
                          std::uint64_t layers) {
    const std::string field = f.path(name);
    const json& list = *f.find(name);
    if (!list.is_array())
        return field_error(code::invalid_value, field, "must be a list of layer indices, got {}",
                           described(list));
    p.kinds.assign(layers, LayerKind::linear_state);
    p.names.assign(layers, state_name);
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string at = format("{}[{}]", field, i);
        auto n = checked_integer(list[i], at, true);
        if (!n) return n.forward_error();
        if (*n >= layers)
            return field_error(code::inconsistent, at, "layer {} is beyond the model's {} layers (0-indexed)",
                               *n, layers);
        p.kinds[*n] = LayerKind::full_attention;
        p.names[*n] = "attention";
    }
    p.source = field;
    return true;
}

// LFM2 without layer_types: full_attn_idxs, else Lfm2Config's default of attention on every layer
// (transformers configuration_lfm2.py). Lfm2MoeConfig has no such default: vLLM's lfm2_moe.py
// indexes config.layer_types, so a config without it does not load.
Result<bool> from_lfm2_default(const Fields& f, Plan& p, std::uint64_t layers,
                               const std::string& model_type) {
    if (model_type == "lfm2_moe")
        return f.error(code::missing_field, "layer_types",
                       "missing (LFM2-MoE names each layer full_attention or conv there)");
    if (f.find("full_attn_idxs")) return from_indices(f, "full_attn_idxs", "conv", p, layers);
    p.kinds.assign(layers, LayerKind::full_attention);
    p.names.assign(layers, "full_attention");
    p.source =
        format("no {} or full_attn_idxs: Lfm2Config puts attention on every layer", f.path("layer_types"));
    return true;
}

// Gemma 4 without layer_types: Gemma4TextConfig's sliding_window_pattern 6, the last layer full.
Result<bool> from_gemma4_default(const Fields& f, Plan& p, std::uint64_t layers) {
    for (std::uint64_t i = 0; i < layers; ++i) {
        const bool full = (i + 1) % 6 == 0 || i + 1 == layers;
        p.kinds.push_back(full ? LayerKind::full_attention : LayerKind::sliding_window);
        p.names.push_back(full ? "full_attention" : "sliding_attention");
    }
    p.source = f.pattern_source("layer_types");
    return true;
}

// Dots1: vLLM dots1.py Dots1Attention passes no per-layer window, so every layer takes
// cache_config.sliding_window, which EngineArgs.create_engine_config sets to sliding_window only when
// layer_types holds one kind (is_interleaved false). layer_types is the config's, else Dots1Config's: sliding
// from max_window_layers on when sliding_window is set (62 of 62 layers full by default).
Result<bool> from_dots1(const Fields& f, Plan& p, std::uint64_t layers) {
    auto all = [&](LayerKind k, const char* name, std::string src) {
        p.kinds.assign(layers, k);
        p.names.assign(layers, name);
        p.source = std::move(src);
        return true;
    };
    if (!f.find("sliding_window"))
        return all(LayerKind::full_attention, "full_attention", "no sliding_window");
    Plan types;
    if (const json* lt = f.find("layer_types")) {
        auto t = from_layer_types(f, *lt, types, layers, "dots1");
        if (!t) return t.forward_error();
    } else {
        auto mwl = f.non_negative("max_window_layers");
        if (!mwl) return mwl.forward_error();
        for (std::uint64_t i = 0; i < layers; ++i)
            types.kinds.push_back(i >= mwl->value ? LayerKind::sliding_window : LayerKind::full_attention);
        types.source = format("{} from {} {}", f.pattern_source("layer_types"), mwl->source, mwl->value);
    }
    bool sliding = false, full = false;
    for (auto k : types.kinds) {
        sliding |= k == LayerKind::sliding_window;
        full |= k != LayerKind::sliding_window;
    }
    if (sliding && full)
        return all(LayerKind::full_attention, "full_attention",
                   format("{} mixes kinds: no layer slides (vLLM's cache_config.sliding_window unset)",
                          types.source));
    return all(
        LayerKind::sliding_window, "sliding_attention",
        format("{} holds one kind: every layer slides (vLLM's cache_config.sliding_window)", types.source));
}

Result<bool> every_nth(const Fields& f, const char* name, Plan& p, std::uint64_t layers, LayerKind nth,
                       LayerKind others, const char* nth_name, const char* others_name) {
    auto n = f.positive(name);
    if (!n) return n.forward_error();
    for (std::uint64_t i = 0; i < layers; ++i) {
        bool hit = (i + 1) % n->value == 0;
        p.kinds.push_back(hit ? nth : others);
        p.names.push_back(hit ? nth_name : others_name);
    }
    p.source = format("{} {}", n->source, n->value);
    return true;
}

// Llama 4: RoPE layers attend in chunks; NoPE layers (no_rope_layers[i] == 0) are global.
Result<bool> from_chunked(const Fields& f, Plan& p, std::uint64_t layers) {
    const json* nrl = f.find("no_rope_layers");
    if (nrl && nrl->is_array() && !nrl->empty()) {
        std::string field = f.path("no_rope_layers");
        if (nrl->size() != layers)
            return field_error(code::inconsistent, field, "has {} entries but the model has {} layers",
                               nrl->size(), layers);
        for (std::size_t i = 0; i < nrl->size(); ++i) {
            std::string at = format("{}[{}]", field, i);
            auto v = checked_integer((*nrl)[i], at, true);
            if (!v) return v.forward_error();
            if (*v > 1) return field_error(code::invalid_value, at, "must be 0 or 1, got {}", *v);
            p.kinds.push_back(*v ? LayerKind::chunked_local : LayerKind::full_attention);
            p.names.push_back(*v ? "chunked_attention" : "global_attention");
        }
        p.source = field;
        return true;
    }
    std::uint64_t interval = 4;  // transformers' Llama4TextConfig default
    if (f.find("no_rope_layer_interval")) {
        auto iv = f.positive("no_rope_layer_interval");
        if (!iv) return iv.forward_error();
        interval = iv->value;
    }
    for (std::uint64_t i = 0; i < layers; ++i) {
        bool global = (i + 1) % interval == 0;
        p.kinds.push_back(global ? LayerKind::full_attention : LayerKind::chunked_local);
        p.names.push_back(global ? "global_attention" : "chunked_attention");
    }
    p.source = format("{} empty: every {}th layer is global (no_rope_layer_interval {})",
                      f.path("no_rope_layers"), interval, interval);
    return true;
}

// The plan's layers all full attention, or an error naming sliding_window: a window on `whose` (whose
// layers) is not modelled, for the reason `why` (what vLLM does with it).
Result<bool> refuse_windows(const Fields& f, const Plan& p, const std::string& whose,
                            const std::string& why) {
    for (auto k : p.kinds)
        if (k != LayerKind::full_attention)
            return f.error(code::unsupported, "sliding_window", "({}): a window on {} is not modelled ({})",
                           p.source, whose, why);
    return true;
}

// Qwen2-style use_sliding_window + max_window_layers, Gemma 3 sliding_window_pattern,
// Gemma 2 alternation (cache_implementation "hybrid"), or a model-wide window (Mistral).
Result<bool> from_sliding(const Fields& f, Plan& p, std::uint64_t layers, const std::string& model_type) {
    auto all = [&](LayerKind k, const char* name, std::string src) {
        p.kinds.assign(layers, k);
        p.names.assign(layers, name);
        p.source = std::move(src);
        return true;
    };
    bool has_window = f.find("sliding_window") != nullptr;
    if (f.find("use_sliding_window")) {
        auto use = f.flag("use_sliding_window", false);
        if (!use) return use.forward_error();
        if (!*use)
            return all(LayerKind::full_attention, "full_attention",
                       format("{} false", f.path("use_sliding_window")));
        if (!has_window)
            return f.error(code::missing_field, "sliding_window", "missing, but use_sliding_window is true");
        // Qwen2MoeConfig's layer_types then slides the even layers below max_window_layers only, which vLLM
        // qwen2_moe.py does not pass as per-layer windows: not modelled.
        if (model_type == "qwen2_moe")
            return f.error(
                code::unsupported, "use_sliding_window",
                "true: Qwen2MoeConfig then slides only the even layers below max_window_layers, which "
                "kvcalc does not model");
        if (model_type == "qwen2" || model_type == "qwen3") {
            // vLLM slides every layer of these, and refuses a window on only some of them.
            std::uint64_t mwl = 28;  // Qwen2Config's default
            if (f.find("max_window_layers")) {
                auto v = f.non_negative("max_window_layers");
                if (!v) return v.forward_error();
                mwl = v->value;
            }
            if (mwl > 0 && mwl < layers)
                return fail(
                    code::unsupported, f.path("max_window_layers"),
                    "{}: use_sliding_window true with max_window_layers {} of {} layers: vLLM refuses to "
                    "load a window on only some layers of {}",
                    f.path("max_window_layers"), mwl, layers, model_type);
            return all(LayerKind::sliding_window, "sliding_attention",
                       format("{} true: every layer slides (vLLM)", f.path("use_sliding_window")));
        }
        std::uint64_t first = 0;
        if (f.find("max_window_layers")) {
            auto mw = f.non_negative("max_window_layers");
            if (!mw) return mw.forward_error();
            first = mw->value;
        }
        for (std::uint64_t i = 0; i < layers; ++i) {
            bool slides = i >= first;
            p.kinds.push_back(slides ? LayerKind::sliding_window : LayerKind::full_attention);
            p.names.push_back(slides ? "sliding_attention" : "full_attention");
        }
        p.source = format("{} true, layers from max_window_layers {}", f.path("use_sliding_window"), first);
        return true;
    }
    if (!has_window) return all(LayerKind::full_attention, "full_attention", "no sliding_window");
    for (const char* pattern : {"sliding_window_pattern", "global_attn_every_n_layers"})
        if (f.find(pattern))
            return every_nth(f, pattern, p, layers, LayerKind::full_attention, LayerKind::sliding_window,
                             "full_attention", "sliding_attention");
    if (model_type == "cwm")
        return fail(
            code::unsupported, f.path("layer_types"),
            "{}: missing, and CwmConfig's default pattern (full attention on every 4th layer from the "
            "first) is not modelled",
            f.path("layer_types"));
    auto impl = f.text("cache_implementation");
    if (!impl) return impl.forward_error();
    if (*impl == "hybrid") {
        for (std::uint64_t i = 0; i < layers; ++i) {
            bool slides = (i + 1) % 2 != 0;
            p.kinds.push_back(slides ? LayerKind::sliding_window : LayerKind::full_attention);
            p.names.push_back(slides ? "sliding_attention" : "full_attention");
        }
        p.source =
            format("{} \"hybrid\": even layers slide, odd ones are full", f.path("cache_implementation"));
        return true;
    }
    return all(LayerKind::sliding_window, "sliding_attention",
               format("{} with no layer pattern: every layer slides", f.path("sliding_window")));
}

// A looped model's step count: `field` as a positive integer, else vLLM's getattr default.
Result<Sourced> loop_steps(const Fields& f, const char* field, std::uint64_t vllm_default) {
    if (!f.find(field)) return Sourced{vllm_default, format("{} {} (vLLM's default)", field, vllm_default)};
    auto n = f.positive(field);
    if (!n) return n.forward_error();
    if (n->value > 1000)
        return field_error(code::invalid_value, n->source,
                           "{} loop steps is beyond any real model (at most 1000)", n->value);
    return *n;
}

// Looped models run their decoder stack several times, and vLLM registers one attention layer (one cache)
// per decoder layer and loop step, under the unique index step x num_hidden_layers + layer.
// - Ouro: vllm/model_executor/models/ouro.py OuroAttention.__init__: total_ut_steps (getattr default 4)
//   Attention layers per decoder layer, each on the model's cache_config: full attention, all alike.
// - IQuest-LoopCoder: vllm/model_executor/models/iquest_loopcoder.py LoopCoderAttention.__init__: loop_num
//   (getattr default 2) Attention layers per decoder layer; the first on the model's cache_config (full
//   attention; later loops read it again through global_attn), the others on a copy with sliding_window =
//   loop_window_size (getattr default 64): Attention.get_kv_cache_spec gives each a SlidingWindowSpec.
// Both keep num_key_value_heads heads of hidden_size / num_attention_heads (build_layer_plan). The first
// step's attention takes the model's window as every decoder's does (from_sliding); a window there is
// refused (vLLM asserts max_window_layers == num_hidden_layers, and the loops' windows were not read with
// one).
Result<bool> from_loop_steps(const Fields& f, const ModelSpec& m, Plan& p, std::uint64_t layers) {
    const bool ouro = m.family == "ouro";
    // OuroDecoderLayer / LoopCoderDecoderLayer: is_causal false builds encoder-only attention, no cache.
    auto causal = f.flag("is_causal", true);
    if (!causal) return causal.forward_error();
    if (!*causal)
        return f.error(
            code::unsupported, "is_causal",
            "false: vLLM's {} then builds encoder-only attention, which keeps no cache for generation",
            ouro ? "Ouro" : "IQuest-LoopCoder");
    auto base = from_sliding(f, p, layers, m.model_type);
    if (!base) return base;
    auto full = refuse_windows(f, p, format("{}'s layers", ouro ? "Ouro" : "IQuest-LoopCoder"),
                               format("vLLM's {} gives every loop step an attention of the model's "
                                      "cache_config, and asserts max_window_layers == num_hidden_layers",
                                      ouro ? "ouro.py" : "iquest_loopcoder.py"));
    if (!full) return full;
    auto steps = loop_steps(f, ouro ? "total_ut_steps" : "loop_num", ouro ? 4 : 2);
    if (!steps) return steps.forward_error();
    const auto n = static_cast<std::uint32_t>(steps->value);
    if (ouro) {
        p.names.assign(layers, "full_attention");
        p.per_layer.assign(layers, n);
        p.source =
            format("{} {}: a full-attention cache per layer and loop step (vLLM ouro.py OuroAttention)",
                   steps->source, steps->value);
        return true;
    }
    p.names.assign(layers, "full_attention");
    p.source = format(
        "{} {}: a full-attention cache per layer (the first loop), and one sliding cache per "
        "layer for each later loop (vLLM iquest_loopcoder.py LoopCoderAttention)",
        steps->source, steps->value);
    if (n < 2) return true;
    Sourced window{64, "loop_window_size 64 (vLLM's default)"};
    if (f.find("loop_window_size")) {
        auto w = f.positive("loop_window_size");
        if (!w) return w.forward_error();
        window = *w;
    }
    p.second_kind = LayerKind::sliding_window;
    p.second.assign(layers, true);
    p.second_name = "loop_sliding_attention";
    p.second_window = window;
    p.second_per_layer = n - 1;
    return true;
}

// openPangu (vllm/model_executor/models/openpangu.py OpenPanguDecoderLayer.__init__) builds one of three
// attentions in every layer:
// - use_mla (qk_nope_head_dim, qk_rope_head_dim, v_head_dim and kv_lora_rank all set): OpenPanguMLAAttention,
//   a MultiHeadLatentAttentionWrapper when param_sink_number is 0: the MLA latent (the MLA rule below). Its
//   sink variant (StaticSinkMultiHeadLatentAttentionWrapper), its DSA indexer (index_topk) and MoME
//   (use_mome: MomeAttention.get_kv_cache_spec, a SlidingWindowMomeSpec of its own) are refused by name;
// - else param_sink_number > 0: OpenPanguSinkAttention, a StaticSinkAttention whose get_kv_cache_spec
//   (layers/attention/static_sink_attention.py) is a SinkFullAttentionSpec of num_key_value_heads, K of
//   qk_rope_dim + qk_nope_dim and V of v_channels, with no window; its SinkFullAttentionManager
//   (v1/core/single_type_kv_cache_manager.py) takes param_sink_number / block_size blocks of the pool once;
// - else OpenPanguEmbeddedAttention: an Attention of num_key_value_heads x head_dim (else hidden_size /
//   num_attention_heads), K and V alike, windowed as any Attention (interleaved_sliding_window is refused).
struct PanguAttention {
    bool mla = false, sink = false;
    Sourced k, v;  // the sink attention's K and V head sizes
};

Result<PanguAttention> openpangu_attention(const Fields& f, ModelSpec& m) {
    PanguAttention a;
    auto mome = f.flag("use_mome", false);
    if (!mome) return mome.forward_error();
    if (*mome)
        return f.error(
            code::unsupported, "use_mome",
            "true: MoME attention keeps a convolution cache of its own beside each layer's latent "
            "(vLLM openpangu.py MomeAttention.get_kv_cache_spec, a SlidingWindowMomeSpec), which kvcalc "
            "does not model");
    int present = 0;
    const char* missing = nullptr;
    for (const char* n : {"qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank"}) {
        if (f.find(n))
            ++present;
        else if (!missing)
            missing = n;
    }
    a.mla = present == 4;
    if (!a.mla && f.find("kv_lora_rank"))
        return f.error(
            code::missing_field, missing,
            "missing, but kv_lora_rank is set: vLLM's openPangu builds MLA only with all of "
            "qk_nope_head_dim, qk_rope_head_dim, v_head_dim and kv_lora_rank (OpenPanguDecoderLayer "
            "use_mla), a plain attention otherwise");
    std::uint64_t sinks = 0;
    if (f.find("param_sink_number")) {
        auto n = f.non_negative("param_sink_number");
        if (!n) return n.forward_error();
        sinks = n->value;
    }
    auto causal = f.flag("is_causal", true);
    if (!causal) return causal.forward_error();
    if (!*causal)
        return f.error(code::unsupported, "is_causal",
                       "false: vLLM's openPangu then builds encoder-only attention, which keeps no cache for "
                       "generation (or refuses it, with sink attention)");
    if (a.mla) {
        if (f.find("index_topk"))
            return f.error(
                code::unsupported, "index_topk",
                "set: openPangu's DSA indexer (vLLM openpangu.py PanguIndexer, on dsa_layers) keeps a "
                "key cache beside the latent, which kvcalc does not model for openPangu");
        if (sinks > 0)
            return f.error(
                code::unsupported, "param_sink_number",
                "{}: sink tokens on openPangu's MLA layers (vLLM openpangu.py "
                "StaticSinkMultiHeadLatentAttentionWrapper, a StaticSinkMLAAttention whose cache spec "
                "was not read) are not modelled",
                sinks);
        return a;
    }
    if (sinks == 0) return a;
    a.sink = true;
    auto rope = f.non_negative("qk_rope_dim");
    if (!rope) return rope.forward_error();
    auto nope = f.non_negative("qk_nope_dim");
    if (!nope) return nope.forward_error();
    auto v = f.positive("v_channels");
    if (!v) return v.forward_error();
    if (rope->value + nope->value == 0)
        return f.error(code::invalid_value, "qk_rope_dim",
                       "and qk_nope_dim are both 0: the sink attention's keys "
                       "would be empty");
    a.k = {rope->value + nope->value, format("{} {} + {} {} (vLLM's openPangu sink attention)", rope->source,
                                             rope->value, nope->source, nope->value)};
    a.v = *v;
    m.warnings.push_back(
        {f.path("param_sink_number"),
         format(
             "{} sink tokens a layer live in blocks vLLM's SinkFullAttentionManager takes from the pool once "
             "at start (v1/core/single_type_kv_cache_manager.py; vLLM needs param_sink_number to be a "
             "multiple "
             "of the block size), not in any request: not counted here, as the pool's null block is not",
             sinks)});
    return a;
}

// MiniMax-M3 (vLLM vllm/models/minimax_m3/nvidia/model.py at 0443308): MiniMaxM3DecoderLayer builds a
// MiniMaxM3SparseAttention on the layers whose sparse_attention_config.sparse_attention_freq entry is not 0
// (_sparse_attention_layer_ids; a list shorter than the model leaves the rest plain) and a
// MiniMaxM3Attention, a plain Attention, on the others. Both cache num_key_value_heads x head_dim K and V
// (FullAttentionSpec, KV heads split or replicated over tensor parallelism). A sparse layer's
// MiniMaxM3Indexer also keeps one sparse_index_dim key a token (common/indexer.py at 0484480,
// MiniMaxM3IndexerCache.get_kv_cache_spec: an MLAAttentionSpec of one head, whatever the tensor parallelism)
// in attention_config.indexer_kv_dtype: bf16 by default (the AttentionConfig field's default, later "auto"
// resolved to bf16 for MiniMax-M3), 1-byte fp8 under --attention-config. MLAAttentionSpec is a
// FullAttentionSpec, so vLLM keeps every layer in one uniform-type group whose page is the sum of the pages
// (kv_cache_interface.py at 001cabc, UniformTypeKVCacheSpecs.is_uniform_type): the indexer's key adds to its
// layer's bytes a token. vLLM sets the block to sparse_block_size ("Setting KV cache block size to 128 to
// match MiniMax-M3 sparse block size (was 16)", vLLM 0.23.1rc1;
// MiniMaxM3IndexerBackend.get_supported_kernel_block_sizes is [128]).
Result<bool> from_minimax_m3_sparse(const Fields& f, ModelSpec& m, Plan& p, std::uint64_t layers) {
    const json* cfg = f.find("sparse_attention_config");
    if (!cfg)
        return f.error(
            code::missing_field, "sparse_attention_config",
            "missing: MiniMax-M3's sparse layers, their indexer keys and vLLM's block size are read "
            "from it");
    const std::string field = f.path("sparse_attention_config");
    if (!cfg->is_object())
        return field_error(code::invalid_value, field, "must be an object, got {}", described(*cfg));
    const Fields sc(*cfg, field);
    const json* freq = sc.find("sparse_attention_freq");
    if (!freq)
        return sc.error(code::missing_field, "sparse_attention_freq",
                        "missing: it marks the sparse layers (vLLM would make none sparse)");
    if (!freq->is_array())
        return sc.error(code::invalid_value, "sparse_attention_freq", "must be a list, got {}",
                        described(*freq));
    p.kinds.assign(layers, LayerKind::full_attention);
    p.names.assign(layers, "full_attention");
    std::uint64_t sparse = 0;
    for (std::size_t i = 0; i < freq->size() && i < layers; ++i) {
        const json& v = (*freq)[i];
        bool on = false;
        if (v.is_boolean()) {
            on = v.get<bool>();
        } else {
            auto n = checked_integer(v, format("{}[{}]", sc.path("sparse_attention_freq"), i), true);
            if (!n) return n.forward_error();
            on = *n != 0;
        }
        if (on) {
            p.names[i] = "minimax_m3_sparse";
            ++sparse;
        }
    }
    p.source = format("{}: {} sparse layers (a second cache of indexer keys), {} plain",
                      sc.path("sparse_attention_freq"), sparse, layers - sparse);
    auto block = sc.positive("sparse_block_size");
    if (!block) return block.forward_error();
    m.block_size = {block->value,
                    format("vLLM sets MiniMax-M3's block to {} {}", block->source, block->value)};
    if (sparse == 0) return true;
    auto dim = sc.positive("sparse_index_dim");
    if (!dim) return dim.forward_error();
    p.indexed_name = "minimax_m3_sparse";
    p.indexer = *dim;
    return true;
}

// HRM-Text: vllm/model_executor/models/hrm_text.py HrmTextAttention.__init__: the L stack's layers (the first
// num_layers_per_stack) run at H_cycles x L_cycles recurrence steps, the H stack's at H_cycles, and each step
// registers its own PrefillPrefixLMAttention (a FullAttentionSpec marked non-causal) under a unique index:
// one cache per step and layer. H_cycles and L_cycles are read with no default. The steps' attention takes
// the model's cache_config as any Attention does (from_sliding); a window there is refused.
Result<bool> from_hrm_stacks(const Fields& f, const ModelSpec& m, Plan& p, std::uint64_t layers) {
    auto base = from_sliding(f, p, layers, m.model_type);
    if (!base) return base;
    auto full = refuse_windows(
        f, p, "HRM-Text's layers",
        "vLLM's hrm_text.py gives every recurrence step an attention of the model's cache_config");
    if (!full) return full;
    auto high = f.positive("H_cycles");
    if (!high) return high.forward_error();
    auto low = f.positive("L_cycles");
    if (!low) return low.forward_error();
    auto steps = mul(high->value, low->value);
    if (!steps || *steps > 1000)
        return field_error(code::invalid_value, low->source,
                           "{} {} x {} {} recurrence steps is beyond any real model (at most 1000)",
                           high->source, high->value, low->source, low->value);
    const std::uint64_t per_stack = layers / 2;
    for (std::uint64_t i = 0; i < layers; ++i) {
        const bool l_stack = i < per_stack;
        p.names[i] = l_stack ? "L_stack_attention" : "H_stack_attention";
        p.per_layer.push_back(static_cast<std::uint32_t>(l_stack ? *steps : high->value));
    }
    p.source = format(
        "{} {}, {} {}: the L stack's layers keep {} caches each, the H stack's {} (vLLM hrm_text.py "
        "HrmTextAttention)",
        high->source, high->value, low->source, low->value, *steps, high->value);
    return true;
}

Result<StateShape> read_state(const Fields& f, Mixer mixer, const ModelSpec& m) {
    StateShape s;
    auto need = [&](const Fields& src, const char* n) { return src.positive(n); };
    if (mixer == Mixer::gated_delta_net) {
        auto k = need(f, "linear_conv_kernel_dim");
        auto nk = need(f, "linear_num_key_heads");
        auto dk = need(f, "linear_key_head_dim");
        auto nv = need(f, "linear_num_value_heads");
        auto dv = need(f, "linear_value_head_dim");
        for (auto* r : {&k, &nk, &dk, &nv, &dv})
            if (!*r) return r->forward_error();
        s.mixer = "gated_delta_net";
        s.conv_rows = k->value - 1;
        s.conv_channels = 2 * nk->value * dk->value + nv->value * dv->value;
        s.ssm_heads = nv->value;
        s.ssm_head_elements = dv->value * dk->value;
        s.conv_bits = m.model_dtype_bits == 32 ? 16 : m.model_dtype_bits;
        s.ssm_bits = s.conv_bits;
        s.source = format(
            "conv ({} {} - 1) x (2 x {} {} x {} {} + {} {} x {} {}), state {} {} x {} {} x {} {}", k->source,
            k->value, nk->source, nk->value, dk->source, dk->value, nv->source, nv->value, dv->source,
            dv->value, nv->source, nv->value, dv->source, dv->value, dk->source, dk->value);
    } else if (mixer == Mixer::mamba2) {
        // The field names of Nemotron-H, of Bamba / Granite 4 (mamba_*), and of HF's Mamba2Config;
        // the inner width I is heads x head size (Nemotron-H) or expand x hidden_size.
        struct Names {
            const char *conv, *heads, *head_dim, *groups, *state, *expand;
        };
        // Zamba2: mamba_ngroups, n_mamba_heads, and a head size Zamba2Config derives as the inner width
        // over the heads (zamba2.py Zamba2MambaDecoderLayer).
        // PLaMo2: plamo2.py get_mamba_state_shape_from_config, mamba2_state_shape with I = mamba_num_heads x
        // hidden_size_per_head, heads of hidden_size_per_head, and n_groups=0 (no B/C channels in the conv).
        const Names names =
            m.family == "plamo2"      ? Names{"mamba_d_conv", "mamba_num_heads", "hidden_size_per_head",
                                         nullptr,        "mamba_d_state",   nullptr}
            : m.family == "zamba2"    ? Names{"mamba_d_conv",  "n_mamba_heads", nullptr,
                                           "mamba_ngroups", "mamba_d_state", "mamba_expand"}
            : f.find("mamba_n_heads") ? Names{"mamba_d_conv",   "mamba_n_heads", "mamba_d_head",
                                              "mamba_n_groups", "mamba_d_state", "mamba_expand"}
            : m.model_type == "mamba2"
                ? Names{"conv_kernel", "num_heads", "head_dim", "n_groups", "state_size", "expand"}
                : Names{"conv_kernel", "mamba_num_heads", "mamba_head_dim",
                        "n_groups",    "ssm_state_size",  nullptr};
        auto k = need(f, names.conv);
        auto heads = need(f, names.heads);
        auto groups =
            names.groups ? need(f, names.groups) : Result<Sourced>(Sourced{0, "vLLM plamo2.py n_groups"});
        auto dstate = need(f, names.state);
        for (auto* r : {&k, &heads, &groups, &dstate})
            if (!*r) return r->forward_error();
        Sourced inner, hd;
        if (names.expand) {
            auto e = need(f, names.expand);
            if (!e) return e.forward_error();
            if (!m.hidden_size.value)
                return f.error(code::missing_field, "hidden_size",
                               "missing (the Mamba inner width is {} x hidden_size)", names.expand);
            auto i = mul(e->value, m.hidden_size.value);
            if (!i)
                return f.error(code::invalid_value, names.expand, "{} x hidden_size is too large",
                               names.expand);
            inner = {*i,
                     format("{} {} x {} {}", e->source, e->value, m.hidden_size.source, m.hidden_size.value)};
        }
        // Falcon-H1: the inner width is mamba_d_ssm, else mamba_expand x hidden_size (falcon_h1.py
        // get_mamba_state_shape_from_config; FalconH1Config's default mamba_d_ssm is 1024).
        if (m.family == "falcon_h1" && f.find("mamba_d_ssm")) {
            auto d = need(f, "mamba_d_ssm");
            if (!d) return d.forward_error();
            inner = *d;
        }
        // A head size written as "auto" (Bamba, Granite 4) is the inner width over the heads.
        const json* hdv = names.head_dim ? f.find(names.head_dim) : nullptr;
        if (!names.head_dim) {
            if (inner.value % heads->value != 0)
                return fail(code::inconsistent, heads->source,
                            "{} {} does not divide the Mamba inner width {} {}", heads->source, heads->value,
                            inner.source, inner.value);
            hd = {inner.value / heads->value,
                  format("{} / {} {}", inner.source, heads->source, heads->value)};
        } else if (hdv && hdv->is_string() && *hdv == "auto" && inner.value) {
            if (inner.value % heads->value != 0)
                return fail(code::inconsistent, f.path(names.head_dim),
                            "{} \"auto\": {} is not divisible by {} {}", f.path(names.head_dim), inner.value,
                            heads->source, heads->value);
            hd = {inner.value / heads->value,
                  format("{} / {} {}", inner.source, heads->source, heads->value)};
        } else {
            auto h = need(f, names.head_dim);
            if (!h) return h.forward_error();
            hd = *h;
        }
        if (!names.expand) inner = {heads->value * hd.value, format("{} x {}", heads->source, hd.source)};
        if (m.family == "falcon_h1" && heads->value * hd.value != inner.value)
            return fail(code::inconsistent, f.path(names.head_dim),
                        "{} {} x {} {} is not the Mamba inner width {} {} (FalconH1Config refuses it)",
                        heads->source, heads->value, hd.source, hd.value, inner.source, inner.value);
        auto channels = add(inner.value, mul(mul(2, groups->value), dstate->value));
        auto elements = mul(hd.value, dstate->value);
        if (!channels || !elements)
            return fail(code::invalid_value, f.path(names.state),
                        "the Mamba-2 state of this config is too large");
        s.mixer = "mamba2";
        s.conv_rows = k->value - 1;
        s.conv_channels = *channels;
        s.groups = groups->value;
        s.group_channels = 2 * dstate->value;
        s.ssm_heads = heads->value;
        s.ssm_head_elements = *elements;
        s.conv_bits = m.model_dtype_bits == 32 ? 16 : m.model_dtype_bits;
        s.ssm_bits = s.conv_bits;
        s.source = format("conv ({} {} - 1) x ({} {} + 2 x {} {} x {} {}), state {} {} x {} {} x {} {}",
                          k->source, k->value, inner.source, inner.value, groups->source, groups->value,
                          dstate->source, dstate->value, heads->source, heads->value, hd.source, hd.value,
                          dstate->source, dstate->value);
    } else if (mixer == Mixer::mamba1) {
        // Jamba's mamba_* fields, or MambaConfig's; the inner width I is mamba_expand x
        // hidden_size (Jamba) or intermediate_size (Mamba, whose class derives it from expand).
        const bool jamba = m.model_type == "jamba";
        auto k = need(f, jamba ? "mamba_d_conv" : "conv_kernel");
        auto dstate = need(f, jamba ? "mamba_d_state" : "state_size");
        for (auto* r : {&k, &dstate})
            if (!*r) return r->forward_error();
        Sourced inner;
        if (!jamba && f.find("intermediate_size")) {
            auto i = need(f, "intermediate_size");
            if (!i) return i.forward_error();
            inner = *i;
        } else {
            const char* expand = jamba ? "mamba_expand" : "expand";
            auto e = need(f, expand);
            if (!e) return e.forward_error();
            if (!m.hidden_size.value)
                return f.error(code::missing_field, "hidden_size",
                               "missing (the Mamba inner width is {} x hidden_size)", expand);
            auto i = mul(e->value, m.hidden_size.value);
            if (!i) return f.error(code::invalid_value, expand, "{} x hidden_size is too large", expand);
            inner = {*i,
                     format("{} {} x {} {}", e->source, e->value, m.hidden_size.source, m.hidden_size.value)};
        }
        auto elements = mul(inner.value, dstate->value);
        if (!elements)
            return fail(code::invalid_value, f.path(jamba ? "mamba_d_state" : "state_size"),
                        "the Mamba state of this config is too large");
        s.mixer = "mamba1";
        s.conv_rows = k->value - 1;
        s.conv_channels = inner.value;
        s.ssm_heads = inner.value;  // sharded with the inner width
        s.ssm_head_elements = dstate->value;
        s.conv_bits = m.model_dtype_bits == 32 ? 16 : m.model_dtype_bits;
        s.ssm_bits = s.conv_bits;
        s.source = format("conv ({} {} - 1) x {} {}, state {} {} x {} {}", k->source, k->value, inner.source,
                          inner.value, inner.source, inner.value, dstate->source, dstate->value);
    } else if (mixer == Mixer::lightning) {
        // vLLM minimax_text_01.py get_mamba_state_shape_from_config /
        // MiniMaxText01LinearAttention.get_state_shape: mamba_utils.py linear_attention_state_shape, one
        // (num_attention_heads / tp) x head_dim x head_dim state in linear_attention_state_dtype, the model
        // dtype (mamba_cache_dtype auto). No conv state. The page sizes read hf_config.head_dim, so it must
        // be set.
        // Bailing linear (BailingMoeV2_5): layers/mamba/linear/base.py LinearAttention.get_state_shape, the
        // same shape with head_dim, else hidden_size // num_attention_heads.
        Result<Sourced> hd = Sourced{};
        if (m.family == "bailing_moe_linear" && !f.find("head_dim")) {
            if (m.hidden_size.value == 0 || m.hidden_size.value % m.query_heads.value != 0)
                return f.error(code::missing_field, "head_dim",
                               "missing, and hidden_size / num_attention_heads gives no whole head size");
            hd = Sourced{m.hidden_size.value / m.query_heads.value,
                         format("{} / {}", m.hidden_size.source, m.query_heads.source)};
        } else {
            hd = need(f, "head_dim");
        }
        if (!hd) return hd.forward_error();
        auto elements = mul(hd->value, hd->value);
        if (!elements) return f.error(code::invalid_value, "head_dim", "is too large");
        s.mixer = "lightning_attention";
        s.ssm_heads = m.query_heads.value;
        s.ssm_head_elements = *elements;
        s.conv_bits = m.model_dtype_bits == 32 ? 16 : m.model_dtype_bits;
        s.ssm_bits = s.conv_bits;
        s.source = format("state {} {} x {} {} x {} {}", m.query_heads.source, m.query_heads.value,
                          hd->source, hd->value, hd->source, hd->value);
        return s;
    } else if (mixer == Mixer::short_conv) {
        // vLLM lfm2.py / lfm2_moe.py / lfm2_vl.py get_mamba_state_shape_from_config and
        // ShortConv.get_state_shape (layers/mamba/short_conv.py),
        // MambaStateShapeCalculator.short_conv_state_shape (mamba_utils.py): one conv state of (conv_L_cache
        // - 1) x dim / tp, dim = conv_dim for Lfm2ForCausalLM's ShortConv, hidden_size for LFM2-MoE's;
        // short_conv_state_dtype: the model dtype (mamba_cache_dtype auto). No SSM state. LFM2-VL aligns the
        // attention block to a state of text_config.hidden_size (lfm2_vl.py), so a text model whose conv_dim
        // differs is refused rather than guessed.
        const bool moe = m.model_type == "lfm2_moe";
        auto k = need(f, "conv_L_cache");
        if (!k) return k.forward_error();
        if (k->value < 2)
            return f.error(code::invalid_value, "conv_L_cache",
                           "must be at least 2 (the state keeps conv_L_cache - 1 columns), got {}", k->value);
        Sourced dim = m.hidden_size;
        if (!moe) {
            auto d = need(f, "conv_dim");
            if (!d) return d.forward_error();
            dim = *d;
            if (!m.text_path.empty() && dim.value != m.hidden_size.value)
                return f.error(
                    code::unsupported, "conv_dim",
                    "{} differs from {} {}: vLLM's LFM2-VL sizes the state pages from hidden_size but "
                    "its layers from conv_dim, which kvcalc does not model",
                    dim.value, m.hidden_size.source, m.hidden_size.value);
        } else if (!dim.value) {
            return f.error(code::missing_field, "hidden_size",
                           "missing (LFM2-MoE's conv state is hidden_size wide)");
        }
        s.mixer = "short_conv";
        s.conv_rows = k->value - 1;
        s.conv_channels = dim.value;
        s.conv_bits = m.model_dtype_bits == 32 ? 16 : m.model_dtype_bits;
        s.ssm_bits = s.conv_bits;
        s.source =
            format("conv ({} {} - 1) x {} {}, no SSM state", k->source, k->value, dim.source, dim.value);
    } else {
        const json* cfg = f.find("linear_attn_config");
        Fields lf(*cfg, f.path("linear_attn_config"));
        auto k = need(lf, "short_conv_kernel_size");
        auto heads = need(lf, "num_heads");
        auto hd = need(lf, "head_dim");
        for (auto* r : {&k, &heads, &hd})
            if (!*r) return r->forward_error();
        s.mixer = "kda";
        s.conv_rows = k->value - 1;
        s.conv_channels = 3 * heads->value * hd->value;
        s.ssm_heads = heads->value;
        s.ssm_head_elements = hd->value * hd->value;
        s.conv_bits = m.model_dtype_bits == 32 ? 16 : m.model_dtype_bits;
        s.ssm_bits = 32;  // the KDA recurrent state is kept in float32
        s.source = format("conv ({} {} - 1) x 3 x {} {} x {} {}, float32 state {} {} x {} {} x {} {}",
                          k->source, k->value, heads->source, heads->value, hd->source, hd->value,
                          heads->source, heads->value, hd->source, hd->value, hd->source, hd->value);
    }
    if (s.conv_rows == 0 && s.conv_channels == 0) s.conv_channels = 0;
    // The SSM state may be kept in another dtype (Qwen3.5: mamba_ssm_dtype float32).
    for (const char* n : {"mamba_ssm_dtype", "mamba_ssm_cache_dtype"}) {
        auto d = f.text(n);
        if (!d) return d.forward_error();
        if (d->empty()) continue;
        if (*d == "float32")
            s.ssm_bits = 32;
        else if (*d == "bfloat16" || *d == "float16")
            s.ssm_bits = 16;
        else
            return f.error(code::invalid_value, n,
                           "unknown dtype \"{}\" (expected float32, bfloat16 or float16)", *d);
        format_to(s.source, " (state in {} from {})", *d, f.source(n));
        break;
    }
    return s;
}

Result<Mixer> pick_mixer(const Fields& f, const Plan& p, const ModelSpec& m) {
    const std::string& model_type = m.model_type;
    if (m.family == "lfm2") return Mixer::short_conv;
    if (m.family == "zamba2" || m.family == "plamo2") return Mixer::mamba2;
    if (m.family == "minimax_text_01" || m.family == "bailing_moe_linear") return Mixer::lightning;
    if (p.kda_layers || f.find("linear_attn_config")) return Mixer::kda;
    if (model_type == "jamba" || model_type == "mamba" || model_type == "falcon_mamba") return Mixer::mamba1;
    if (f.find("linear_num_value_heads")) return Mixer::gated_delta_net;
    if (f.find("mamba_num_heads") || f.find("ssm_state_size") || f.find("mamba_n_heads") ||
        model_type == "mamba2")
        return Mixer::mamba2;
    return f.error(code::missing_field, "linear_num_value_heads",
                   "missing: the config has linear-attention layers but no state dimensions (looked for "
                   "linear_num_value_heads, mamba_num_heads, mamba_n_heads, linear_attn_config)");
}

// The first of the fields DiffusionGemma's Gemma 4 layers read that the config leaves out, or nullptr.
const char* diffusion_gemma_missing(const Fields& f) {
    for (const char* name :
         {"layer_types", "head_dim", "global_head_dim", "num_global_key_value_heads", "sliding_window"})
        if (!f.find(name)) return name;
    return nullptr;
}

// What the plan leaves out on purpose, said where it matters (fields that change the cache
// in ways kvcalc does not model are refused before: config_reader.cpp check_architecture).
void warn_unmodelled(const Fields& f, ModelSpec& m) {
    for (const char* mtp : {"num_nextn_predict_layers", "mtp_num_hidden_layers"}) {
        const json* v = f.find(mtp);
        auto n = v ? checked_integer(*v, f.path(mtp), true) : Result<std::uint64_t>(std::uint64_t{0});
        if (n && *n > 0)
            m.warnings.push_back(
                {f.path(mtp),
                 format("{} multi-token-prediction layer(s) not counted: their cache exists only "
                        "with speculative decoding (see num_speculative_tokens)",
                        *n)});
    }
    auto keqv = f.flag("attention_k_eq_v", false);
    if (keqv && *keqv)
        m.warnings.push_back({f.path("attention_k_eq_v"),
                              "attention_k_eq_v is true: the cache is still sized with separate K and V, "
                              "as vLLM allocates it"});
    // DiffusionGemma (the architectures table says what was read): its canvas changes no figure, but vLLM
    // caps the requests it runs and keeps diffusion state beside the pool.
    if (m.family == "diffusion_gemma")
        m.warnings.push_back(
            {"canvas_length",
             "DiffusionGemma's canvas (canvas_length, vLLM's default 256) is scheduled as draft tokens "
             "within the context: the pool and the concurrency vLLM reports are the Gemma 4 text model's. "
             "vLLM runs at most 8 requests at once unless max_num_seqs is given, and its per-request "
             "diffusion state (max_num_seqs x canvas_length x hidden_size fp32 self-conditioning embeddings, "
             "and the sampler's canvas x vocabulary scratch) lies outside the KV pool, not in a pool kvcalc "
             "derives from a GPU's memory"});
}

// Unlimited-OCR (vLLM unlimited_ocr.py UnlimitedOCRForCausalLM, a DeepseekOCRForCausalLM on language_config):
// DeepseekV2DecoderLayer takes the plain DeepseekAttention when qk_nope_head_dim and qk_rope_head_dim are
// both 0 (use_mha; DeepseekV2Config would default them to 128 and 64, so both must be in the config),
// whatever kv_lora_rank says. DeepseekAttention caches config.num_key_value_heads (read with no default) of
// hidden_size / num_attention_heads, a head_dim field unread.
// UnlimitedOCRForCausalLMConfig.verify_and_update_model_config (vLLM models/config.py) sets
// hf_config.rswa_window to 128 when absent, so every layer is an RSWAAttention
// (layers/attention/rswa_attention.py), whose get_kv_cache_spec returns an RSWASpec with no sliding window:
// a FullAttentionSpec subclass that keeps FullAttentionSpec.max_memory_usage_bytes (kv_cache_interface.py),
// so vLLM reserves and counts full attention over max_model_len, whatever sliding_window the text config
// carries.
Result<bool> unlimited_ocr_attention(const Fields& f, ModelSpec& m, const Sourced& head_dim) {
    for (const char* need : {"qk_nope_head_dim", "qk_rope_head_dim"}) {
        if (!f.find(need))
            return f.error(code::missing_field, need,
                           "missing: vLLM's DeepseekV2Config would take its MLA default, and kvcalc does not "
                           "guess which attention Unlimited-OCR's checkpoint means");
        auto v = f.non_negative(need);
        if (!v) return v.forward_error();
        if (v->value != 0)
            return f.error(code::unsupported, need,
                           "is {}: Unlimited-OCR's DeepseekV2DecoderLayer then builds MLA attention, which "
                           "kvcalc does not model for it (vLLM takes the plain DeepseekAttention only when "
                           "qk_nope_head_dim and qk_rope_head_dim are both 0)",
                           v->value);
    }
    if (!f.find("num_key_value_heads"))
        return f.error(code::missing_field, "num_key_value_heads",
                       "missing (vLLM's DeepseekAttention reads it with no default)");
    if (f.find("head_dim") && head_dim.value * m.query_heads.value != m.hidden_size.value)
        return f.error(code::unsupported, "head_dim",
                       "{} is not {} {} / {} {}: vLLM's DeepseekAttention uses the latter, its page sizes "
                       "(ModelConfig.get_head_size) the former, which kvcalc does not model",
                       head_dim.value, m.hidden_size.source, m.hidden_size.value, m.query_heads.source,
                       m.query_heads.value);
    m.warnings.push_back(
        {"rswa_window",
         "R-SWA (rswa_window, 128 unless the config sets it): vLLM reserves and counts full attention over "
         "max_model_len for every layer (RSWASpec is a FullAttentionSpec), as this figure does; at run time "
         "its RSWAManager frees the blocks of generated tokens that fall behind the window, so a request "
         "that "
         "generates more than rswa_window tokens holds less than this"});
    return true;
}

}  // namespace

Result<bool> build_layer_plan(const Fields& f, ModelSpec& m, const Sourced& kv_heads,
                              const Sourced& head_dim) {
    const std::uint64_t layers = m.num_layers.value;
    Plan p;
    Result<bool> r = true;
    const std::string& mt = m.model_type;
    // vLLM's Lfm2Attention / Lfm2MoeAttention keep hidden_size / num_attention_heads per head while its page
    // sizes (ModelConfig.get_head_size) read head_dim: a config where they differ is not guessed at. So do
    // chameleon.py ChameleonAttention and molmo.py MolmoAttention (head_dim = hidden_size //
    // total_num_heads).
    const bool head_from_hidden = m.family == "lfm2" || m.family == "chameleon" || m.family == "molmo";
    if (head_from_hidden && f.find("head_dim") && head_dim.value * m.query_heads.value != m.hidden_size.value)
        return f.error(code::unsupported, "head_dim",
                       "{} is not {} {} / {} {}: vLLM's {} layers use the latter, its page sizes the former, "
                       "which kvcalc does not model",
                       head_dim.value, m.hidden_size.source, m.hidden_size.value, m.query_heads.source,
                       m.query_heads.value,
                       m.family == "lfm2"        ? "LFM2"
                       : m.family == "chameleon" ? "Chameleon"
                                                 : "Molmo");
    // The Omni thinkers' decoders (Qwen2ForCausalLM, Qwen3MoeLLMForCausalLM, Qwen3ForCausalLM on
    // thinker_config.text_config) each read their windows their own way; every published thinker has
    // use_sliding_window false. A window that may be on is refused rather than read by one decoder's rule.
    // Molmo2: molmo2.py Molmo2TextModel copies num_key_value_heads and head_dim from text_config (or
    // llm_config) with no default; Molmo2Attention caches num_key_value_heads of head_dim.
    // Step-3: Step3TextAttention caches head_dim, which the decoder layer reads from the config.
    if (m.family == "step3_text" && !f.find("head_dim"))
        return f.error(code::missing_field, "head_dim", "missing (vLLM's Step-3 attention reads it)");
    // Ouro and IQuest-LoopCoder: the decoder layer reads config.num_key_value_heads and hidden_size with no
    // default (ouro.py OuroDecoderLayer, iquest_loopcoder.py LoopCoderDecoderLayer).
    const bool looped = m.family == "ouro" || m.family == "iquest_loopcoder";
    if (looped)
        for (const char* need : {"num_key_value_heads", "hidden_size"})
            if (!f.find(need))
                return f.error(code::missing_field, need, "missing (vLLM's {} attention reads it)",
                               m.family == "ouro" ? "Ouro" : "IQuest-LoopCoder");
    PanguAttention pangu;
    if (m.family == "openpangu") {
        auto a = openpangu_attention(f, m);
        if (!a) return a.forward_error();
        pangu = *a;
    }
    if (m.family == "molmo2")
        for (const char* need : {"num_key_value_heads", "head_dim"})
            if (!f.find(need))
                return f.error(code::missing_field, need, "missing (vLLM's Molmo2 text model reads it)");
    // PLaMo3: plamo3.py Plamo3AttentionMixer reads config.num_key_value_heads and config.head_dim; the remote
    // Plamo3Config's defaults are not taken.
    if (m.family == "plamo3")
        for (const char* need : {"num_key_value_heads", "head_dim"})
            if (!f.find(need))
                return f.error(code::missing_field, need, "missing (vLLM's PLaMo3 attention reads it)");
    if (m.family == "qwen_omni_thinker") {
        auto use = f.flag("use_sliding_window", false);
        if (!use) return use.forward_error();
        const json* w = f.find("sliding_window");
        if (*use || (w && !w->is_null() && !f.find("use_sliding_window")))
            return f.error(
                code::unsupported, *use ? "use_sliding_window" : "sliding_window",
                "a sliding window in the thinker's text model is not modelled (vLLM's Omni thinkers "
                "build it through Qwen2 / Qwen3 / Qwen3-MoE decoders whose window rules kvcalc does "
                "not read here)");
    }
    if (m.family == "unlimited_ocr") {
        auto u = unlimited_ocr_attention(f, m, head_dim);
        if (!u) return u.forward_error();
    }
    if (mt == "mamba" || mt == "falcon_mamba" || mt == "mamba2") {
        p.kinds.assign(layers, LayerKind::linear_state);
        p.names.assign(layers, "mamba");
        p.source = format("model_type {}: a Mamba layer each, no attention", mt);
    } else if (m.family == "falcon_h1") {
        // vLLM falcon_h1.py FalconH1ParallelHybrid: every layer builds FalconH1AttentionDecoderLayer (an
        // Attention, FullAttentionSpec) and FalconH1SSMDecoderLayer (a MambaMixer2 under its own layer name).
        p.kinds.assign(layers, LayerKind::full_attention);
        p.names.assign(layers, "attention");
        p.second_kind = LayerKind::linear_state;
        p.second.assign(layers, true);
        p.second_name = "mamba (beside attention)";
        p.source = "falcon_h1: attention and a Mamba-2 state in every layer";
    } else if (m.family == "minimax_text_01")
        r = from_attn_type_list(f, p, layers, mt);
    else if (m.family == "zamba2")
        r = from_zamba2_blocks(f, m, p, layers);
    else if (m.family == "nemotron_nas")
        r = from_block_configs(f, m.query_heads, p, layers);
    else if (m.family == "mimo_v2")
        r = from_mimo_pattern(f, p, layers);
    else if (m.family == "plamo2")
        r = from_plamo2_step(f, p, layers);
    else if (m.family == "plamo3")
        r = from_plamo3_pattern(f, p, layers);
    else if (m.family == "ouro" || m.family == "iquest_loopcoder")
        r = from_loop_steps(f, m, p, layers);
    else if (m.family == "hrm_text")
        r = from_hrm_stacks(f, m, p, layers);
    else if (m.family == "minimax_m3")
        r = from_minimax_m3_sparse(f, m, p, layers);
    else if (pangu.sink) {
        // static_sink_attention.py StaticSinkAttention.get_kv_cache_spec: a SinkFullAttentionSpec, no window.
        p.kinds.assign(layers, LayerKind::full_attention);
        p.names.assign(layers, "sink_attention");
        p.source =
            format("{}: openPangu's sink attention on every layer, full (vLLM's SinkFullAttentionSpec)",
                   f.path("param_sink_number"));
    } else if (m.family == "step3p5")
        r = from_step3p5(f, m, p, layers, kv_heads, head_dim);
    else if (m.family == "longcat_flash") {
        // vLLM longcat_flash.py FlashDecoderLayer: self_attn is two DeepseekV2MLAAttention (self_attn.0 and
        // self_attn.1), each an MLA layer with its own cache (MLAAttentionSpec): the second is this layer's
        // second cache, of the same geometry. FlashModel builds FlashConfig.num_hidden_layers decoder layers
        // (num_hidden_layers, else num_layers); transformers' LongcatFlashConfig counts the attention
        // sublayers there instead (2 x num_layers), so a config where the two differ is not guessed at.
        const json* nh = f.find("num_hidden_layers");
        const json* nl = f.find("num_layers");
        if (nh && nl && *nh != *nl)
            return f.error(
                code::unsupported, "num_hidden_layers",
                "{} differs from num_layers {}: vLLM's LongCat-Flash builds num_hidden_layers decoder "
                "layers (FlashConfig) where transformers' LongcatFlashConfig counts two attention "
                "sublayers a layer, and which this checkpoint means is not guessed",
                described(*nh), described(*nl));
        p.kinds.assign(layers, LayerKind::full_attention);
        p.names.assign(layers, "full_attention");
        p.second_kind = LayerKind::full_attention;
        p.second.assign(layers, true);
        p.second_name = "mla_attention (second)";
        p.source = "longcat_flash: two MLA attentions, each with its own cache, in every decoder layer";
    } else if (encoder_decoder(m.family)) {
        // vLLM whisper.py WhisperDecoderLayer, fireredlid.py FireRedLIDDecoderLayer, cohere_asr.py
        // CohereASRDecoderLayer, nemotron_parse.py MBartDecoderLayer: a self-attention (Attention,
        // FullAttentionSpec) and a cross-attention (CrossAttention, CrossAttentionSpec) of the same heads and
        // head size; the encoder caches nothing.
        p.kinds.assign(layers, LayerKind::full_attention);
        p.names.assign(layers, "self_attention");
        p.second_kind = LayerKind::full_attention;
        p.second.assign(layers, true);
        p.second_name = "cross_attention";
        p.source = format("{}: a self-attention and a cross-attention to the encoder in every decoder layer",
                          m.family);
    } else if (m.family == "unlimited_ocr") {
        // RSWAAttention on every layer, an RSWASpec without a window (unlimited_ocr_attention above).
        p.kinds.assign(layers, LayerKind::full_attention);
        p.names.assign(layers, "rswa_attention");
        p.source =
            "unlimited_ocr: R-SWA attention on every layer, reserved as full attention (vLLM's RSWASpec)";
    } else if (m.family == "chameleon" || m.family == "molmo" || m.family == "molmo2" ||
               m.family == "step3_text" || m.family == "moondream3") {
        // chameleon.py ChameleonAttention, molmo.py MolmoAttention, molmo2.py Molmo2Attention, step3_text.py
        // Step3TextAttention, moondream3.py Moondream3Attention: an Attention with no window on every layer,
        // whatever window fields the config carries.
        p.kinds.assign(layers, LayerKind::full_attention);
        p.names.assign(layers, "full_attention");
        p.source = format("{}: full attention on every layer (vLLM's attention takes no window)", m.family);
    } else if (m.family == "bailing_moe_linear")
        r = from_bailing_groups(f, p, layers);
    else if (const char* missing = m.family == "diffusion_gemma" ? diffusion_gemma_missing(f) : nullptr)
        // vLLM's own DiffusionGemmaTextConfig (transformers_utils/configs/diffusion_gemma.py) is a bare
        // PretrainedConfig with no defaults, transformers' a Gemma4TextConfig with its own: a field the file
        // leaves out has no one value, so kvcalc names it.
        r = f.error(
            code::missing_field, missing,
            "missing: DiffusionGemma's Gemma 4 geometry (layer_types, head_dim, global_head_dim, "
            "num_global_key_value_heads, sliding_window) is read from the config, and the config classes "
            "that could fill it disagree");
    else if (m.family == "gemma4" && !f.find("layer_types"))
        // transformers' Gemma4TextConfig.__post_init__ (008e574 and 351f643 alike) fills a missing
        // layer_types as every 6th layer full and forces the last one full (the class table's layer_types
        // row).
        r = from_gemma4_default(f, p, layers);
    else if (const json* lt = f.find("layer_types");
             lt && m.family == "gemma4" && lt->is_array() && !lt->empty() && lt->back() != "full_attention")
        // The same __post_init__ forces the last layer to full_attention, whatever layer_types says.
        r = fail(
            code::inconsistent, format("{}[{}]", f.path("layer_types"), lt->size() - 1),
            "{}[{}]: must be \"full_attention\": transformers' Gemma4TextConfig makes Gemma 4's last layer "
            "full attention whatever the config says, got {}",
            f.path("layer_types"), lt->size() - 1, described(lt->back()));
    else if (m.family == "dots1")
        r = from_dots1(f, p, layers);
    else if (m.family == "granitemoehybrid" && !f.find("layer_types"))
        // vLLM granitemoehybrid.py GraniteMoeHybridModel get_layer indexes config.layer_types, which
        // GraniteMoeHybridConfig leaves None when absent (its layers_block_type alone says every layer
        // mamba).
        r = f.error(code::missing_field, "layer_types",
                    "missing: vLLM's GraniteMoeHybrid builds each layer from layer_types, which the config "
                    "class leaves None");
    else if (m.family == "nemotron_h" && !f.find("hybrid_override_pattern"))
        // vLLM's NemotronHConfig (transformers_utils/configs/nemotron_h.py a59ddf7) defaults it to a 52-layer
        // pattern; transformers' (nemotron_h/configuration_nemotron_h.py cfeb552) to layers_block_type
        // mamba, moe, attention, moe. Which class loads the config is not guessed.
        r = f.error(code::missing_field, "hybrid_override_pattern",
                    "missing: vLLM's and transformers' Nemotron-H config classes default it differently");
    else if (m.family == "olmo_hybrid" && !f.find("layer_types"))
        r = f.error(code::missing_field, "layer_types",
                    "missing: OLMo Hybrid's full-attention and gated-delta-net layers are read from it, and "
                    "vLLM's OlmoHybridConfig default was not read");
    else if (const json* lt = f.find("layer_types"))
        r = from_layer_types(f, *lt, p, layers, m.family);
    else if (f.find("hybrid_override_pattern"))
        r = from_hybrid_pattern(f, p, layers);
    else if (const json* lac = f.find("linear_attn_config"))
        r = from_linear_attn_config(f, *lac, p, layers);
    else if (mt == "jamba")
        r = from_period(f, p, layers);
    else if (m.family == "bamba" && !f.find("attn_layer_indices")) {
        // BambaConfig.layers_block_type: "attention" only on attn_layer_indices, which is None by default, so
        // every layer is mamba (vLLM bamba.py BambaModel get_layer reads layers_block_type).
        p.kinds.assign(layers, LayerKind::linear_state);
        p.names.assign(layers, "mamba");
        p.source = f.pattern_source("attn_layer_indices");
    } else if (f.find("attn_layer_indices"))
        r = from_indices(f, "attn_layer_indices", "mamba", p, layers);
    else if (m.family == "lfm2")
        r = from_lfm2_default(f, p, layers, mt);
    else if (f.find("full_attention_interval"))
        r = every_nth(f, "full_attention_interval", p, layers, LayerKind::full_attention,
                      LayerKind::linear_state, "full_attention", "linear_attention");
    else if (f.find("attention_chunk_size"))
        r = from_chunked(f, p, layers);
    else
        r = from_sliding(f, p, layers, mt);
    if (!r) return r.forward_error();

    // Shared-KV layers (Gemma 3n style) reuse an earlier layer's cache.
    if (f.find("num_kv_shared_layers")) {
        auto shared = f.non_negative("num_kv_shared_layers");
        if (!shared) return shared.forward_error();
        if (shared->value >= layers)
            return field_error(code::inconsistent, shared->source,
                               "{} shared layers leave no layer with a cache of its own (the model has {})",
                               shared->value, layers);
        for (std::uint64_t i = layers - shared->value; i < layers; ++i) {
            p.kinds[i] = LayerKind::no_cache;
            p.names[i] = "kv_shared";
        }
    }

    // MLA: attention layers keep one latent of kv_lora_rank + qk_rope_head_dim.
    Sourced latent, latent_v, mla_k, mla_v, indexer;
    // MiniCPM3 compresses its projections through kv_lora_rank, but vLLM caches a plain Attention (below).
    // Unlimited-OCR's DeepseekAttention ignores kv_lora_rank (unlimited_ocr_attention).
    bool mla = f.find("kv_lora_rank") != nullptr && m.family != "minicpm3" && m.family != "unlimited_ocr";
    // Bailing linear's full layers are always MLA (BailingMoeV25MLAAttention); vLLM falls back on getattr
    // defaults for kv_lora_rank (512) and qk_rope_head_dim (64) there, which kvcalc asks to see instead.
    bool any_full = false;
    for (auto k : p.kinds)
        any_full |= k == LayerKind::full_attention;
    if (m.family == "bailing_moe_linear" && !mla && any_full)
        return f.error(code::missing_field, "kv_lora_rank",
                       "missing: Bailing linear's full-attention layers are MLA (vLLM would take 512)");
    if (mla && pangu.mla) {
        auto full = refuse_windows(
            f, p, "openPangu's MLA layers",
            "vLLM passes it only to the sink variant, StaticSinkMultiHeadLatentAttentionWrapper");
        if (!full) return full.forward_error();
    }
    // LongCat-Flash's attentions are always MLA (DeepseekV2MLAAttention); FlashConfig's default kv_lora_rank
    // (512) is not assumed.
    if (m.family == "longcat_flash" && !mla)
        return f.error(code::missing_field, "kv_lora_rank",
                       "missing: LongCat-Flash's attentions are MLA (vLLM's FlashConfig would take 512)");
    if (mla) {
        auto rank = f.positive("kv_lora_rank");
        if (!rank) return rank.forward_error();
        if (!f.find("qk_rope_head_dim"))
            return f.error(code::missing_field, "qk_rope_head_dim",
                           "missing, but kv_lora_rank is set (MLA caches kv_lora_rank + qk_rope_head_dim per "
                           "token)");
        auto rope = f.non_negative("qk_rope_head_dim");
        if (!rope) return rope.forward_error();
        latent = {rank->value + rope->value,
                  format("{} {} + {} {}", rank->source, rank->value, rope->source, rope->value)};
        latent_v = *rank;
        auto nope =
            f.find("qk_nope_head_dim") ? f.non_negative("qk_nope_head_dim") : Result<Sourced>(Sourced{});
        auto v = f.find("v_head_dim") ? f.positive("v_head_dim") : Result<Sourced>(Sourced{});
        if (!nope) return nope.forward_error();
        if (!v) return v.forward_error();
        if (f.find("index_head_dim")) {
            // DeepSeek-V3.2's sparse-attention indexer keeps its own key cache on every MLA
            // layer: fp8 keys with one fp32 scale per 128 (vLLM: index_head_dim + index_head_dim
            // / 128 x 4 bytes, uint8, whatever the KV dtype), reserved like the latent.
            auto ih = f.positive("index_head_dim");
            if (!ih) return ih.forward_error();
            auto bytes = add(ih->value, mul(ih->value / 128, 4));
            if (!bytes) return f.error(code::invalid_value, "index_head_dim", "is too large");
            indexer = {*bytes, format("{} {} + {} / 128 x 4 (fp8 keys and fp32 scales)", ih->source,
                                      ih->value, ih->source, ih->value)};
        }
        if (nope->value + rope->value > 0 && v->value > 0) {
            mla_k = {nope->value + rope->value,
                     format("{} {} + {} {}", nope->source, nope->value, rope->source, rope->value)};
            mla_v = *v;
        }
    }

    // Windows for sliding and chunked layers.
    Sourced window, chunk;
    bool any_sliding = false, any_chunked = false, any_linear = false;
    for (auto k : p.kinds) {
        any_sliding |= k == LayerKind::sliding_window;
        any_chunked |= k == LayerKind::chunked_local;
        any_linear |= k == LayerKind::linear_state;
    }
    if (any_sliding) {
        // MiMo-V2's sliding layers take sliding_window_size (mimo_v2.py MiMoV2FlashDecoderLayer).
        // PLaMo3's take window_size (the remote Plamo3Config's interleaved_sliding_window).
        auto w = f.positive(m.family == "mimo_v2"  ? "sliding_window_size"
                            : m.family == "plamo3" ? "window_size"
                                                   : "sliding_window");
        if (!w) return w.forward_error();
        window = *w;
    }
    if (any_chunked) {
        auto c = f.positive("attention_chunk_size");
        if (!c) return c.forward_error();
        chunk = *c;
    }
    StateShape state;
    if (any_linear || p.second_kind == LayerKind::linear_state) {
        auto mixer = pick_mixer(f, p, m);
        if (!mixer) return mixer.forward_error();
        auto s = read_state(f, *mixer, m);
        if (!s) return s.forward_error();
        state = *s;
    }

    // Full-attention layers may have their own geometry (Gemma 4): their head size global_head_dim whenever
    // given, their KV heads num_global_key_value_heads only with attention_k_eq_v (vLLM gemma4.py 001cabc
    // Gemma4DecoderLayer: getattr(config, "global_head_dim", head_dim) on full layers, and num_kv_heads =
    // num_global_key_value_heads if use_k_eq_v else num_key_value_heads). DiffusionGemma sets the flag
    // (diffusion_gemma.py DiffusionGemmaForConditionalGeneration.__init__).
    Sourced full_kv = kv_heads, full_hd = head_dim;
    auto k_eq_v = f.flag("attention_k_eq_v", false);
    if (!k_eq_v) return k_eq_v.forward_error();
    m.k_eq_v = *k_eq_v || m.family == "diffusion_gemma";
    if (m.k_eq_v && f.find("num_global_key_value_heads")) {
        auto g = f.positive("num_global_key_value_heads");
        if (!g) return g.forward_error();
        if (g->value > m.query_heads.value || m.query_heads.value % g->value != 0)
            return fail(code::inconsistent, g->source, "{} {} does not divide {} {}", g->source, g->value,
                        m.query_heads.source, m.query_heads.value);
        full_kv = *g;
    }
    // Gemma 4 without global_head_dim: transformers' Gemma4TextConfig declares it with 512 at 351f643, which
    // vLLM reads; at 008e574 it pops the kwarg into per_layer_config, and getattr falls back to head_dim.
    bool gemma4_full = false;
    for (auto k : p.kinds)
        gemma4_full |= m.family == "gemma4" && k == LayerKind::full_attention;
    if (gemma4_full && !f.find("global_head_dim"))
        return f.error(code::missing_field, "global_head_dim",
                       "missing: Gemma 4's full layers take their own head size, which transformers' "
                       "Gemma4TextConfig versions default differently (512, or head_dim)");
    if (f.find("global_head_dim")) {
        auto g = f.positive("global_head_dim");
        if (!g) return g.forward_error();
        full_hd = *g;
    }
    Sourced v_dim = head_dim;
    if (m.family == "minicpm3") {
        // vLLM minicpm3.py MiniCPM3Attention (vllm-project/vllm 009ccee0): Attention(num_local_heads,
        // qk_head_dim, num_kv_heads=num_local_heads), qk_head_dim = qk_nope_head_dim + qk_rope_head_dim, V
        // padded to qk_head_dim: a FullAttentionSpec of one KV head per query head, whatever
        // num_key_value_heads says.
        auto nope = f.non_negative("qk_nope_head_dim");
        if (!nope) return nope.forward_error();
        auto rope = f.non_negative("qk_rope_head_dim");
        if (!rope) return rope.forward_error();
        if (nope->value + rope->value == 0)
            return f.error(code::invalid_value, "qk_rope_head_dim",
                           "and qk_nope_head_dim are both 0: MiniCPM3's heads would be empty");
        full_kv = {
            m.query_heads.value,
            format("{} (vLLM's MiniCPM3 attention keeps a KV head per query head)", m.query_heads.source)};
        full_hd = v_dim = {nope->value + rope->value, format("{} {} + {} {} (V padded to it)", nope->source,
                                                             nope->value, rope->source, rope->value)};
    } else if (!mla && f.find("v_head_dim")) {
        auto v = f.positive("v_head_dim");
        if (!v) return v.forward_error();
        v_dim = *v;
    }

    if (m.family == "openpangu" && !mla) {
        // OpenPanguEmbeddedAttention caches K and V of head_dim (v_head_dim is not read); the sink attention
        // K of qk_rope_dim + qk_nope_dim and V of v_channels.
        if (pangu.sink) full_hd = pangu.k;
        v_dim = pangu.sink ? pangu.v : full_hd;
    }
    if (looped && m.hidden_size.value < m.query_heads.value)
        return fail(code::inconsistent, m.hidden_size.source,
                    "{} {} is smaller than {} {}: no head size is left", m.hidden_size.source,
                    m.hidden_size.value, m.query_heads.source, m.query_heads.value);
    if (looped) {
        // ouro.py OuroAttention, iquest_loopcoder.py LoopCoderAttention: head_dim = hidden_size //
        // total_num_heads, whatever head_dim says; every loop step's cache has that shape.
        full_hd = v_dim = {m.hidden_size.value / m.query_heads.value,
                           format("{} {} / {} {} (vLLM's {} attention does not read head_dim)",
                                  m.hidden_size.source, m.hidden_size.value, m.query_heads.source,
                                  m.query_heads.value, m.family == "ouro" ? "Ouro" : "IQuest-LoopCoder")};
        p.second_kv = kv_heads;
        p.second_head_dim = full_hd;
    }
    if (encoder_decoder(m.family)) {  // the cross-attention: the self-attention's heads and head size
        p.second_kv = kv_heads;
        p.second_head_dim = full_hd;
    }

    // MiMo-V2's sliding layers have their own KV heads, K and V head sizes (mimo_v2.py,
    // MiMoV2FlashDecoderLayer: swa_num_key_value_heads, swa_head_dim, swa_v_head_dim defaulting to
    // swa_head_dim); Attention.get_kv_cache_spec gives a SlidingWindowSpec of that shape.
    Sourced swa_kv = kv_heads, swa_hd = head_dim, swa_v = v_dim;
    if (m.family == "mimo_v2" && any_sliding) {
        auto kv = f.positive("swa_num_key_value_heads");
        if (!kv) return kv.forward_error();
        auto hd = f.positive("swa_head_dim");
        if (!hd) return hd.forward_error();
        swa_kv = *kv;
        swa_hd = *hd;
        swa_v = *hd;
        if (f.find("swa_v_head_dim") && !f.find("swa_v_head_dim")->is_null()) {
            auto v = f.positive("swa_v_head_dim");
            if (!v) return v.forward_error();
            swa_v = *v;
        }
    }

    // The full layers' V: their own head size where the config gives one (Gemma 4's global_head_dim), else
    // v_dim (openPangu's sink attention keeps v_channels whatever its K).
    const Sourced full_v = full_hd.source != head_dim.source && !pangu.sink ? full_hd : v_dim;
    m.layer_group.reserve(layers);
    for (std::uint64_t i = 0; i < layers; ++i) {
        LayerKind k = p.kinds[i];
        if (mla && k == LayerKind::full_attention) {
            k = LayerKind::mla;
            if (p.names[i] == "full_attention") p.names[i] = "mla_attention";
        }
        // The layer's group: the one of its kind and name, else a new one. A config has a
        // handful of groups, so a search beats a map's code.
        std::uint32_t gi = 0;
        while (gi < m.groups.size() && (m.groups[gi].kind != k || m.groups[gi].name != p.names[i]))
            ++gi;
        if (gi == m.groups.size()) {
            LayerGroup g;
            g.kind = k;
            g.name = p.names[i];
            if (k == LayerKind::mla) {
                g.latent_dim = latent;
                g.latent_v_dim = latent_v;
                g.mla_k_head_dim = mla_k;
                g.mla_v_head_dim = mla_v;
                g.indexer_bytes = indexer;
            } else if (k != LayerKind::linear_state && k != LayerKind::no_cache) {
                bool full = k == LayerKind::full_attention;
                g.kv_heads = !p.kv_heads.empty() ? p.kv_heads[i] : full ? full_kv : swa_kv;
                g.k_head_dim = full ? full_hd : swa_hd;
                g.v_head_dim = full ? full_v : swa_v;
                if (!p.head_dims.empty()) g.k_head_dim = g.v_head_dim = p.head_dims[i];
                if (!p.q_heads.empty()) g.query_heads = p.q_heads[i];
                if (k == LayerKind::sliding_window) g.window = window;
                if (k == LayerKind::chunked_local) g.window = chunk;
                if (full && g.name == p.indexed_name) g.indexer_dim = p.indexer;
            } else if (k == LayerKind::linear_state) {
                g.state = state;
            }
            g.per_layer = p.per_layer.empty() ? 1 : p.per_layer[i];
            m.groups.push_back(std::move(g));
        }
        m.groups[gi].count += m.groups[gi].per_layer;
        m.layer_group.push_back(gi);
    }
    if (p.second_kind != LayerKind::no_cache) {
        LayerGroup g;
        g.kind = p.second_kind;
        g.name = p.second_name;
        if (g.kind == LayerKind::linear_state) {
            g.state = state;
        } else if (mla && m.family == "longcat_flash") {  // its second MLA attention
            g.kind = LayerKind::mla;
            g.latent_dim = latent;
            g.latent_v_dim = latent_v;
            g.mla_k_head_dim = mla_k;
            g.mla_v_head_dim = mla_v;
            g.indexer_bytes = indexer;
        } else {
            g.kv_heads = p.second_kv;
            g.k_head_dim = g.v_head_dim = p.second_head_dim;
            g.cross_attention = encoder_decoder(m.family) != nullptr;
            if (g.kind == LayerKind::sliding_window) g.window = p.second_window;
        }
        g.per_layer = p.second_per_layer;
        const auto gi = static_cast<std::uint32_t>(m.groups.size());
        m.layer_second_group.assign(layers, ModelSpec::no_second_cache);
        for (std::uint64_t i = 0; i < layers; ++i)
            if (p.second[i]) {
                m.layer_second_group[i] = gi;
                g.count += g.per_layer;
            }
        m.groups.push_back(std::move(g));
    }
    m.layer_plan_source = p.source;
    warn_unmodelled(f, m);
    return true;
}

// vLLM voxtral_realtime.py VoxtralRealtimeGeneration.forward runs audio_config's encoder on every step:
// text positions p expand to encoder positions p x block_pool_size + [0, block_pool_size)
// (_expand_tensor), so each text token carries block_pool_size encoder frames. voxtral.py
// VoxtralEncoderModel builds WhisperCausalEncoder when is_causal (else a non-causal WhisperEncoder, which
// that forward does not call as it does); whisper_causal.py WhisperCausalEncoderLayer gives each of
// encoder_layers a WhisperCausalAttention (encoder_attention_heads query and KV heads of encoder_head_dim,
// per_layer_sliding_window = sliding_window, asserted set) whose WhisperCausalAttentionWithBlockPooling
// (block_pool_size asserted above 1) returns Attention's SlidingWindowSpec with num_kv_heads multiplied by
// block_pool_size: per text token, block_pool_size frames of the encoder's heads. The spec's block_size and
// sliding_window are counted in the scheduler's tokens, the text tokens, by vLLM's KV cache manager
// (kv_cache_interface.py SlidingWindowSpec.max_memory_usage_bytes); the attention kernel, on the stretched
// metadata (create_whisper_attention_backend_with_block_pooling), reads sliding_window frames of it.
Result<bool> add_causal_encoder(ModelSpec& m) {
    const json* ac = member(m.root(), "audio_config");
    if (!ac || !ac->is_object())
        return fail(
            code::missing_field, "audio_config",
            "audio_config: missing: VoxtralRealtimeGeneration runs its causal Whisper encoder on every "
            "step (voxtral_realtime.py), and the encoder's cache is read from it");
    const Fields a(*ac, "audio_config");
    auto causal = a.flag("is_causal", false);
    if (!causal) return causal.forward_error();
    if (!*causal)
        return a.error(code::unsupported, "is_causal",
                       "is not true: vLLM's VoxtralEncoderModel (voxtral.py) builds the causal encoder "
                       "VoxtralRealtimeGeneration runs only when is_causal is true, and the cache of another "
                       "encoder there is not modelled");
    Sourced got[5];
    const char* names[5] = {"encoder_layers", "encoder_attention_heads", "encoder_head_dim", "sliding_window",
                            "block_pool_size"};
    for (int i = 0; i < 5; ++i) {
        if (!a.find(names[i]))
            return a.error(code::missing_field, names[i],
                           "missing: vLLM's whisper_causal.py reads it for the encoder's cache, and kvcalc "
                           "takes no config class's default for it");
        auto v = a.positive(names[i]);
        if (!v) return v.forward_error();
        got[i] = *v;
    }
    const Sourced &layers = got[0], &heads = got[1], &head_dim = got[2], &window = got[3], &pool = got[4];
    if (pool.value < 2)
        return a.error(
            code::invalid_value, "block_pool_size",
            "is 1: vLLM's WhisperCausalAttention asserts block_pool_size > 1 (mistral.py sets it to "
            "downsample_factor for a causal encoder)");
    if (layers.value > ModelSpec::max_layers)
        return field_error(code::invalid_value, layers.source,
                           "{} layers is beyond any real model (at most {})", layers.value,
                           ModelSpec::max_layers);
    auto kv = mul(pool.value, heads.value);
    if (!kv || *kv > 1000000)
        return a.error(code::invalid_value, "block_pool_size", "and encoder_attention_heads are too large");
    LayerGroup g;
    g.kind = LayerKind::sliding_window;
    g.name = "encoder_sliding_attention";
    g.count = static_cast<std::uint32_t>(layers.value);
    g.kv_heads = {*kv, format("{} {} x {} {} (encoder frames a text token x the encoder's KV heads: "
                              "WhisperCausalAttentionWithBlockPooling.get_kv_cache_spec)",
                              pool.source, pool.value, heads.source, heads.value)};
    g.k_head_dim = g.v_head_dim = head_dim;
    g.window = {window.value,
                format("{} (vLLM's KV cache manager counts it in text tokens, each of {} encoder "
                       "frames)",
                       window.source, pool.value)};
    g.query_heads = heads;  // WhisperCausalAttention asserts tp divides them
    g.encoder = true;
    m.groups.push_back(std::move(g));
    m.layer_plan_source = format("{}; and {} causal encoder layers ({}) of a sliding window, every step",
                                 m.layer_plan_source, layers.value, layers.source);
    return true;
}

}  // namespace kvcalc
