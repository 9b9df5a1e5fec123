// A multimodal wrapper's text model takes the defaults of the class its config class builds for it (the
// wrapper_text_rows table): from a text_config without model_type (LlavaConfig: LlamaConfig), and, for the
// wrappers that build their text class from the root's own fields, from a config without a text_config
// (Qwen2VLConfig: Qwen2VLTextConfig). Each source says which wrapper decided.
#include "config/architectures.hpp"
#include "support.hpp"

using kvtest::at;
using kvtest::read_written;

TEST_CASE("Llava's text_config without model_type takes LlamaConfig's defaults, saying so") {
    // LlavaConfig (configuration_llava.py 053f59e): text_config["model_type"] defaults to "llama". A
    // text_config naming its layers and width only: LlamaConfig's 32 heads, KV heads = heads, head_dim 5120 /
    // 32, max 2048.
    auto m = read_written(R"({"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava",
        "text_config": {"num_hidden_layers": 2, "hidden_size": 5120}})");
    CHECK(m.model_type == "llama");
    CHECK(m.query_heads.value == 32);
    CHECK(m.query_heads.source ==
          "text_config.num_attention_heads 32 (default of LlamaConfig for LlavaConfig's text model: the "
          "query heads)");
    CHECK(m.max_context.value == 2048);
    auto r = kvcalc::size_model(m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 2 * 32 * (5120 / 32) * 2);  // 40,960
    // Before, the root's model_type (llava) had no defaults: the heads were missing.
}

TEST_CASE("each wrapper's text class: AyaVision's is llama for a text_config without model_type") {
    // AyaVisionConfig (0e97420) builds "llama" for a text_config dict without model_type (cohere2 only when
    // there is no text_config at all): LlamaConfig's 32 layers.
    auto m =
        read_written(R"({"architectures": ["AyaVisionForConditionalGeneration"], "model_type": "aya_vision",
        "text_config": {"hidden_size": 4096, "num_attention_heads": 32}})");
    CHECK(m.model_type == "llama");
    CHECK(m.num_layers.value == 32);
    // LlavaOnevisionConfig (04ea11d): qwen2, whose num_key_value_heads default is 32 (not the query heads).
    auto ov = read_written(
        R"({"architectures": ["LlavaOnevisionForConditionalGeneration"], "model_type": "llava_onevision",
        "text_config": {"num_hidden_layers": 2, "hidden_size": 4096, "num_attention_heads": 64}})");
    CHECK(ov.model_type == "qwen2");
    CHECK(ov.groups.at(0).kv_heads.value == 32);
    // A text_config naming its model_type keeps its own class.
    auto own = read_written(R"({"architectures": ["LlavaForConditionalGeneration"], "model_type": "llava",
        "text_config": {"model_type": "mistral", "num_hidden_layers": 2}})");
    CHECK(own.model_type == "mistral");
    CHECK(own.groups.at(0).kv_heads.value == 8);  // MistralConfig's
}

TEST_CASE("Qwen2-VL with its text fields at the root takes Qwen2VLTextConfig's defaults") {
    // Qwen2VLConfig (018c8e0) builds Qwen2VLTextConfig(**kwargs) from the root when there is no text_config:
    // 8 KV heads by default, where the root's model_type (qwen2_vl) had none.
    auto m = read_written(R"({"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl",
        "num_hidden_layers": 28, "hidden_size": 4096, "num_attention_heads": 32})");
    CHECK(m.model_type == "qwen2_vl_text");
    CHECK(m.groups.at(0).kv_heads.value == 8);
    CHECK(
        m.groups.at(0).kv_heads.source ==
        "num_key_value_heads 8 (default of Qwen2VLTextConfig for Qwen2VLConfig's text model: the KV heads)");
    auto r = kvcalc::size_model(m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 28 * 2 * 8 * 128 * 2);  // 114,688
    // With a text_config, the root's fields are not the text model's: its class is found there.
    auto sub =
        read_written(R"({"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl",
        "text_config": {"num_hidden_layers": 2}})");
    CHECK(sub.text_path == "text_config");
    CHECK(sub.num_layers.value == 2);
}

TEST_CASE("every wrapper row names a text class the table has defaults for") {
    for (const kvcalc::WrapperText& w : kvcalc::wrapper_text_table()) {
        INFO(w.wrapper << " -> " << w.text_type);
        CHECK(!kvcalc::class_defaults(w.text_type).empty());
        CHECK(std::string(w.source).find(" ") != std::string::npos);  // a file and a commit
        CHECK(kvcalc::wrapper_text(w.wrapper) != nullptr);
    }
}
