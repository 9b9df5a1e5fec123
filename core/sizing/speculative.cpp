#include "sizing/speculative.hpp"

#include <algorithm>

#include "config/config_fields.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

// The MTP drafts kvcalc models, by the text model's model_type: the config field that counts
// the draft's decoder layers, vLLM's default when it is absent (0: the field is required),
// and the kind of the model's layers each draft layer copies (its attention geometry too);
// the draft's layers are built after the model's.
struct MtpDraft {
    const char* model_type;
    const char* field;
    std::uint64_t default_layers;
    LayerKind kind;
    const char* source;
    // "layer_types" when the draft layer i (after the model's num_hidden_layers) takes the type that field
    // names for it, and the geometry of the model's layers of that type (Step-3.5), rather than `kind`'s.
    const char* typed_by = nullptr;
};
const MtpDraft mtp_drafts[] = {
    // vllm/model_executor/models/qwen3_next_mtp.py, Qwen3NextMultiTokenPredictor.__init__:
    // num_mtp_layers = getattr(config, "num_nextn_predict_layers", 1), each a
    // Qwen3NextDecoderLayer(layer_type="full_attention").
    {"qwen3_next", "num_nextn_predict_layers", 1, LayerKind::full_attention, "vLLM's qwen3_next_mtp draft"},
    // vllm/model_executor/models/qwen3_5_mtp.py, Qwen3_5MultiTokenPredictor.__init__:
    // num_mtp_layers = getattr(config, "mtp_num_hidden_layers", 1), each a
    // Qwen3_5DecoderLayer(layer_type="full_attention").
    {"qwen3_5_text", "mtp_num_hidden_layers", 1, LayerKind::full_attention, "vLLM's qwen3_5_mtp draft"},
    {"qwen3_5_moe_text", "mtp_num_hidden_layers", 1, LayerKind::full_attention, "vLLM's qwen3_5_mtp draft"},
    // vllm/model_executor/models/deepseek_mtp.py, DeepSeekMultiTokenPredictor.__init__:
    // num_mtp_layers = config.num_nextn_predict_layers, each a DeepSeekMultiTokenPredictorLayer
    // whose mtp_block is a DeepseekV2DecoderLayer (MLA, as the model's layers).
    {"deepseek_v3", "num_nextn_predict_layers", 0, LayerKind::mla, "vLLM's deepseek_mtp draft"},
    // vllm/model_executor/models/step3p5_mtp.py, Step3p5AMultiTokenPredictor.__init__: num_mtp_layers =
    // config.num_nextn_predict_layers (Step3p5Config default 0), each a Step3p5DecoderLayer at layer index
    // num_hidden_layers + k, so its attention reads layer_types at that index (step3p5.py).
    {"step3p5", "num_nextn_predict_layers", 0, LayerKind::full_attention, "vLLM's step3p5_mtp draft",
     "layer_types"},
};

// Step-3.5's draft layers: the model's group of the type layer_types names at num_hidden_layers + k (as
// step3p5.py names and shapes a layer by its type), or an error.
Result<std::vector<std::uint32_t>> draft_groups_by_type(const ModelSpec& m, std::uint64_t n,
                                                        const char* field, const char* source) {
    const std::uint64_t base = m.num_layers.value;
    const std::string at = m.text_path.empty() ? field : m.text_path + "." + field;
    const json* types = m.text ? member(*m.text, field) : nullptr;
    if (!types || !types->is_array() || types->size() < base + n)
        return fail(code::bad_option, "num_speculative_tokens",
                    "num_speculative_tokens: {} reads {} entries {} to {}, which the config does not have",
                    source, at, base, base + n - 1);
    std::vector<std::uint32_t> out;
    for (std::uint64_t k = 0; k < n; ++k) {
        const json& t = (*types)[base + k];
        if (!t.is_string())
            return fail(code::invalid_value, format("{}[{}]", at, base + k),
                        "{}[{}]: must be a string, got {}", at, base + k, described(t));
        std::string name = t.get<std::string>();
        std::uint32_t found = static_cast<std::uint32_t>(m.groups.size());
        for (std::size_t g = 0; g < m.groups.size(); ++g)
            if (m.groups[g].name == name || m.groups[g].name == name + " (no window)")
                found = static_cast<std::uint32_t>(g);
        if (found == m.groups.size())
            return fail(
                code::bad_option, "num_speculative_tokens",
                "num_speculative_tokens: the {} layer {} is a {} layer, and the model has none to copy",
                source, base + k, name);
        out.push_back(found);
    }
    return out;
}

// The state mixers whose conv state vLLM lengthens by the draft tokens:
// vllm/model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator
// .gated_delta_net_state_shape, conv state (conv_kernel_size - 1 + num_spec, conv_dim / tp),
// with num_spec = speculative_config.num_speculative_tokens (qwen3_next.py and qwen3_5.py
// get_mamba_state_shape_from_config). The temporal (SSM) state keeps its shape.
const char* const spec_conv_mixers[] = {"gated_delta_net"};

}  // namespace

