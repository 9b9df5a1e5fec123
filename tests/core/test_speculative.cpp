// Speculative decoding and Mamba prefix caching as vLLM allocates them: an MTP draft's layers
// join the cache, gated-delta-net conv states grow by the draft tokens, and each Mamba-like
// layer reserves (1, or 2 in align mode) + num_speculative_tokens state blocks per request.
// Every figure is written as vLLM's arithmetic beside it.
#include "api.hpp"
#include "config/json.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;

namespace {

const std::string qwen3_next = "Qwen--Qwen3-Next-80B-A3B-Thinking.json";
const std::string qwen36 = "/tests/fixtures/engine-logs/configs/nvidia--Qwen3.6-35B-A3B-NVFP4.json";

json size_of(const std::string& config, json options) {
    auto r = kvcalc::parse_json_text(kvcalc::size_json(config, kvcalc::to_text(options)));
    REQUIRE(r.ok());
    return *r;
}

json group(const json& report, const std::string& kind) {
    for (const auto& g : report["groups"])
        if (g["kind"] == kind) return g;
    FAIL("no " << kind << " group");
    return nullptr;
}

}  // namespace

TEST_CASE("speculative: Qwen3-Next's qwen3_next_mtp draft adds a full-attention layer and longer states") {
    const std::string config = shared_config(qwen3_next);
    const json base =
        size_of(config, {{"context", 10000}, {"tp", 4}, {"kv_dtype", "fp8"}, {"accounting", "vllm"}});
    const json spec = size_of(config, {{"context", 10000},
                                       {"tp", 4},
                                       {"kv_dtype", "fp8"},
                                       {"accounting", "vllm"},
                                       {"num_speculative_tokens", 2}});
    INFO(kvcalc::to_text(spec));
    REQUIRE_FALSE(spec.contains("error"));
    CHECK(base["num_layers"]["value"] == 48);
    CHECK(spec["num_layers"]["value"] == 49);  // 48 + num_nextn_predict_layers (absent: vLLM's default 1)
    CHECK(spec["num_speculative_tokens"] == 2);
    CHECK(spec["mamba_cache_mode"] == "none");
    CHECK(group(spec, "full_attention")["layers"] == 13);  // 12 + the draft's 1
    // fp8: 2 KV heads x (256 + 256) x 1 byte a layer; 13 layers
    CHECK(spec["bytes_per_token"] == 13 * 2 * 512);
    // conv (4 - 1 + 2) x (2 x 16 x 128 + 32 x 128) x 2 B + SSM 32 x 128 x 128 x 2 B, one layer
    CHECK(group(spec, "linear_state")["state_bytes_layer"] == 5 * 8192 * 2 + 32 * 128 * 128 * 2);
    CHECK(group(base, "linear_state")["state_bytes_layer"] == 3 * 8192 * 2 + 32 * 128 * 128 * 2);
    // The block (per GPU, tp 4, 1 replicated KV head): 16 x ceildiv(conv 5 x 2048 x 2 + SSM 8 x 128 x
    // 128 x 2, 16 x 1 x 512) = 16 x ceildiv(282,624, 8,192) = 560; without the draft 16 x 34 = 544.
    CHECK(spec["vllm_block_size"] == 560);
    CHECK(base["vllm_block_size"] == 544);
    CHECK(group(spec, "linear_state")["vllm_blocks"] == 3);  // 1 + num_speculative_tokens 2
    CHECK(group(base, "linear_state")["vllm_blocks"] == 1);
    // One request per GPU: 13 full layers x ceildiv(10,000, 560) = 18 blocks, and 36 linear
    // layers + 3 padding (groups of 13) x 3 state blocks, each block a page of 560 x 512 B.
    CHECK(spec["kv_bytes_per_gpu"] == (13 * 18 + 39 * 3) * 560 * 512);
}

