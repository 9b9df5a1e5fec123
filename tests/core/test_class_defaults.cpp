// The config-class defaults (architectures_table.inc's class_default_rows), every one exercised: for each
// model_type with class defaults, a config of that type with every field the table defaults removed is
// sized, and must give the figures the class's defaults give (the arithmetic beside each). A default
// missing from the table leaves the field missing (an error) or takes the reader's fallback (a different
// figure); a wrong one gives a different figure; a model_type of the table without a case here fails.
#include <set>

#include "config/architectures.hpp"
#include "config/json.hpp"
#include "format.hpp"
#include "support.hpp"

using kvcalc::json;
using kvcalc::LayerKind;
using kvtest::at;
using kvtest::read_file;

namespace {

// Where a case's config comes from: a real file (tests/fixtures/configs or ../shared/configs), or a written
// one (the shape of a published model; labelled so in the case), with model_type / architectures replaced
// where the case says so (a real config of another type of the same family, as no published config of
// this type is stored).
struct Case {
    const char* model_type;
    const char* file;     // "shared:NAME", "fixture:PATH", or "" for `written`
    const char* written;  // the written config's JSON, when file is ""
    const char* text;     // where the text model is: "" the root, else the sub-config's key
    const char* as_arch;  // an architecture to set on the config (a donor of another type), or nullptr
    std::uint64_t layers;
    std::uint64_t bytes_per_token;  // at the default dtype of the config
    std::uint64_t state_bytes;      // one sequence's fixed state, 0 for none
    std::uint64_t max_context;      // 0: the case does not check it (the class has no length default)
    const char* arithmetic;
};

// Falcon-7B-Instruct, GPT-BigCode and the like keep MQA through the class default of multi_query; MLA
// configs are sized per latent: (kv_lora_rank + qk_rope_head_dim) x 2 B a layer.
const Case cases[] = {
    {"llama", "shared:meta-llama--Llama-3.1-8B.json", "", "", nullptr, 32, 524288, 0, 2048,
     "32 layers x 2 x 32 KV heads (= 32 query heads) x (4096 / 32) x 2 B; max 2048"},
    {"mistral", "shared:mistralai--Mistral-7B-v0.1.json", "", "", nullptr, 32, 131072, 0, 131072,
     "32 x 2 x 8 x (4096 / 32) x 2 B, every layer sliding (4096); max 4096 x 32"},
    {"mixtral", "shared:mistralai--Mixtral-8x7B-v0.1.json", "", "", nullptr, 32, 131072, 0, 131072,
     "32 x 2 x 8 x (4096 / 32) x 2 B, no window; max 4096 x 32"},
    {"ministral", "shared:mistralai--Mistral-7B-v0.1.json", "", "", nullptr, 32, 131072, 0, 0,
     "Mistral-7B's config as model_type ministral: 32 x 2 x 8 x 128 x 2 B, every layer sliding (4096)"},
    {"qwen2", "shared:Qwen--Qwen2.5-7B-Instruct.json", "", "", nullptr, 32, 524288, 0, 32768,
     "32 x 2 x 32 KV heads x (4096 / 32) x 2 B, no window (use_sliding_window false); max 32768"},
    {"qwen3", "shared:Qwen--Qwen3-8B.json", "", "", nullptr, 32, 524288, 0, 32768,
     "32 x 2 x 32 x head_dim 128 x 2 B; max 32768"},
    {"qwen3_moe", "shared:Qwen--Qwen3-30B-A3B.json", "", "", nullptr, 24, 49152, 0, 32768,
     "24 x 2 x 4 x head_dim 128 (the config's: the class has none) x 2 B; max 32768"},
    {"qwen3_next", "shared:Qwen--Qwen3-Next-80B-A3B-Instruct.json", "", "", nullptr, 48, 24576,
     36ull * ((4 - 1) * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128) * 2, 0,
     "full_attention_interval 4: 12 of 48 layers full, 12 x 2 x 2 x 256 x 2 B; 36 gated-delta-net states of "
     "conv (4 - 1) x (2 x 16 x 128 + 32 x 128) + 32 x 128 x 128, 2 B each"},
    {"gemma", "fixture:google--gemma-2b-it.json", "", "", nullptr, 28, 458752, 0, 8192,
     "28 x 2 x 16 x 256 x 2 B; max 8192"},
    {"gemma2", "fixture:google--gemma-2-9b-it.json", "", "", nullptr, 26, 106496, 0, 8192,
     "26 x 2 x 4 x 256 x 2 B, 13 sliding (4096) and 13 full; max 8192"},
    {"gemma3_text", "fixture:google--gemma-3-1b-it.json", "", "", nullptr, 26, 106496, 0, 131072,
     "26 x 2 x 4 x 256 x 2 B: 22 sliding (4096), 4 full (layers 6, 12, 18, 24); max 131072"},
    {"gemma3n_text", "", R"({"architectures": ["Gemma3nForCausalLM"], "model_type": "gemma3n_text",
        "num_hidden_layers": 30, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 256,
        "hidden_size": 2048, "max_position_embeddings": 32768, "torch_dtype": "bfloat16"})",
     "", nullptr, 30, 30720, 0, 0,
     "written, Gemma-3n E2B's shape: the last 15 of 30 layers reuse caches; 15 x 2 x 2 x 256 x 2 B"},
    {"deepseek_v2", "shared:deepseek-ai--DeepSeek-V2-Lite.json", "", "", nullptr, 32, 36864, 0, 2048,
     "32 MLA layers x (512 + 64) x 2 B; max 2048"},
    {"deepseek_v3", "shared:deepseek-ai--DeepSeek-V3.json", "", "", nullptr, 61, 70272, 0, 4096,
     "61 MLA layers x (512 + 64) x 2 B; max 4096"},
    {"gpt_oss", "shared:openai--gpt-oss-20b.json", "", "", nullptr, 36, 73728, 0, 131072,
     "36 x 2 x 8 x 64 x 2 B, 18 sliding (128) and 18 full; max 131072"},
    {"phi3", "fixture:microsoft--Phi-3.5-mini-instruct.json", "", "", nullptr, 32, 393216, 0, 4096,
     "32 x 2 x 32 KV heads (= query heads) x (3072 / 32) x 2 B, no window; max 4096"},
    {"cohere2", "", R"({"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2",
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096,
        "max_position_embeddings": 8192, "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 131072, 0, 0,
     "written, Command R7B's shape: 32 x 2 x 8 x 128 x 2 B, 24 sliding (4096), 8 full"},
    {"exaone4", "fixture:LGAI-EXAONE--EXAONE-4.0-32B.json", "", "", nullptr, 64, 262144, 0, 0,
     "64 x 2 x 8 x 128 x 2 B, layer_types as published, window 4096"},
    {"exaone_moe", "", R"({"architectures": ["ExaoneMoEForCausalLM"], "model_type": "exaone_moe",
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "hidden_size": 4096, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 131072, 0, 0, "written: 32 x 2 x 8 x 128 x 2 B, 24 sliding (4096), 8 full"},
    {"olmo3", "fixture:allenai--Olmo-3.1-32B-Instruct.json", "", "", nullptr, 64, 262144, 0, 0,
     "64 x 2 x 8 x 128 x 2 B, layer_types as published, window 4096"},
    {"afmoe", "", R"({"architectures": ["AfmoeForCausalLM"], "model_type": "afmoe", "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 4096,
        "max_position_embeddings": 65536, "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 131072, 0, 0, "written: 32 x 2 x 8 x 128 x 2 B, 24 sliding (2048), 8 full"},
    {"falcon", "shared:reconstructed/tiiuae--falcon-7b-instruct.json", "", "", nullptr, 32, 8192, 0, 0,
     "multi_query true: 32 x 2 x 1 KV head x (4544 / 71) x 2 B"},
    {"RefinedWeb", "fixture:tiiuae--falcon-40b.json", "", "", nullptr, 60, 122880, 0, 0,
     "hidden_size 8192 and no new_decoder_architecture: vLLM's RWConfig sets it, so n_head_kv 8: "
     "60 x 2 x 8 x (8192 / 128) x 2 B"},
    {"RefinedWebModel", "shared:reconstructed/tiiuae--falcon-7b-instruct.json", "", "", "RWForCausalLM", 32,
     8192, 0, 0, "Falcon-7B-Instruct's config as model_type RefinedWebModel: 32 x 2 x 1 x 64 x 2 B"},
    {"gpt_bigcode", "fixture:TheBloke--WizardCoder-15B-1.0-GPTQ.json", "", "", nullptr, 40, 20480, 0, 0,
     "multi_query true: 40 x 2 x 1 x (6144 / 48) x 2 B"},
    {"dbrx", "", R"({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx", "d_model": 6144,
        "n_heads": 48, "n_layers": 40, "max_seq_len": 32768, "attn_config": {"kv_n_heads": 8},
        "torch_dtype": "bfloat16"})",
     "", nullptr, 40, 20480, 0, 0, "written, DBRX's shape: attn_config.kv_n_heads 1: 40 x 2 x 1 x 128 x 2 B"},
    {"jamba", "", R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 262144,
        "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 16384, 28ull * ((4 - 1) * 8192 * 2 + 8192 * 16 * 2), 0,
     "written, Jamba-v0.1's shape: attention on layers 4, 12, 20, 28: 4 x 2 x 8 x 128 x 2 B; 28 Mamba "
     "layers of conv (4 - 1) x 8192 + ssm 8192 x 16 (I = 2 x 4096), 2 B each"},
    {"mamba", "fixture:state-spaces--mamba-2.8b-hf.json", "", "", nullptr, 64, 0,
     64ull * ((4 - 1) * 5120 * 2 + 5120 * 16 * 2), 0,
     "64 Mamba layers of conv (4 - 1) x intermediate_size 5120 + ssm 5120 x 16, 2 B each"},
    {"falcon_mamba", "fixture:state-spaces--mamba-2.8b-hf.json", "", "", "FalconMambaForCausalLM", 64, 0,
     64ull * ((4 - 1) * 5120 * 2 + 5120 * 16 * 2), 0,
     "Mamba-2.8B's config as model_type falcon_mamba: as mamba"},
    {"mamba2", "",
     R"({"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "num_hidden_layers": 48,
        "hidden_size": 4096, "torch_dtype": "bfloat16"})",
     "", nullptr, 48, 0, 48ull * ((4 - 1) * (8192 + 2 * 8 * 128) * 2 + 128 * 64 * 128 * 2), 0,
     "written, Codestral-Mamba's shape: conv (4 - 1) x (2 x 4096 + 2 x 8 groups x 128) + ssm 128 heads x 64 "
     "x 128, 2 B each"},
    {"bamba", "", R"({"architectures": ["BambaForCausalLM"], "model_type": "bamba", "num_hidden_layers": 4,
        "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "attn_layer_indices": [1],
        "mamba_d_head": 64, "torch_dtype": "bfloat16"})",
     "", nullptr, 4, 4096, 3ull * ((4 - 1) * (8192 + 2 * 256) * 2 + 128 * 64 * 256 * 2), 0,
     "written: 1 attention layer of 2 x 8 x 128 x 2 B; 3 Mamba-2 layers of conv (4 - 1) x (2 x 4096 + "
     "2 x 1 x 256) + ssm 128 x 64 x 256, 2 B each"},
    {"granitemoehybrid", "", R"({"architectures": ["GraniteMoeHybridForCausalLM"],
        "model_type": "granitemoehybrid", "num_hidden_layers": 4, "num_attention_heads": 32,
        "num_key_value_heads": 8, "hidden_size": 4096, "layer_types": ["mamba", "attention", "mamba", "mamba"],
        "mamba_d_head": 64, "torch_dtype": "bfloat16"})",
     "", nullptr, 4, 4096, 3ull * ((4 - 1) * (8192 + 2 * 256) * 2 + 128 * 64 * 256 * 2), 0,
     "written: as bamba, the layers from layer_types"},
    {"nemotron_h", "shared:nvidia--Nemotron-H-56B-Base-8K.json", "", "", nullptr, 118, 0, 0, 0,
     "mamba_ssm_cache_dtype float32: the published figures (checked in the case)"},
    {"falcon_h1", "fixture:reconstructed/tiiuae--Falcon-H1-7B-Instruct.json", "", "", nullptr, 44, 0, 0, 0,
     "the Mamba-2 shape from FalconH1Config's defaults (checked in the case)"},
    {"zamba2", "fixture:reconstructed/transformers--Zamba2Config-defaults.json", "", "", nullptr, 54, 0, 0, 0,
     "the file is Zamba2Config's defaults: the same figures (checked in the case)"},
    {"lfm2", "fixture:LiquidAI--LFM2.5-VL-1.6B.json", "", "text_config", nullptr, 16, 0, 0, 0,
     "conv_L_cache 3 as published: the same figures (checked in the case)"},
    {"lfm2_moe", "fixture:LiquidAI--LFM2.5-VL-1.6B.json", "", "text_config", nullptr, 16, 0, 0, 0,
     "LFM2.5's text model as model_type lfm2_moe: conv_L_cache 3 (checked in the case)"},
    {"llama4_text", "shared:meta-llama--Llama-4-Scout-17B-16E-Instruct.json", "", "text_config", nullptr, 48,
     0, 0, 0, "attention_chunk_size 8192 as published: the same figures (checked in the case)"},
};