Result<ModelSpec> with_speculative_tokens(const ModelSpec& m, std::uint64_t tokens, std::uint64_t pp) {
    if (tokens == 0) return m;
    if (tokens > max_speculative_tokens)
        return field_error(code::bad_option, "num_speculative_tokens", "must be from 0 to {}, got {}",
                           max_speculative_tokens, tokens);
    const MtpDraft* draft = nullptr;
    for (const MtpDraft& d : mtp_drafts)
        if (m.model_type == d.model_type) draft = &d;
    if (!draft) {
        std::string known;
        for (const MtpDraft& d : mtp_drafts)
            format_to(known, known.empty() ? "{}" : ", {}", d.model_type);
        return fail(code::bad_option, "num_speculative_tokens",
                    "num_speculative_tokens: kvcalc models the KV cache of vLLM's MTP drafts of {} models "
                    "only; a draft for this {} model (its own MTP layers or a separate draft model) is "
                    "not modelled",
                    known, m.model_type.empty() ? std::string("unknown") : m.model_type);
    }
    if (pp > 1)
        return fail(code::bad_option, "pp",
                    "num_speculative_tokens with pp {}: kvcalc does not model which pipeline stage holds the "
                    "draft's layers",
                    pp);
    // The draft's layer count from the text config, else vLLM's default.
    Sourced layers{draft->default_layers, format("{} default {}", draft->field, draft->default_layers)};
    const std::string at = m.text_path.empty() ? draft->field : m.text_path + "." + draft->field;
    if (const json* v = m.text ? member(*m.text, draft->field) : nullptr; v && !v->is_null()) {
        auto n = checked_integer(*v, at, false);
        if (!n) return n.forward_error();
        if (*n > 64) return fail(code::invalid_value, at, "{}: at most 64 draft layers, got {}", at, *n);
        layers = {*n, at};
    } else if (draft->default_layers == 0) {
        return fail(code::missing_field, at, "{}: missing: {} has as many layers as it says", at,
                    draft->source);
    }
    std::vector<std::uint32_t> typed;
    if (draft->typed_by) {
        if (layers.value == 0)
            return fail(code::bad_option, "num_speculative_tokens",
                        "num_speculative_tokens: {} is 0: {} has no layer", at, draft->source);
        auto g = draft_groups_by_type(m, layers.value, draft->typed_by, draft->source);
        if (!g) return g.forward_error();
        typed = std::move(g.value());
    }
    // The draft's layers have the geometry of the model's layers of their kind.
    std::size_t full = m.groups.size();
    for (std::size_t i = 0; i < m.groups.size() && typed.empty(); ++i) {
        if (m.groups[i].kind != draft->kind) continue;
        if (full != m.groups.size())
            return fail(code::bad_option, "num_speculative_tokens",
                        "num_speculative_tokens: the model has {} layers of more than one shape, and kvcalc "
                        "does not know which the {} layers copy",
                        layer_kind_name(draft->kind), draft->source);
        full = i;
    }
    if (full == m.groups.size() && typed.empty())
        return fail(code::bad_option, "num_speculative_tokens",
                    "num_speculative_tokens: the model has no {} layer for the {} to copy",
                    layer_kind_name(draft->kind), draft->source);
    if (typed.empty()) typed.assign(layers.value, static_cast<std::uint32_t>(full));
    for (std::uint32_t g : typed)
        if (m.groups[g].per_layer != 1)
            return fail(
                code::bad_option, "num_speculative_tokens",
                "num_speculative_tokens: the model's {} layers keep one cache per loop step, and kvcalc "
                "does not know how many the {} layers keep",
                layer_kind_name(m.groups[g].kind), draft->source);
    for (const LayerGroup& g : m.groups) {
        if (g.kind != LayerKind::linear_state) continue;
        bool known = false;
        for (const char* mixer : spec_conv_mixers)
            known |= g.state.mixer == mixer;
        if (!known)
            return fail(code::bad_option, "num_speculative_tokens",
                        "num_speculative_tokens: kvcalc does not model how vLLM's {} state grows with "
                        "speculative tokens",
                        g.state.mixer);
    }

    ModelSpec v = m;
    // The config's MTP layers are counted now: the warning that they are not goes.
    v.warnings.erase(
        std::remove_if(v.warnings.begin(), v.warnings.end(), [&](const Warning& w) { return w.field == at; }),
        v.warnings.end());
    for (std::uint32_t g : typed) {
        ++v.groups[g].count;
        v.layer_group.push_back(g);
    }
    if (!v.layer_second_group.empty())  // a draft layer keeps one cache
        v.layer_second_group.insert(v.layer_second_group.end(), layers.value, ModelSpec::no_second_cache);
    v.num_layers.value += layers.value;
    v.num_layers.source = format("{} {} + {} draft layer{} ({}: {})", m.num_layers.source, m.num_layers.value,
                                 layers.value, layers.value == 1 ? "" : "s", draft->source, layers.source);
    for (LayerGroup& g : v.groups) {
        if (g.kind != LayerKind::linear_state) continue;
        g.state.conv_rows += tokens;  // both at most a few thousand: no overflow
        g.state.source +=
            format("; conv state + {} rows for the speculative tokens (vLLM's num_spec)", tokens);
    }
    if (layers.source != at)  // when the config counts them, the weights estimate says so itself
        v.warnings.push_back(
            {"num_speculative_tokens", format("the weights estimate leaves out the {} layer{} of {}: a pool "
                                              "derived from a GPU's memory is that much too large",
                                              layers.value, layers.value == 1 ? "" : "s", draft->source)});
    return v;
}

}  // namespace kvcalc
