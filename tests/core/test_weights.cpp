// Parameter counts against the published figures (the model card, paper or checkpoint
// count named beside each), within 2%; weight bytes by dtype; the per-GPU split.
#include <algorithm>
#include "sizing/weights.hpp"
#include "support.hpp"

using namespace kvtest;

namespace {

kvcalc::WeightEstimate weights(const std::string& file, const std::string& dtype = "auto") {
    auto w = kvcalc::estimate_weights(model(file), dtype);
    INFO(file << ": " << (w ? "" : w.error().message));
    REQUIRE(w.ok());
    return w.value();
}

// |estimate - published| <= published x percent / 100, in integers.
bool within(std::uint64_t estimate, std::uint64_t published, std::uint64_t percent = 2) {
    std::uint64_t diff = estimate > published ? estimate - published : published - estimate;
    return diff * 100 <= published * percent;
}

void published(const std::string& file, std::uint64_t figure) {
    auto w = weights(file);
    INFO(file << ": estimate " << w.param_count << " (" << kvcalc::format_param_count(w.param_count)
              << "), published " << figure);
    CHECK(within(w.param_count, figure));
}

constexpr std::uint64_t M = 1000000, B = 1000 * M;

}  // namespace

// Dense models. Published figures: the model cards' "Number of Parameters", or the
// checkpoint's exact count where Hugging Face shows one.
TEST_CASE("weights: Qwen2.5-72B-Instruct, 72.7B published") {
    published("Qwen--Qwen2.5-72B-Instruct.json", 72706203648);  // checkpoint count (SOURCES.md); card "72.7B"
}
TEST_CASE("weights: Qwen2.5-7B-Instruct, 7.61B published") {
    published("Qwen--Qwen2.5-7B-Instruct.json", 7610 * M);  // model card "7.61B"
}
TEST_CASE("weights: Qwen3-0.6B, 0.6B published") {
    published("Qwen--Qwen3-0.6B.json", 600 * M);  // model card "0.6B" (0.44B non-embedding), tied embeddings
}
TEST_CASE("weights: Qwen3-8B, 8.2B published") {
    published("Qwen--Qwen3-8B.json", 8200 * M);  // model card "8.2B" (6.95B non-embedding)
}
TEST_CASE("weights: Llama-2-7b, 6.74B published") {
    published("meta-llama--Llama-2-7b-hf.json", 6738415616);  // checkpoint count, "6.74B"
}
TEST_CASE("weights: Llama-3.1-8B, 8.03B published; exact arithmetic") {
    published("meta-llama--Llama-3.1-8B.json", 8030 * M);  // "8.03B"
    auto w = weights("meta-llama--Llama-3.1-8B.json");
    // embeddings 128256 x 4096 = 525,336,576, and an untied head of the same size;
    // per layer q 4096 x 4096 + k, v 2 x 4096 x 8 x 128 + o 4096 x 4096 = 41,943,040,
    // MLP 3 x 4096 x 14336 = 176,160,768, norms 2 x 4096 = 8,192: 218,112,000 x 32 layers;
    // final norm 4096. 2 x 525,336,576 + 32 x 218,112,000 + 4,096 = 8,030,261,248.
    CHECK(w.param_count == 8030261248);
    CHECK(w.parts.embedding == 525336576);
    CHECK(w.parts.lm_head == 525336576);
    CHECK_FALSE(w.tied_embeddings);
    CHECK(w.dtype.name == "bf16");
    CHECK(w.weight_bytes == 16060522496);  // 2 B each; vLLM logs "model weights take 14.99GiB" on one GPU
}
TEST_CASE("weights: Llama-3.1-70B, 70.6B published") {
    published("meta-llama--Llama-3.1-70B.json", 70553706496);  // checkpoint count, "70.6B"
}
TEST_CASE("weights: Llama-3.1-405B, 405.9B published") {
    published("meta-llama--Llama-3.1-405B.json", 405853388800);  // checkpoint count, "406B"
}
TEST_CASE("weights: Mistral-7B-v0.1, 7.24B published") {
    published("mistralai--Mistral-7B-v0.1.json", 7241732096);  // checkpoint count, "7.24B"
}
TEST_CASE("weights: gpt2-large, 774M published, learned positions and biases") {
    published("openai-community--gpt2-large.json", 774030080);  // "774M"
    // Exact: tied wte 50257 x 1280 + wpe 1024 x 1280 + 36 layers x (attention 1280 x 3840 +
    // 3840 + 1280 x 1280 + 1280, MLP 1280 x 5120 + 5120 + 5120 x 1280 + 1280, 2 LayerNorms
    // 4 x 1280) + final LayerNorm 2 x 1280.
    CHECK(weights("openai-community--gpt2-large.json").param_count ==
          50257ull * 1280 + 1024 * 1280 +
              36ull * (1280 * 3840 + 3840 + 1280 * 1280 + 1280 + 1280 * 5120 + 5120 + 5120 * 1280 + 1280 +
                       4 * 1280) +
              2 * 1280);
}
TEST_CASE("weights: gpt2, 124M published") {
    published("reconstructed/openai-community--gpt2.json", 124439808);  // checkpoint count, "124M"
}
TEST_CASE("weights: chatglm3-6b, 6.24B published") {
    published("reconstructed/THUDM--chatglm3-6b.json", 6244 * M);  // "6.24B"; padded_vocab_size, SwiGLU ffn
}
TEST_CASE("weights: gemma-2-9b-it, 9.24B published") {
    published("reconstructed/google--gemma-2-9b-it.json", 9241705984);  // checkpoint count, "9.24B"
}
TEST_CASE("weights: falcon-7b-instruct, 6.92B published") {
    published("reconstructed/tiiuae--falcon-7b-instruct.json", 6921720704);  // checkpoint count (named 7B)
}
TEST_CASE("weights: Qwen2.5-VL-7B-Instruct counts its language model only") {
    // The report: a 675M vision encoder on Qwen2.5-7B (7.61B); 8.29B in all. The tower is
    // left out, and the estimate says so.
    published("reconstructed/Qwen--Qwen2.5-VL-7B-Instruct.json", 7610 * M);
    auto w = weights("reconstructed/Qwen--Qwen2.5-VL-7B-Instruct.json");
    REQUIRE(w.excluded.size() == 1);
    CHECK(w.excluded[0] == "vision_config (a multimodal tower, not counted)");
}