json load(const Case& c) {
    std::string text = c.written;
    const std::string file = c.file;
    if (file.rfind("shared:", 0) == 0) text = kvtest::shared_config(file.substr(7));
    if (file.rfind("fixture:", 0) == 0)
        text = read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/" + file.substr(8));
    auto j = kvcalc::parse_json_text(text);
    REQUIRE(j.ok());
    return std::move(j.value());
}

// The config as the case means it: its text model carries the case's model_type, every field the table
// defaults for it is removed.
json stripped(const Case& c, std::vector<std::string>& removed) {
    json root = load(c);
    json& text = c.text[0] ? root[c.text] : root;
    text["model_type"] = c.model_type;
    if (c.as_arch) root["architectures"] = json::array({c.as_arch});
    for (const kvcalc::ClassDefault* d : kvcalc::class_defaults(c.model_type)) {
        const std::string field = d->field;
        const std::size_t dot = field.find('.');
        json& holder = dot == std::string::npos ? text : text[field.substr(0, dot)];
        const std::string key = dot == std::string::npos ? field : field.substr(dot + 1);
        if (holder.is_object() && holder.erase(key)) removed.push_back(field);
    }
    return root;
}

}  // namespace

TEST_CASE("every config-class default: a config without the fields sizes as the class's defaults give") {
    std::set<std::string> covered;
    for (const Case& c : cases) {
        INFO(c.model_type << " (" << (c.file[0] ? c.file : "written") << "): " << c.arithmetic);
        covered.insert(c.model_type);
        std::vector<std::string> removed;
        auto m = kvcalc::read_model(stripped(c, removed));
        INFO((m ? "" : m.error().message));
        REQUIRE(m.ok());
        CHECK(m->model_type == c.model_type);
        CHECK(m->num_layers.value == c.layers);
        auto r = kvcalc::size_model(*m, at(4096));
        INFO((r ? "" : r.error().message));
        REQUIRE(r.ok());
        if (c.bytes_per_token || c.state_bytes) {
            CHECK(r->bytes_per_token == c.bytes_per_token);
            CHECK(r->state_bytes == c.state_bytes);
        }
        if (c.max_context) {
            CHECK(m->max_context.value == c.max_context);
            CHECK(m->max_context.source.find("(default of ") != std::string::npos);
        }
        // The layer count, KV heads and head size of a literal default are read from the table, and say so
        // (a head_dim default equal to hidden_size / heads would not show in the figures).
        const auto said = [&](const kvcalc::ClassDefault* d) {
            return kvcalc::format("{}{}{} {} (default of {}: {})", c.text, c.text[0] ? "." : "", d->field,
                                  d->value, d->config_class, d->meaning);
        };
        for (const kvcalc::ClassDefault* d : kvcalc::class_defaults(c.model_type)) {
            if (!d->value) continue;
            const std::string f = d->field;
            if (f == "num_hidden_layers") CHECK(m->num_layers.source == said(d));
            for (const auto& g : m->groups) {
                if (g.kind != LayerKind::full_attention && g.kind != LayerKind::sliding_window) continue;
                if (f == "num_key_value_heads") CHECK(g.kv_heads.source == said(d));
                if (f == "head_dim") CHECK(g.k_head_dim.source == said(d));
            }
        }
    }
    // Every model_type of the table has a case.
    for (const kvcalc::ClassDefault& d : kvcalc::class_default_table()) {
        INFO(d.model_type << " " << d.field);
        CHECK(covered.count(d.model_type) == 1);
    }
}