TEST_CASE("speculative: Qwen3.6 (qwen3_5_moe_text) under prefix caching keeps two state blocks") {
    const std::string config = read_file(std::string(KVCALC_SOURCE_DIR) + qwen36);
    const json opts = {{"context", 131072}, {"kv_dtype", "fp8"}, {"accounting", "vllm"}};
    json align_opts = opts;
    align_opts["mamba_cache_mode"] = "align";
    const json none = size_of(config, opts), align = size_of(config, align_opts);
    INFO(kvcalc::to_text(align));
    REQUIRE_FALSE(align.contains("error"));
    CHECK(align["mamba_cache_mode"] == "align");
    // Align mode does not round the block to the Mamba chunk (only mode "all" does): 16 x
    // ceildiv(3 x 8192 x 2 + 32 x 128 x 128 x 4, 16 x 2 x 512 x 1) = 16 x 131 = 2096 either way.
    CHECK(align["vllm_block_size"] == 2096);
    CHECK(none["vllm_block_size"] == 2096);
    CHECK(group(align, "linear_state")["vllm_blocks"] == 2);
    // 10 full layers x ceildiv(131,072, 2096) = 63 blocks + 30 linear layers x 2 (align) or 1
    const std::uint64_t page = 2096 * 1024;
    CHECK(align["kv_bytes_per_gpu"] == (10 * 63 + 30 * 2) * page);
    CHECK(none["kv_bytes_per_gpu"] == (10 * 63 + 30 * 1) * page);
    // With an MTP draft as well: mtp_num_hidden_layers 1 more full layer, 2 + 1 state blocks.
    json both_opts = align_opts;
    both_opts["num_speculative_tokens"] = 1;
    const json both = size_of(config, both_opts);
    CHECK(group(both, "full_attention")["layers"] == 11);
    CHECK(group(both, "linear_state")["vllm_blocks"] == 3);
    // The config's own warning that its MTP layer is not counted goes: it is counted now.
    for (const auto& w : both["warnings"])
        CHECK(w["field"] != "text_config.mtp_num_hidden_layers");
}

TEST_CASE("speculative: DeepSeek-V3's deepseek_mtp draft adds num_nextn_predict_layers MLA layers") {
    const std::string config = shared_config("deepseek-ai--DeepSeek-V3.json");
    const json r = size_of(config, {{"context", 4096}, {"num_speculative_tokens", 1}});
    INFO(kvcalc::to_text(r));
    REQUIRE_FALSE(r.contains("error"));
    CHECK(r["num_layers"]["value"] == 62);  // num_hidden_layers 61 + num_nextn_predict_layers 1
    // (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B a layer, 62 layers
    CHECK(r["bytes_per_token"] == 62 * 576 * 2);
    // The field is required there: vLLM reads config.num_nextn_predict_layers with no default.
    json cfg = *kvcalc::parse_json_text(config);
    cfg.erase("num_nextn_predict_layers");
    const json e = size_of(kvcalc::to_text(cfg), {{"num_speculative_tokens", 1}});
    CHECK(e["error"]["code"] == "missing_field");
    CHECK(e["error"]["field"] == "num_nextn_predict_layers");
}