// Mixture of experts.
TEST_CASE("weights: Mixtral-8x7B, 46.7B published") {
    published("mistralai--Mixtral-8x7B-v0.1.json", 46702792704);  // checkpoint count, "46.7B"
    auto w = weights("mistralai--Mixtral-8x7B-v0.1.json");
    CHECK(w.parts.experts == 32ull * 8 * 3 * 4096 * 14336);  // 32 layers x 8 experts x 3 x 4096 x 14336
    CHECK(w.parts.router == 32ull * 4096 * 8);
}
TEST_CASE("weights: Qwen3-30B-A3B, 30.5B published") {
    published("Qwen--Qwen3-30B-A3B.json", 30500 * M);  // model card "30.5B in total and 3.3B activated"
}
TEST_CASE("weights: DeepSeek-V2-Lite, 15.7B published") {
    published("deepseek-ai--DeepSeek-V2-Lite.json", 15700 * M);  // paper: "15.7B total, 2.4B activated"
}
TEST_CASE("weights: DeepSeek-V3, 671B published without its MTP layer") {
    published("deepseek-ai--DeepSeek-V3.json", 671 * B);  // "671B total" (685B with the 14B MTP module)
    auto w = weights("deepseek-ai--DeepSeek-V3.json");
    REQUIRE(w.excluded.size() == 1);
    CHECK(w.excluded[0] == "1 multi-token-prediction layer(s) (num_nextn_predict_layers, not counted)");
    // 58 MoE layers (first_k_dense_replace 3) x 256 experts x 3 x 7168 x 2048.
    CHECK(w.parts.experts == 58ull * 256 * 3 * 7168 * 2048);
    CHECK(w.parts.shared_experts == 58ull * 3 * 7168 * 2048);  // n_shared_experts 1
    CHECK(w.dtype.name == "fp8");
    CHECK(w.dtype.linear_bits_num == 8 * 128 * 128 + 32);  // one fp32 scale per 128 x 128 block
    CHECK(w.dtype.linear_bits_den == 128 * 128);
}
TEST_CASE("weights: Kimi-K2-Instruct, 1.04T published") {
    published("moonshotai--Kimi-K2-Instruct.json", 1040 * B);  // technical report: "1.04 trillion total"
}
TEST_CASE("weights: Kimi-Linear-48B-A3B, 48B published (a rounded name)") {
    // The one config outside 2%: the card's "48B" is below what its own config adds up to.
    // The routed experts alone are 26 MoE layers x 256 x 3 x 2304 x 1024 = 47,110,422,528
    // and the untied embeddings 2 x 163840 x 2304 = 754,974,720: 47.87B before any
    // attention. The estimate, 49.12B, is 2.3% above the rounded figure.
    auto w = weights("moonshotai--Kimi-Linear-48B-A3B-Instruct.json");
    CHECK(w.parts.experts == 26ull * 256 * 3 * 2304 * 1024);
    CHECK(w.parts.embedding + w.parts.lm_head == 2ull * 163840 * 2304);
    CHECK(within(w.param_count, 48 * B, 3));
    CHECK(w.excluded.empty());  // linear_attn_config is the text model's, not a tower
}
TEST_CASE("weights: GLM-4.7, 355B published without its MTP layer") {
    published("reconstructed/zai-org--GLM-4.7.json", 355 * B);  // GLM-4.5/4.7: "355B total, 32B active"
}
TEST_CASE("weights: MiMo-V2-Flash, 309B published, its MoE layers flagged one by one in moe_layer_freq") {
    // vLLM mimo_v2.py: a layer is MoE where bool(config.moe_layer_freq[layer_idx]); the config's list flags
    // 47 of 48 (layer 0 dense). Model card: "309B total parameters and 15B active".
    const std::string text =
        read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/XiaomiMiMo--MiMo-V2-Flash.json");
    auto m = kvcalc::read_model_text(text);
    REQUIRE(m.ok());
    auto w = kvcalc::estimate_weights(*m);
    INFO((w ? "" : w.error().message));
    REQUIRE(w.ok());
    CHECK(within(w->param_count, 309 * B));
    // The flags are read one by one: a list of the wrong length, or a flag other than 0 or 1, is named.
    auto edited = [&](const std::string& from, const std::string& to) {
        std::string t = text;
        auto pos = t.find(from);
        REQUIRE(pos != std::string::npos);
        t.replace(pos, from.size(), to);
        auto mm = kvcalc::read_model_text(t);
        REQUIRE(mm.ok());
        return kvcalc::estimate_weights(*mm);
    };
    auto short_list = edited("\"moe_layer_freq\": [\n    0, ", "\"moe_layer_freq\": [\n    ");
    REQUIRE_FALSE(short_list.ok());
    CHECK(short_list.error().field == "moe_layer_freq");
    CHECK(short_list.error().message == "moe_layer_freq: has 47 entries but the model has 48 layers");
    auto two = edited("\"moe_layer_freq\": [\n    0, ", "\"moe_layer_freq\": [\n    2, ");
    REQUIRE_FALSE(two.ok());
    CHECK(two.error().field == "moe_layer_freq[0]");
    CHECK(two.error().message == "moe_layer_freq[0]: must be 0 or 1 (a layer's MoE flag), got 2");
    // All dense: the same model less 47 layers of experts.
    std::string dense = text;
    const auto from = dense.find("\"moe_layer_freq\""), to = dense.find(']', from);
    std::replace(dense.begin() + static_cast<std::ptrdiff_t>(from),
                 dense.begin() + static_cast<std::ptrdiff_t>(to), '1', '0');
    auto dm = kvcalc::read_model_text(dense);
    REQUIRE(dm.ok());
    auto dw = kvcalc::estimate_weights(*dm);
    REQUIRE(dw.ok());
    CHECK(dw->param_count < w->param_count / 10);
}
TEST_CASE("weights: gpt-oss-120b, 116.8B published, mxfp4 experts") {
    published("openai--gpt-oss-120b.json", 116830 * M);  // model card: 116.83B total
    auto w = weights("openai--gpt-oss-120b.json");
    CHECK(w.dtype.name == "mxfp4");
    CHECK_FALSE(w.dtype.attention_quantized);  // modules_to_not_convert lists model.layers.*.self_attn
    // Experts 36 x 128 x 3 x 2880 x 2880 at 17/4 bits; the rest (attention, embeddings,
    // head, routers, norms) at 2 bytes. The published checkpoint is about 65 GB.
    std::uint64_t experts = 36ull * 128 * 3 * 2880 * 2880;
    CHECK(w.parts.experts == experts);
    CHECK(w.weight_bytes == experts / 32 * 17 + (w.param_count - experts) * 2);
    CHECK(w.weight_bytes == 65169175680);
}
TEST_CASE("weights: gpt-oss-20b, 20.9B published") {
    published("openai--gpt-oss-20b.json", 20910 * M);  // model card: 20.91B total
}
TEST_CASE("weights: Llama-4-Scout counts its text model against 109B") {
    // Meta: "17B active, 109B total", vision encoder included; the text model is counted
    // (untied head, as Llama 4's config class defaults), 107.77B.
    published("meta-llama--Llama-4-Scout-17B-16E-Instruct.json", 109 * B);
    auto w = weights("meta-llama--Llama-4-Scout-17B-16E-Instruct.json");
    CHECK_FALSE(w.tied_embeddings);
    CHECK(w.tied_source == "no tie_word_embeddings: the llama4_text config's default false");
    CHECK(w.parts.shared_experts == 48ull * 3 * 5120 * 8192);  // one always-on expert per layer
}
TEST_CASE("weights: gemma-4-26B-A4B, 25.2B published") {
    // Model card: 25.2B total, 3.8B active ("26B A4B" is the rounded name). Every layer has
    // a dense MLP beside 128 experts; full layers share K and V (attention_k_eq_v).
    published("google--gemma-4-26B-A4B.json", 25200 * M);
}

