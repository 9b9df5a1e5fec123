#include "config/architectures.hpp"

#include <array>

#include "config/json.hpp"

namespace kvcalc {
namespace {

#include "architectures_table.inc"

const std::vector<UnmodelledField> unmodelled = {
    {"cross_attention_layers", nullptr, "cross-attention layers cache the encoder's (image) tokens"},
    {"is_encoder_decoder", "false",
     "an encoder-decoder model caches the encoder's tokens for cross-attention"},
    {"attn_type_list", nullptr, "lightning linear-attention state layers (MiniMax)", "minimax_text_01"},
    {"decoder_attention_types", nullptr, "lightning linear-attention state layers (MiniMax)",
     "minimax_text_01"},
    {"layers_block_type", nullptr,
     "per-layer block types (Zamba2's hybrid layers with a shared attention block)", "zamba2"},
    {"hybrid_layer_ids", nullptr, "hybrid layers with a shared attention block (Zamba2)", "zamba2"},
    {"use_long_context", "false", "Zamba2Config then replaces max_position_embeddings with 16384"},
    {"mamba_d_ssm", nullptr, "a Mamba-2 state beside the attention cache in every layer (Falcon-H1)",
     "falcon_h1"},
    {"block_configs", nullptr, "per-layer KV heads and no-op layers (Nemotron-NAS / DeciLM)", "nemotron_nas"},
    {"index_topk_pattern", nullptr, "an indexer cache on some layers only"},
    {"index_topk_freq", nullptr, "an indexer cache on some layers only"},
    {"kv_lora_rank_per_layer", nullptr, "per-layer MLA latent sizes"},
    {"use_cla", "false", "cross-layer KV sharing (HunYuan)"},
    {"compress_ratios", nullptr,
     "compressed attention with several caches per layer in one packed pool (DeepSeek-V4)"},
    {"param_sink_number", nullptr, "sink attention", "openpangu"},
    {"interleaved_sliding_window", nullptr, "per-layer windows", "plamo3"},
    {"rswa_window", nullptr, "R-SWA attention", "unlimited_ocr"},
    {"swa_num_key_value_heads", nullptr, "sliding layers with their own KV heads (MiMo-V2)", "mimo_v2"},
    {"swa_head_dim", nullptr, "sliding layers with their own head size (MiMo-V2)", "mimo_v2"},
    {"attention_other_setting", nullptr, "another attention geometry for one layer type (Step-3.5)",
     "step3p5"},
    {"loop_num", nullptr, "several caches per layer, one per loop", "iquest_loopcoder"},
    {"total_ut_steps", nullptr, "several caches per layer, one per loop step", "ouro"},
    {"conv_L_cache", nullptr, "short-convolution state layers (LFM2)", "lfm2"},
};

// What the reader needs of each family: its name, its support and, for a refused one, why (the
// message that refuses a config of it). What an exact family caches, and a refused one's detail, are
// told by architectures_json() alone (kvcalc architectures, the site's Architectures page), so a
// module that never lists the inventory (the wasm) carries none of that text: it is dropped at
// compile time here.
template <std::size_t N>
constexpr std::array<Family, N> briefs(const Family (&rows)[N]) {
    std::array<Family, N> out{};
    for (std::size_t i = 0; i < N; ++i)
        out[i] = {rows[i].name, rows[i].support, rows[i].support == Support::refused ? rows[i].caches : ""};
    return out;
}
constexpr auto family_briefs = briefs(family_rows);
const std::vector<Family> families(family_briefs.begin(), family_briefs.end());

// The reader's copy of the class defaults: each row without its source, which only the inventory prints.
// The reader's copy of the class defaults, which the wasm carries: a group per run of one model_type and
// class in the table, and per default its field, value and meaning only (no source). A derived KV-head or
// head-size row is the reader's own derivation (read_kv_heads, read_head_dim), which never consults it: it
// documents the class, and the copy leaves it out.
struct DefaultGroup {
    const char* model_type;
    const char* config_class;
    std::uint16_t first, count;
};
struct DefaultRow {
    const char* field;
    const char* value;
    const char* meaning;
};
constexpr bool same(const char* a, const char* b) {
    while (*a && *a == *b)
        ++a, ++b;
    return *a == *b;
}
constexpr bool consulted(const ClassDefault& d) {
    return d.value || !(same(d.field, "num_key_value_heads") || same(d.field, "head_dim"));
}
// Whether consulted row `r` starts a group: the first, or another model_type or class than `prev`'s.
constexpr bool starts(const ClassDefault* prev, const ClassDefault& r) {
    return !prev || !same(prev->model_type, r.model_type) || !same(prev->config_class, r.config_class);
}
template <std::size_t N>
constexpr std::size_t count_rows(const ClassDefault (&rows)[N], bool groups) {
    std::size_t n = 0;
    const ClassDefault* prev = nullptr;
    for (const auto& r : rows) {
        if (!consulted(r)) continue;
        n += !groups || starts(prev, r) ? 1 : 0;
        prev = &r;
    }
    return n;
}
template <std::size_t G, std::size_t M>
struct ReaderDefaults {
    std::array<DefaultGroup, G> groups{};
    std::array<DefaultRow, M> rows{};
};
template <std::size_t G, std::size_t M, std::size_t N>
constexpr ReaderDefaults<G, M> compact(const ClassDefault (&rows)[N]) {
    ReaderDefaults<G, M> out{};
    std::size_t g = 0, i = 0;
    const ClassDefault* prev = nullptr;
    for (const auto& r : rows) {
        if (!consulted(r)) continue;
        if (starts(prev, r))
            out.groups[g++] = {r.model_type, r.config_class, static_cast<std::uint16_t>(i), 0};
        ++out.groups[g - 1].count;
        out.rows[i++] = {r.field, r.value, r.meaning};
        prev = &r;
    }
    return out;
}
constexpr auto reader_defaults =
    compact<count_rows(class_default_rows, true), count_rows(class_default_rows, false)>(class_default_rows);

// The reader's copy of the wrapper rows, without their sources.
template <std::size_t N>
constexpr std::array<WrapperText, N> unsourced(const WrapperText (&rows)[N]) {
    std::array<WrapperText, N> out{};
    for (std::size_t i = 0; i < N; ++i)
        out[i] = {rows[i].wrapper, rows[i].wrapper_class, rows[i].text_type, rows[i].from_root, ""};
    return out;
}
constexpr auto reader_wrappers = unsourced(wrapper_text_rows);

}  // namespace

const std::vector<Family>& family_table() {
    return families;
}

const std::vector<Architecture>& architecture_table() {
    return architectures;
}

const Architecture* find_architecture(std::string_view name) {
    for (const auto& a : architectures)
        if (name == a.name) return &a;
    return nullptr;
}

std::string family_caches(std::string_view name) {
    for (const Family& f : family_rows)
        if (name == f.name) return f.detail ? std::string(f.caches) + " " + f.detail : f.caches;
    return "";
}

const Family& family_of(const Architecture& a) {
    for (const auto& f : families)
        if (std::string_view(a.family) == f.name) return f;
    return families.front();  // not reached: a test checks every architecture's family is listed
}

const EncoderDecoder* encoder_decoder(std::string_view family) {
    static constexpr EncoderDecoder table[] = {
        {"whisper", "decoder_layers", "decoder_attention_heads", "d_model", 0, 0, 0,
         "whisper.py WhisperDecoderLayer", ""},
        {"fireredlid", "n_layers_lid_dec", "n_head", "d_model", 6, 20, 1280,
         "fireredlid.py FireRedLIDDecoder", ""},
        // hf_config.transf_decoder["config_dict"].get(...): None when absent, no default.
        {"cohere_asr", "num_layers", "num_attention_heads", "hidden_size", 0, 0, 0,
         "cohere_asr.py CohereASRDecoder", "transf_decoder.config_dict"},
        // MBartDecoderNoPos(config.decoder): the decoder sub-config's attributes.
        {"nemotron_parse", "decoder_layers", "decoder_attention_heads", "d_model", 0, 0, 0,
         "nemotron_parse.py MBartDecoderNoPos", "decoder"},
    };
    for (const auto& e : table)
        if (family == e.family) return &e;
    return nullptr;
}

std::vector<ClassDefault> class_defaults(std::string_view model_type) {
    std::vector<ClassDefault> out;
    for (const auto& g : reader_defaults.groups)
        if (model_type == g.model_type)
            for (std::size_t i = g.first; i < g.first + g.count; ++i) {
                const DefaultRow& r = reader_defaults.rows[i];
                out.push_back({g.model_type, g.config_class, r.field, r.value, r.meaning, ""});
            }
    return out;
}

const std::vector<ClassDefault>& class_default_table() {
    static const std::vector<ClassDefault> table(std::begin(class_default_rows),
                                                 std::end(class_default_rows));
    return table;
}

const WrapperText* wrapper_text(std::string_view wrapper_model_type) {
    for (const auto& w : reader_wrappers)
        if (wrapper_model_type == w.wrapper) return &w;
    return nullptr;
}

const std::vector<WrapperText>& wrapper_text_table() {
    static const std::vector<WrapperText> table(std::begin(wrapper_text_rows), std::end(wrapper_text_rows));
    return table;
}

const std::vector<UnmodelledField>& unmodelled_fields() {
    return unmodelled;
}

json architectures_json() {
    json rows = json::array();
    for (const auto& a : architectures) {
        const Family& f = family_of(a);
        json r;
        set_member(r, "architecture", a.name);
        set_member(r, "family", a.family);
        set_member(r, "support", f.support == Support::exact ? "exact" : "refused");
        set_member(r, "caches", family_caches(f.name));
        set_member(r, "text_config", a.text_config);
        set_member(r, "note", a.removed ? "removed from vLLM main in 2026" : "");
        rows.push_back(std::move(r));
    }
    json ds = json::array();
    for (const auto& d : class_default_rows) {
        json r;
        set_member(r, "model_type", d.model_type);
        set_member(r, "config_class", d.config_class);
        set_member(r, "field", d.field);
        // A derived default (nullptr) is listed as null, its meaning saying from what.
        set_member(r, "value", d.value ? *parse_json_text(d.value) : json());
        set_member(r, "meaning", d.meaning);
        set_member(r, "source", d.source);
        ds.push_back(std::move(r));
    }
    json ws = json::array();
    for (const auto& w : wrapper_text_rows) {
        json r;
        set_member(r, "wrapper", w.wrapper);
        set_member(r, "wrapper_class", w.wrapper_class);
        set_member(r, "text_model_type", w.text_type);
        set_member(r, "from_root", w.from_root);
        set_member(r, "source", w.source);
        ws.push_back(std::move(r));
    }
    json un = json::array();
    for (const auto& u : unmodelled) {
        json r;
        set_member(r, "field", u.field);
        set_member(r, "why", u.why);
        un.push_back(std::move(r));
    }
    json out;
    set_member(out, "architectures", std::move(rows));
    set_member(out, "class_defaults", std::move(ds));
    set_member(out, "wrapper_text_classes", std::move(ws));
    set_member(out, "unmodelled_fields", std::move(un));
    return out;
}

}  // namespace kvcalc
