// The layer patterns and windows config classes fill in when a config leaves them out (the class table's
// derived layer_types, attn_layer_indices and layers_block_type rows), and the refusals where the class that
// would fill them is not known: a config of each kind is sized as that class's pattern gives, or refused by
// name, never as full attention on every layer by default.
#include "config/json.hpp"
#include "support.hpp"

using kvcalc::LayerKind;
using kvtest::at;
using kvtest::read_written;
using kvtest::refused_written;

TEST_CASE("MiniMax without a layer list: MiniMaxConfig's alternation, or refused for another config class") {
    // transformers' MiniMaxConfig (configuration_minimax.py 008e574) fills layer_types with full attention
    // where (i + 1) % 2 and linear attention on the others, and vLLM minimax_text_01.py reads it: 4 layers, 2
    // of each.
    auto m = read_written(
        R"({"architectures": ["MiniMaxText01ForCausalLM"], "model_type": "minimax", "num_hidden_layers": 4,
        "num_attention_heads": 8, "num_key_value_heads": 2, "hidden_size": 1024, "head_dim": 128})");
    CHECK(m.count(LayerKind::full_attention) == 2);
    CHECK(m.count(LayerKind::linear_state) == 2);
    CHECK(m.layer_plan_source ==
          "layer_types (default of MiniMaxConfig: None: full_attention where (i + 1) % 2, else "
          "linear_attention)");
    auto r = kvcalc::size_model(m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 2 * 2 * 128 * 2);   // 2 full layers x K and V x 2 KV heads x 128 x 2 B
    CHECK(r->state_bytes == 2ull * 8 * 128 * 128 * 2);  // 2 lightning states of 8 heads x 128 x 128, 2 B
    // The remote MiniMaxText01Config (model_type minimax_text_01) is a class kvcalc has not read: refused by
    // name.
    for (const char* type : {"minimax_text_01", "minimax_m1"}) {
        auto e = refused_written(
            std::string(R"({"architectures": ["MiniMaxText01ForCausalLM"], "model_type": ")") + type +
            R"(", "num_hidden_layers": 4, "num_attention_heads": 8, "hidden_size": 1024, "head_dim": 128})");
        CHECK(e.field == "attn_type_list");
        CHECK(e.code == kvcalc::code::missing_field);
        CHECK(e.message.find(type) != std::string::npos);
    }
}

TEST_CASE("Gemma 4 without layer_types takes Gemma4TextConfig's pattern, and needs global_head_dim") {
    // Every 6th layer full and the last: of 8 layers, layers 5 and 7 full, 6 sliding of 512 tokens.
    auto m = read_written(
        R"({"architectures": ["Gemma4ForCausalLM"], "model_type": "gemma4_text", "num_hidden_layers": 8,
        "global_head_dim": 512})");
    CHECK(m.count(LayerKind::full_attention) == 2);
    CHECK(m.count(LayerKind::sliding_window) == 6);
    auto r = kvcalc::size_model(m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 6 * 2 * 4 * 256 * 2 + 2 * 2 * 4 * 512 * 2);  // 24,576 + 16,384
    // The class's versions disagree on global_head_dim (351f643: 512; 008e574: left to head_dim), so a config
    // without it is refused rather than sized either way.
    auto e = refused_written(R"({"architectures": ["Gemma4ForCausalLM"], "model_type": "gemma4_text",
        "num_hidden_layers": 8})");
    CHECK(e.field == "global_head_dim");
    CHECK(e.code == kvcalc::code::missing_field);
}

TEST_CASE("Zamba2 without layers_block_type takes Zamba2Config's 54-entry list") {
    // Zamba2Config (configuration_zamba2.py 02f5807): hybrid on layers 6, 12, ..., 42, 47 and 51, mamba on
    // the other 45. Every layer keeps a Mamba-2 state; the 9 hybrid ones also the shared attention's KV of 32
    // heads x 2 x 2560 / 32.
    auto m = read_written(
        R"({"architectures": ["Zamba2ForCausalLM"], "model_type": "zamba2", "torch_dtype": "bfloat16"})");
    CHECK(m.num_layers.value == 54);
    CHECK(m.count(LayerKind::linear_state) == 54);
    CHECK(m.count(LayerKind::full_attention) == 9);
    CHECK(m.layer_plan_source.rfind("layers_block_type (default of Zamba2Config: ", 0) == 0);
    auto r = kvcalc::size_model(m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 9 * 2 * 32 * (2 * 2560 / 32) * 2);  // 184,320
    // Another layer count than the list's is an error naming the default, not a guess.
    auto e = refused_written(
        R"({"architectures": ["Zamba2ForCausalLM"], "model_type": "zamba2", "num_hidden_layers": 38})");
    CHECK(e.field == "layers_block_type");
    CHECK(e.code == kvcalc::code::missing_field);
    CHECK(e.message.find("has 54 entries but the model has 38 layers") != std::string::npos);
}