// Hybrids with linear-attention or Mamba mixers.
TEST_CASE("weights: Qwen3-Next-80B-A3B, 80B published") {
    published("Qwen--Qwen3-Next-80B-A3B-Instruct.json",
              80 * B);  // model card: "80B in total and 3B activated"
    published("Qwen--Qwen3-Next-80B-A3B-Thinking.json", 80 * B);
}
TEST_CASE("weights: Qwen3.5-27B, 27B published") {
    published("Qwen--Qwen3.5-27B.json", 27 * B);  // model card "27B"; vision tower and MTP layer left out
    CHECK(weights("Qwen--Qwen3.5-27B.json").excluded.size() == 2);
}
TEST_CASE("weights: Nemotron-H-56B, 56B published") {
    published("nvidia--Nemotron-H-56B-Base-8K.json",
              56 * B);  // "Nemotron-H-56B-Base"; 54 Mamba2, 10 attention, 54 MLP blocks
    auto w = weights("nvidia--Nemotron-H-56B-Base-8K.json");
    // 54 MLP blocks of relu2 (no gate): 2 x 8192 x 32768 each.
    CHECK(w.parts.mlp == 54ull * 2 * 8192 * 32768);
}

TEST_CASE("weights: Qwen2.5-72B is about 145 GB in bf16, 36 GB of int4 decoder layers") {
    auto w = weights("Qwen--Qwen2.5-72B-Instruct.json");
    CHECK(w.param_count == 72705384448);    // the checkpoint's 72,706,203,648 less Qwen2's q/k/v biases
    CHECK(w.weight_bytes == 145410768896);  // x 2 B = 145.4 GB (135.42 GiB)
    auto q = weights("Qwen--Qwen2.5-72B-Instruct.json", "int4");
    // Embeddings and head 2 x 152064 x 8192 and the final norm stay 2 bytes; the 80
    // layers' linear weights take half a byte, their norms 2 bytes.
    std::uint64_t embed = 2ull * 152064 * 8192,
                  linear = 80ull * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 29568);
    CHECK(q.weight_bytes == embed * 2 + 8192 * 2 + linear / 2 + 80ull * 2 * 8192 * 2);
    CHECK(q.dtype.source ==
          "weight_dtype int4 for the decoder layers' linear weights; embeddings, lm_head, "
          "norms and routers stay 16-bit");
}