TEST_CASE("Qwen2Config's and Qwen3Config's window defaults: sliding_window 4096 from max_window_layers 28") {
    // With use_sliding_window true and the rest left to the class, layers 28 to 31 of 32 would slide: vLLM
    // refuses a window on only some layers of these, and kvcalc with it, naming the class's numbers.
    for (const char* type : {"qwen2", "qwen3"}) {
        auto m = kvcalc::read_model_text(
            std::string(R"({"architectures": ["Qwen2ForCausalLM"], "model_type": ")") + type +
            R"(", "use_sliding_window": true})");
        INFO(type);
        REQUIRE(!m.ok());
        CHECK(m.error().message.find("max_window_layers 28 of 32 layers") != std::string::npos);
    }
}

TEST_CASE("the state-size defaults give the class's state shapes") {
    // Cases whose figures depend on several defaults at once: the state shapes, checked field by field.
    const auto spec = [](const char* model_type) {
        for (const Case& c : cases)
            if (std::string(c.model_type) == model_type) {
                std::vector<std::string> removed;
                auto m = kvcalc::read_model(stripped(c, removed));
                INFO(model_type << ": " << (m ? "" : m.error().message));
                REQUIRE(m.ok());
                return std::move(m.value());
            }
        FAIL(model_type);
        return kvcalc::ModelSpec{};
    };
    const auto state = [](const kvcalc::ModelSpec& m) {
        for (const auto& g : m.groups)
            if (g.kind == LayerKind::linear_state) return g.state;
        return kvcalc::StateShape{};
    };
    SECTION(
        "Falcon-H1: FalconH1Config's mamba_d_ssm 1024, 128 heads of 'auto' (1024 / 128 = 8), d_state 256") {
        auto s = state(spec("falcon_h1"));
        CHECK(s.conv_rows == 4 - 1);
        CHECK(s.conv_channels == 1024 + 2 * 1 * 256);
        CHECK(s.ssm_heads == 128);
        CHECK(s.ssm_head_elements == 8 * 256);
    }
    SECTION("Zamba2: d_state 64, d_conv 4, I = 2 x 2560, 1 group, 8 heads of 5120 / 8") {
        auto s = state(spec("zamba2"));
        CHECK(s.conv_rows == 4 - 1);
        CHECK(s.conv_channels == 2 * 2560 + 2 * 1 * 64);
        CHECK(s.ssm_heads == 8);
        CHECK(s.ssm_head_elements == (2 * 2560 / 8) * 64);
    }
    SECTION("Nemotron-H: vLLM's NemotronHConfig keeps the SSM state in float32") {
        CHECK(state(spec("nemotron_h")).ssm_bits == 32);
    }
    SECTION("LFM2 and LFM2-MoE: conv_L_cache 3 keeps 2 columns of hidden_size") {
        for (const char* t : {"lfm2", "lfm2_moe"}) {
            auto s = state(spec(t));
            CHECK(s.conv_rows == 3 - 1);
        }
    }
    SECTION("Llama 4: attention_chunk_size 8192 on the RoPE layers") {
        auto m = spec("llama4_text");
        for (const auto& g : m.groups)
            if (g.kind == LayerKind::chunked_local)
                CHECK(g.window.source ==
                      "text_config.attention_chunk_size 8192 (default of Llama4TextConfig: the "
                      "chunk of local attention)");
        CHECK(m.count(LayerKind::chunked_local) == 36);  // 48 layers, every 4th global
    }
}