TEST_CASE("Bamba without attn_layer_indices is Mamba-2 on every layer, as BambaConfig's layers_block_type") {
    for (const char* indices : {"", R"(, "attn_layer_indices": null)"}) {
        auto m = read_written(std::string(R"({"architectures": ["BambaForCausalLM"], "model_type": "bamba",
            "num_hidden_layers": 4, "hidden_size": 1024, "num_attention_heads": 8, "mamba_n_heads": 16)") +
                              indices + "}");
        INFO(indices);
        CHECK(m.count(LayerKind::linear_state) == 4);
        CHECK(m.count(LayerKind::full_attention) == 0);
        CHECK(m.layer_plan_source ==
              "attn_layer_indices (default of BambaConfig: None: no attention layer, every layer mamba "
              "(layers_block_type))");
    }
}

TEST_CASE("hybrids whose layer list has no class default kvcalc can take are refused by name") {
    struct Refusal {
        const char* config;
        const char* field;
    };
    const Refusal cases[] = {
        // GraniteMoeHybridConfig leaves layer_types None; vLLM's model indexes it.
        {R"({"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
            "num_hidden_layers": 4, "hidden_size": 1024, "num_attention_heads": 8})",
         "layer_types"},
        // vLLM's NemotronHConfig (a59ddf7) and transformers' (cfeb552) default the pattern differently.
        {R"({"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "num_hidden_layers": 4})",
         "hybrid_override_pattern"},
        // vLLM's OlmoHybridConfig default was not read.
        {R"({"architectures": ["OlmoHybridForCausalLM"], "model_type": "olmo_hybrid", "num_hidden_layers": 4,
            "hidden_size": 1024, "num_attention_heads": 8})",
         "layer_types"},
    };
    for (const Refusal& c : cases) {
        auto e = refused_written(c.config);
        CHECK(e.field == c.field);
        CHECK(e.code == kvcalc::code::missing_field);
    }
    // Qwen2MoeConfig with use_sliding_window slides only its even layers below max_window_layers.
    auto e = refused_written(R"({"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe",
        "use_sliding_window": true})");
    CHECK(e.field == "use_sliding_window");
    CHECK(e.code == kvcalc::code::unsupported);
}

TEST_CASE("Dots1: one layer kind slides every layer by sliding_window, mixed kinds none, as vLLM") {
    // Dots1Config's layer_types slides from max_window_layers (62) on: with 64 layers, layers 62 and 63 would
    // slide, so layer_types mixes kinds, vLLM sets no cache_config.sliding_window and every layer is full.
    auto mixed = read_written(
        R"({"architectures": ["Dots1ForCausalLM"], "model_type": "dots1", "num_hidden_layers": 64})");
    CHECK(mixed.count(LayerKind::full_attention) == 64);
    CHECK(mixed.layer_plan_source.find("mixes kinds: no layer slides") != std::string::npos);
    // 62 layers: all full_attention in layer_types, one kind, so the class's window 4096 slides every layer.
    auto one = read_written(R"({"architectures": ["Dots1ForCausalLM"], "model_type": "dots1"})");
    CHECK(one.count(LayerKind::sliding_window) == 62);
    CHECK(one.groups.at(0).window.value == 4096);
    CHECK(one.groups.at(0).window.source ==
          "sliding_window 4096 (default of Dots1Config: the window: vLLM slides every layer by it unless "
          "layer_types mixes kinds)");
    // sliding_window null: no window.
    auto none = read_written(
        R"({"architectures": ["Dots1ForCausalLM"], "model_type": "dots1", "sliding_window": null})");
    CHECK(none.count(LayerKind::full_attention) == 62);
}

TEST_CASE("Kimi-Linear without linear_attn_config is MLA on every layer, as vLLM's KimiLinearConfig") {
    // is_kda_layer is false for every layer when linear_attn_config is None (kimi_linear.py 6b06599).
    auto m = read_written(
        R"({"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear", "num_hidden_layers": 4,
        "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128})");
    CHECK(m.count(LayerKind::mla) == 4);
    CHECK(m.count(LayerKind::linear_state) == 0);
}