TEST_CASE("weights: per GPU under tensor and pipeline parallelism") {
    auto m = model("Qwen--Qwen2.5-72B-Instruct.json");
    auto w = kvcalc::estimate_weights(m);
    REQUIRE(w.ok());
    kvcalc::SizeOptions o;
    o.context = 4096;
    o.tp = 4;
    auto r = kvcalc::size_model(m, o);
    REQUIRE(r.ok());
    auto per_gpu = kvcalc::weight_bytes_per_gpu(*w, r->stages, 4);
    REQUIRE(per_gpu.ok());
    // Per layer and GPU: q and o 2 x 8192 x 8192 / 4, k and v 2 x 8192 x 8 x 128 / 4, MLP
    // 3 x 8192 x 29568 / 4, norms 2 x 8192 on every rank: 219,430,912 parameters. Embedding
    // and head are vocab-parallel: 2 x 152064 x 8192 / 4; the final norm 8192.
    std::uint64_t layer =
        2ull * 8192 * 8192 / 4 + 2ull * 8192 * 1024 / 4 + 3ull * 8192 * 29568 / 4 + 2 * 8192;
    CHECK(layer == 219430912);
    CHECK(*per_gpu == (80 * layer + 2ull * 152064 * 8192 / 4 + 8192) * 2);
    CHECK(*per_gpu == 36354670592);  // 33.86 GiB

    // KV heads replicate above tp 8: at tp 16 each rank holds one K and one V head.
    o.tp = 16;
    auto r16 = kvcalc::size_model(m, o);
    REQUIRE(r16.ok());
    auto g16 = kvcalc::weight_bytes_per_gpu(*w, r16->stages, 16);
    REQUIRE(g16.ok());
    std::uint64_t layer16 = 2ull * 8192 * 8192 / 16 + 2ull * 8192 * 128 + 3ull * 8192 * 29568 / 16 + 2 * 8192;
    CHECK(*g16 == (80 * layer16 + 2ull * 152064 * 8192 / 16 + 8192) * 2);

    // Pipeline parallel 2: 40 layers each; the first stage adds the embedding, the last the
    // head and final norm, of equal size here, so both stages weigh the same.
    o.tp = 1;
    o.pp = 2;
    auto rp = kvcalc::size_model(m, o);
    REQUIRE(rp.ok());
    auto gp = kvcalc::weight_bytes_per_gpu(*w, rp->stages, 1);
    REQUIRE(gp.ok());
    std::uint64_t full_layer = 2ull * 8192 * 8192 + 2ull * 8192 * 1024 + 3ull * 8192 * 29568 + 2 * 8192;
    CHECK(*gp == (40 * full_layer + 152064ull * 8192 + 8192) * 2);
}