TEST_CASE("speculative: bad input is refused by name, and 0 changes nothing") {
    const std::string next = shared_config(qwen3_next);
    auto error_of = [](const std::string& config, const json& options) {
        json r = size_of(config, options);
        INFO(kvcalc::to_text(r));
        REQUIRE(r.contains("error"));
        return r["error"];
    };
    json e = error_of(shared_config("meta-llama--Llama-3.1-8B.json"), {{"num_speculative_tokens", 2}});
    CHECK(e["code"] == "bad_option");
    CHECK(e["field"] == "num_speculative_tokens");
    CHECK(e["message"] ==
          "num_speculative_tokens: kvcalc models the KV cache of vLLM's MTP drafts of qwen3_next, "
          "qwen3_5_text, "
          "qwen3_5_moe_text, deepseek_v3, step3p5 models only; a draft for this llama model (its own MTP "
          "layers or a "
          "separate draft model) is not modelled");
    e = error_of(next, {{"num_speculative_tokens", 1025}});
    CHECK(e["field"] == "num_speculative_tokens");
    CHECK(e["message"] == "num_speculative_tokens: must be from 0 to 1024, got 1025");
    e = error_of(next, {{"num_speculative_tokens", -1}});
    CHECK(e["code"] == "bad_option");
    CHECK(e["field"] == "num_speculative_tokens");
    e = error_of(next, {{"num_speculative_tokens", 1e30}});
    CHECK(e["code"] == "bad_option");
    CHECK(e["field"] == "num_speculative_tokens");
    e = error_of(next, {{"num_speculative_tokens", "2"}});
    CHECK(e["field"] == "num_speculative_tokens");
    e = error_of(next, {{"num_speculative_tokens", 1}, {"pp", 2}});
    CHECK(e["field"] == "pp");
    e = error_of(next, {{"mamba_cache_mode", "all"}});
    CHECK(e["field"] == "mamba_cache_mode");
    CHECK(e["message"] == "mamba_cache_mode: must be none or align, got \"all\"");
    // A draft layer count that is not a positive whole number names the field.
    json cfg = *kvcalc::parse_json_text(next);
    cfg["num_nextn_predict_layers"] = 0;
    e = error_of(kvcalc::to_text(cfg), {{"num_speculative_tokens", 1}});
    CHECK(e["field"] == "num_nextn_predict_layers");
    cfg["num_nextn_predict_layers"] = 2;
    json two = size_of(kvcalc::to_text(cfg), {{"num_speculative_tokens", 1}});
    CHECK(group(two, "full_attention")["layers"] == 14);  // 12 + 2 draft layers
    // 0 speculative tokens: the model as it is.
    CHECK(size_of(next, {{"num_speculative_tokens", 0}})["kv_bytes"] ==
          size_of(next, json::object())["kv_bytes"]);
    // The options are vLLM's: an SGLang check refuses them.
    json sg = *kvcalc::parse_json_text(
        kvcalc::check_json(next, kvcalc::to_text(json{{"max_context", 4096},
                                                      {"pool_tokens", 100000},
                                                      {"engine", "sglang"},
                                                      {"num_speculative_tokens", 1}})));
    CHECK(sg["error"]["field"] == "num_speculative_tokens");
    CHECK(sg["error"]["message"] ==
          "num_speculative_tokens is vLLM's: kvcalc does not model SGLang's draft pool or its Mamba cache");
    // The check refuses the same way.
    json c = *kvcalc::parse_json_text(kvcalc::check_json(
        shared_config("meta-llama--Llama-3.1-8B.json"),
        kvcalc::to_text(
            json{{"max_context", 4096}, {"pool_tokens", 100000}, {"num_speculative_tokens", 1}})));
    CHECK(c["error"]["field"] == "num_speculative_tokens");
}

TEST_CASE(
    "speculative: the check reads the speculative tokens and the Mamba cache mode from vLLM's arguments") {
    const std::string config = read_file(std::string(KVCALC_SOURCE_DIR) + qwen36);
    auto check = [&](const std::string& args, json options) {
        options["engine_log"] = "(APIServer pid=1) INFO [api_utils.py:273] non-default args: {" + args +
                                "}\n(EngineCore pid=107) INFO [gpu_worker.py:508] Available KV cache memory: "
                                "5.98 GiB\n";
        auto r = kvcalc::parse_json_text(kvcalc::check_json(config, kvcalc::to_text(options)));
        REQUIRE(r.ok());
        return *r;
    };
    const std::string spec =
        "'max_model_len': 131072, 'kv_cache_dtype': 'fp8', 'enable_prefix_caching': True, "
        "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 2}";
    json r = check(spec + ", 'mamba_cache_mode': 'align'", json::object());
    INFO(kvcalc::to_text(r));
    REQUIRE_FALSE(r.contains("error"));
    // 10 + 1 draft layer against 30 linear ones: groups of 11, 3 padding layers. The block:
    // 16 x ceildiv((4 - 1 + 2) x 8192 x 2 + 32 x 128 x 128 x 4, 16 x 2 x 512 x 1) = 16 x 133.
    CHECK(r["block_size"] == 2128);
    CHECK(r["log_blocks"]["padding_layers"] == 3);
    // ceildiv(131,072, 2128) = 62 blocks + 3 linear groups x (2 + 2) state blocks
    CHECK(r["log_blocks"]["blocks_per_request"] == 62 + 3 * 4);
    // Prefix caching without a stated mode: none is assumed, and said.
    r = check(spec, json::object());
    REQUIRE_FALSE(r.contains("error"));
    CHECK(r["log_blocks"]["blocks_per_request"] == 62 + 3 * 3);
    bool said = false;
    for (const auto& w : r["warnings"])
        said |= w["field"] == "mamba_cache_mode";
    CHECK(said);
    // The option overrides the log; mode all is refused by name.
    CHECK(check(spec, {{"mamba_cache_mode", "align"}})["log_blocks"]["blocks_per_request"] == 62 + 3 * 4);
    CHECK(check(spec, {{"num_speculative_tokens", 0}})["block_size"] == 2096);
    r = check(spec + ", 'mamba_cache_mode': 'all'", json::object());
    CHECK(r["error"]["field"] == "mamba_cache_mode");
}