TEST_CASE("a derived default is the reader's own derivation, and a null field takes it too") {
    // LlamaConfig: num_key_value_heads None -> num_attention_heads; head_dim None -> hidden_size // heads.
    for (const char* text : {R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                 "num_attention_heads": 40, "hidden_size": 5120, "num_hidden_layers": 2})",
                             R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                 "num_attention_heads": 40, "hidden_size": 5120, "num_hidden_layers": 2,
                                 "num_key_value_heads": null, "head_dim": null})"}) {
        auto m = kvcalc::read_model_text(text);
        REQUIRE(m.ok());
        auto r = kvcalc::size_model(*m, at(4096));
        REQUIRE(r.ok());
        CHECK(r->bytes_per_token == 2 * 2 * 40 * (5120 / 40) * 2);  // 40,960: MHA of 128
        CHECK(m->max_context.source ==
              "max_position_embeddings 2048 (default of LlamaConfig: the max length)");
    }
    // Qwen2Config's num_key_value_heads is 32 when absent, num_attention_heads when null.
    auto absent = kvcalc::read_model_text(R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
        "num_attention_heads": 64, "hidden_size": 8192, "num_hidden_layers": 2})");
    REQUIRE(absent.ok());
    CHECK(absent->groups[0].kv_heads.value == 32);
    auto null = kvcalc::read_model_text(R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
        "num_attention_heads": 64, "hidden_size": 8192, "num_hidden_layers": 2, "num_key_value_heads": null})");
    REQUIRE(null.ok());
    CHECK(null->groups[0].kv_heads.value == 64);
    // Every derived row is one of the two derivations the reader makes.
    for (const kvcalc::ClassDefault& d : kvcalc::class_default_table())
        if (!d.value) {
            INFO(d.model_type << " " << d.field);
            const std::string f = d.field;
            CHECK((f == "num_key_value_heads" || f == "head_dim" || f == "layer_types"));
        }
}