TEST_CASE("weights: the weight dtype option and its errors") {
    auto m = model("meta-llama--Llama-3.1-8B.json");
    auto fp32 = kvcalc::estimate_weights(m, "fp32");
    REQUIRE(fp32.ok());
    CHECK(fp32->weight_bytes == 8030261248ull * 4);
    auto bad = kvcalc::estimate_weights(m, "fp6");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().code == "bad_option");
    CHECK(bad.error().field == "weight_dtype");
    CHECK(bad.error().message ==
          "weight_dtype: unknown \"fp6\" (expected auto, bf16, fp16, fp32, fp8, int8, int4, mxfp4, nvfp4)");
}

TEST_CASE("weights: a config without vocab_size is an error naming the field") {
    std::string text = shared_config("mistralai--Mistral-7B-v0.1.json");
    auto pos = text.find("\"vocab_size\"");
    REQUIRE(pos != std::string::npos);
    text.replace(pos, 12, "\"vocab_sizes\"");
    auto m = kvcalc::read_model_text(text);
    REQUIRE(m.ok());
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE_FALSE(w.ok());
    CHECK(w.error().code == "missing_field");
    CHECK(w.error().field == "vocab_size");
    CHECK(w.error().message ==
          "vocab_size: missing (the weights estimate needs the vocabulary size; also looked for "
          "padded_vocab_size)");
}