TEST_CASE("Gemma 3 4B's config, whose text_config leaves its heads to Gemma3TextConfig, is sized") {
    // google/gemma-3-4b-it's text_config names hidden_size, num_hidden_layers and sliding_window only
    // (tests/fixtures/configs/SOURCES.md); kvcalc refused it for num_attention_heads before the class's
    // defaults were read: 8 heads, 4 KV heads of head_dim 256.
    auto m = kvcalc::read_model_text(
        read_file(std::string(KVCALC_SOURCE_DIR) +
                  "/tests/fixtures/configs/reconstructed/google--gemma-3-4b-it-written.json"));
    INFO((m ? "" : m.error().message));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 5);   // layers 6, 12, 18, 24, 30 of 34
    CHECK(m->count(LayerKind::sliding_window) == 29);  // of 1,024 tokens
    CHECK(m->max_context.value == 131072);             // Gemma3TextConfig's max_position_embeddings
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 34 * 2 * 4 * 256 * 2);                              // 139,264
    CHECK(r->sequence_bytes_resident == 5ull * 4096 * 4096 + 29ull * 1024 * 4096);  // 205,520,896
    for (const auto& g : m->groups) {
        CHECK(g.kv_heads.source ==
              "text_config.num_key_value_heads 4 (default of Gemma3TextConfig: the KV heads)");
        CHECK(g.k_head_dim.source == "text_config.head_dim 256 (default of Gemma3TextConfig: the head size)");
    }
}