TEST_CASE("weights: parameter counts as people read them") {
    CHECK(kvcalc::format_param_count(72705384448) == "72.71B");
    CHECK(kvcalc::format_param_count(596042752) == "596.04M");
    CHECK(kvcalc::format_param_count(1026408209408) == "1.03T");
    CHECK(kvcalc::format_param_count(7000000000) == "7B");
    CHECK(kvcalc::format_param_count(46702792704) == "46.7B");
    CHECK(kvcalc::format_param_count(999) == "999");
    CHECK(kvcalc::format_param_count(999995000) == "1B");  // 999.995M rounds half up to 1.00B
}

TEST_CASE("weights: products beyond 2^53 are an overflow error, never a wrapped count") {
    auto m = kvcalc::read_model_text(
        R"({"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 9007199254740988,
            "vocab_size": 1000, "head_dim": 1, "max_position_embeddings": 128})");
    REQUIRE(m.ok());
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE_FALSE(w.ok());
    CHECK(w.error().code == "overflow");
}

TEST_CASE("weights: size --json carries param_count, weight_bytes and weight_dtype") {
    auto out = kvcalc::parse_json_text(kvcalc::size_json("Qwen/Qwen2.5-72B-Instruct", "{\"context\": 4096}"));
    REQUIRE(out.ok());
    CHECK((*out)["param_count"] == 72705384448);
    CHECK((*out)["weight_bytes"] == 145410768896);
    CHECK((*out)["weight_dtype"] == "bf16");
    CHECK((*out)["weights_error"].is_null());
    // A config that sizes the cache but lacks the vocabulary: the cache figures stand, the
    // weights are null, and weights_error says why.
    auto bare = kvcalc::parse_json_text(kvcalc::size_json(
        R"({"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 64, "max_position_embeddings": 128})",
        ""));
    REQUIRE(bare.ok());
    CHECK((*bare)["bytes_per_token"] == 2 * 2 * 4 * 16 * 2);  // 2 x 2 layers x 4 heads x (64/4) x 2 B
    CHECK((*bare)["param_count"].is_null());
    CHECK((*bare)["weights_error"]["field"] == "vocab_size");
}

TEST_CASE(
    "weights: a hybrid_override_pattern of another length than the layers is an error, never read past its "
    "end") {
    // layer_types decides the layer plan, so the model reads; the weights estimate reads the
    // pattern for the MoE layers and must refuse a pattern of 2 characters for 4 layers.
    auto m = kvcalc::read_model_text(
        R"({"num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2, "hidden_size": 512,
            "vocab_size": 1000, "intermediate_size": 1024, "num_experts": 4, "moe_intermediate_size": 256,
            "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention"],
            "hybrid_override_pattern": "E*", "max_position_embeddings": 4096})");
    REQUIRE(m.ok());
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE_FALSE(w.ok());
    CHECK(w.error().code == "inconsistent");
    CHECK(w.error().field == "hybrid_override_pattern");
    CHECK(w.error().message == "hybrid_override_pattern: has 2 characters but the model has 4 layers");
}
