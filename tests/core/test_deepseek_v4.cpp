// DeepSeek-V4 (DeepseekV4ForCausalLM, model_type deepseek_v4) stays refused by name: vLLM gives
// each layer several caches of different block sizes in one packed pool. How it pages and packs them
// was read (kv_cache_interface.py, kv_cache_utils.py at the fork zyongye/vllm 434b1bd) and agrees
// with a published vLLM line, but kvcalc's layer plan has no packed set of caches per layer, and the
// pools released vLLMs report for V4 (vllm-project/vllm#51041, #51454) are not reproduced: they do
// not state num_blocks or max_num_batched_tokens, and the bytes a block changed between versions.
// These cases hold the refusal to every way a V4 config can arrive: never a partial figure.
#include "config/architectures.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;

namespace {

std::string fixture(const std::string& name) {
    return read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/" + name);
}

// The family's reason as `kvcalc architectures` lists it: the refusal's reason, then the sources and
// the arithmetic behind it.
std::string v4_reason() {
    return kvcalc::family_caches("deepseek_v4");
}

// The reason a refusal message gives: the inventory's first part, without the sources.
std::string v4_message_reason() {
    const kvcalc::Architecture* a = kvcalc::find_architecture("DeepseekV4ForCausalLM");
    REQUIRE(a != nullptr);
    const kvcalc::Family& f = kvcalc::family_of(*a);
    CHECK(f.support == kvcalc::Support::refused);
    return f.caches;
}

// A small V4-shaped config: 4 layers (0: sliding only, 4, 128, 4), plus the MTP layer's entry.
const std::string small_v4 = R"("compress_ratios": [0, 4, 128, 4, 0], "head_dim": 512, "hidden_size": 4096,
    "index_head_dim": 128, "max_position_embeddings": 1048576, "num_attention_heads": 64,
    "num_hidden_layers": 4, "num_key_value_heads": 1, "qk_rope_head_dim": 64, "sliding_window": 128,
    "torch_dtype": "bfloat16")";

}  // namespace

TEST_CASE("DeepSeek-V4's refusal: a reason a reader can take in, the sources in the inventory") {
    const std::string brief = v4_message_reason();
    // The caches a layer has, and why there is no figure, in a few lines: the message a pasted config
    // gets. The inventory (kvcalc architectures, the Architectures page) gives it, then the sources.
    CHECK(
        brief ==
        "several caches per layer in one packed pool: a sliding cache on every layer and, on a layer whose "
        "compress_ratios entry is 4 or 128, a compressed MLA cache and an fp32 compressor state (at ratio 4 "
        "also an indexer key cache and its state). vLLM changed how it pages and packs them between "
        "releases, and no released vLLM's reported pool is reproduced, so kvcalc gives no figure rather than "
        "a guess (kvcalc architectures gives the sources and the arithmetic).");
    CHECK(v4_reason().rfind(brief + " Read in vllm-project/vllm (", 0) == 0);
}

TEST_CASE("DeepSeek-V4's refusal names what vLLM caches and what kvcalc did not read") {
    const std::string reason = v4_reason();
    // What was read: each cache with the vLLM file, class and function that declares it, the commit
    // it was read at, and how kv_cache_utils.py packs the caches into one pool.
    for (const char* part :
         {"deepseek_v4_attention.py 0a291a2", "deepseek_compressor.py 0de10a2", "zyongye/vllm 434b1bd",
          "bc8282e and bbf906a, predate V4",
          "DeepseekV4SWACache.get_kv_cache_spec: a SlidingWindowMLASpec, blocks of 64, 584 B a token in "
          "fp8_ds_mla",
          "DeepseekV4MLAAttention.get_kv_cache_spec: an MLAAttentionSpec of block_size / ratio entries of "
          "584 B",
          "CompressorStateCache: 2 x (1 + (ratio == 4)) x head_dim floats a slot, blocks of 4 or 8",
          "DeepseekV4IndexerCache.get_kv_cache_spec: an MLAAttentionSpec of block_size / 4 entries of "
          "index_head_dim + "
          "index_head_dim / 128 x 4 B",
          "its own compressor state (2 x 2 x index_head_dim floats a slot, blocks of 4)",
          "576 B (kv_cache_interface.py _apply_alignment_padding)", "group_and_unify_kv_cache_specs",
          "a group per (block_size, sliding_window)", "_get_kv_cache_groups_uniform_groups",
          "_approximate_gcd",
          "_get_kv_cache_config_deepseek_v4 takes num_blocks = available memory // (the compressed group's "
          "page sizes "
          "summed x that count)",
          "The block size is 256 (sparse_swa.py DeepseekSparseSWABackend.get_preferred_block_size",
          "'Setting kv cache block size to 256 for DEEPSEEK_SPARSE_SWA backend', vllm-project/vllm#51041"}) {
        INFO(part);
        CHECK(reason.find(part) != std::string::npos);
    }
    // The packing's arithmetic against a published vLLM line, with the figures written out.
    CHECK(reason.find(
              "22 layer tuples x 47,808 B x (118 + 2 x 259 + 4,099 + 2,065) pages = 7,152,076,800 B, the "
              "'6.66 GiB KV cache is needed' of vllm-project/vllm#44376") != std::string::npos);
    // What kvcalc lacks, by piece: the reason a figure would be a guess.
    for (const char* part :
         {"kvcalc gives no figure yet: its layer plan keeps one cache per layer, not this packed set",
          "no published report of a released vLLM's pool is reproduced"}) {
        INFO(part);
        CHECK(reason.find(part) != std::string::npos);
    }
}

TEST_CASE("DeepSeek-V4's refusal names how released vLLMs report the pool and why no log is reproduced") {
    const std::string reason = v4_reason();
    // The reporting rule, with where it was read, and the figure that rules out the fork's rule:
    // num_blocks // 5 groups x 4 (the smallest block size, the ratio-4 states) is a multiple of 4;
    // 1,009,661 = 4 x 252,415 + 1 and 17,954,198 = 4 x 4,488,549 + 2 are not.
    for (const char* part :
         {"vLLM 0.25.0 and 0.26.0 log 'GPU KV cache size' as int(max_concurrency x max_model_len), "
          "max_concurrency being num_blocks / the pages a request of max_model_len takes",
          "_report_kv_cache_config and get_max_concurrency_for_kv_cache_config, quoted on #51041",
          "a copy of kv_cache_planning.py that holds _get_kv_cache_config_deepseek_v4",
          "not the fork's num_blocks // groups x the smallest block size, 4: the logged 1,009,661 (#51041) ",
          "and 17,954,198 (vllm-project/vllm#51454) are not multiples of 4"}) {
        INFO(part);
        CHECK(reason.find(part) != std::string::npos);
    }
    // The published pairs, as published: 1,009,661 / 912,128 = 1.107 (1.11x), 150,992 / 121,344 =
    // 1.244 (1.24x), 17,954,198 / 1,048,576 = 17.122 (17.12x): each agrees with the rule, none can be
    // derived, for want of num_blocks and max_num_batched_tokens.
    for (const char* part :
         {"7.01 GiB, 1,009,661 tokens, 1.11x at 912,128 (DeepSeek-V4-Flash)",
          "7.71 GiB, 150,992 tokens, 1.24x at 121,344 (DeepSeek-V4-Flash-0731)",
          "vLLM 0.26.0 on 2 x H20 with MTP (a table in #51041, not log lines)",
          "17,954,198 tokens, 17.12x at 1,048,576 (#51454, vLLM 0.25.0, 8 x B200, no pool bytes)",
          "state neither num_blocks nor max_num_batched_tokens"}) {
        INFO(part);
        CHECK(reason.find(part) != std::string::npos);
    }
    // The pool's bytes a block, by version: 5 groups of 22 layer tuples of 37,440 + 8,640 + 1,728 B in
    // the fork; the compressed group alone (21 ratio-4 caches, 21 indexer caches, 20 ratio-128 caches)
    // in vllm-project/vllm.
    for (const char* part :
         {"22 x 47,808 = 1,051,776 B at zyongye/vllm 434b1bd",
          "vllm-project/vllm 4253bd4, kv_cache_planning.py _get_kv_cache_bytes_per_block: 21 x 37,440 + 21 x "
          "8,640 + 20 x 1,728 = 1,002,240 B",
          "vllm-project/vllm#54703 logs for V4-Flash's 62 compressed caches in a v0.28.1-based build",
          "no whole num_blocks within 7.01 or 7.71 GiB (rounded) and no whole page count a request give "
          "#51041's token counts"}) {
        INFO(part);
        CHECK(reason.find(part) != std::string::npos);
    }
}

TEST_CASE("the published DeepSeek-V4-Flash and -Pro configs are refused by the architecture") {
    // num_hidden_layers, and compress_ratios with one more entry than layers (vLLM deepseek_v4.py
    // DeepseekV4Attention: layer i < num_hidden_layers takes max(1, compress_ratios[i]), the MTP layer 1).
    struct Published {
        const char* file;
        std::size_t layers, sliding_only, ratio4, ratio128;
    };
    for (const Published& p : {Published{"deepseek-ai--DeepSeek-V4-Flash.json", 43, 2, 21, 20},
                               Published{"deepseek-ai--DeepSeek-V4-Pro.json", 61, 0, 30, 31}}) {
        INFO(p.file);
        const std::string text = fixture(p.file);
        auto parsed = kvcalc::parse_json_text(text);
        REQUIRE(parsed.ok());
        const json& c = *parsed;
        REQUIRE(c["num_hidden_layers"] == p.layers);
        const json& ratios = c["compress_ratios"];
        REQUIRE(ratios.size() == p.layers + 1);
        std::size_t zero = 0, four = 0, big = 0;
        for (std::size_t i = 0; i < p.layers; ++i) {
            const int r = ratios[i].get<int>();
            zero += r == 0;
            four += r == 4;
            big += r == 128;
        }
        CHECK(zero == p.sliding_only);  // Flash: 2 + 21 + 20 = 43; Pro: 0 + 30 + 31 = 61
        CHECK(four == p.ratio4);
        CHECK(big == p.ratio128);
        CHECK(zero + four + big == p.layers);
        CHECK(ratios[p.layers] == 0);  // the MTP layer's entry
        CHECK(c["sliding_window"] == 128);
        CHECK(c["head_dim"] == 512);
        CHECK(c["index_head_dim"] == 128);

        auto m = kvcalc::read_model_text(text);
        REQUIRE_FALSE(m.ok());
        CHECK(m.error().code == std::string(kvcalc::code::unsupported));
        CHECK(m.error().field == "architectures");
        CHECK(m.error().message == "DeepseekV4ForCausalLM is not sized by kvcalc: " + v4_message_reason());
        // The one-shot API (the CLI's and the module's size, with its weights estimate) answers the
        // same error and no figure.
        auto report = kvcalc::parse_json_text(kvcalc::size_json(text, ""));
        REQUIRE(report.ok());
        REQUIRE(report->contains("error"));
        CHECK((*report)["error"]["field"] == "architectures");
        CHECK_FALSE(report->contains("bytes_per_token"));
        CHECK_FALSE(report->contains("weights"));
    }
}

TEST_CASE("a DeepSeek-V4 config without its architecture is refused by model_type, not sized") {
    const std::string reason = v4_message_reason();
    SECTION("model_type deepseek_v4 and no architectures") {
        // Read as a standard decoder before, this one was sized as 4 sliding layers of 1 KV head x 512:
        // 2 x 4 x 1 x 512 x 2 = 8,192 B a token, a figure vLLM's layout has nothing to do with.
        std::string no_ratios = small_v4.substr(small_v4.find("\"head_dim\""));
        for (const std::string& body : {small_v4, no_ratios}) {
            INFO(body.substr(0, 40));
            auto m = kvcalc::read_model_text(R"({"model_type": "deepseek_v4", )" + body + "}");
            REQUIRE_FALSE(m.ok());
            CHECK(m.error().code == std::string(kvcalc::code::unsupported));
            CHECK(m.error().field == "model_type");
            CHECK(m.error().message == "model_type deepseek_v4 is not sized by kvcalc: " + reason);
        }
    }
    SECTION("model_type deepseek_v4 under an architecture vLLM's registry does not have") {
        auto m = kvcalc::read_model_text(
            R"({"architectures": ["DeepseekV4NextForCausalLM"], "model_type": "deepseek_v4", )" + small_v4 +
            "}");
        REQUIRE_FALSE(m.ok());
        CHECK(m.error().field == "model_type");
    }
    SECTION("compress_ratios alone, under an unknown architecture and model_type: refused by the field") {
        auto m = kvcalc::read_model_text(
            R"({"architectures": ["SomethingNewForCausalLM"], "model_type": "new", )" + small_v4 + "}");
        REQUIRE_FALSE(m.ok());
        CHECK(m.error().field == "compress_ratios");
        CHECK(m.error().message.find("compressed attention with several caches per layer in one packed pool "
                                     "(DeepSeek-V4)") != std::string::npos);
    }
    SECTION("an architecture vLLM knows wins over a model_type that names a refused family") {
        // model_type only decides when the architecture is missing or unknown.
        auto m =
            kvcalc::read_model_text(R"({"architectures": ["LlamaForCausalLM"], "model_type": "deepseek_v4",
            "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "torch_dtype": "bfloat16"})");
        REQUIRE(m.ok());
        auto r = kvcalc::size_model(*m, at(16));
        REQUIRE(r.ok());
        CHECK(r->bytes_per_token == 2 * 2 * 4 * 16 * 2);  // 2 x 2 layers x 4 KV heads x (64 / 4) x 2 B = 512
    }
}

TEST_CASE("a malformed DeepSeek-V4 config gets the architecture's refusal, never a crash or a figure") {
    const std::string reason = v4_message_reason();
    // compress_ratios too short, of the wrong type, negative or absent; sliding_window null.
    for (const std::string& bad :
         {std::string(R"("compress_ratios": [4], "num_hidden_layers": 4)"),
          std::string(R"("compress_ratios": "4,128", "num_hidden_layers": 4)"),
          std::string(R"("compress_ratios": [-4, 0, 0, 0, 0], "num_hidden_layers": 4)"),
          std::string(R"("num_hidden_layers": 4, "sliding_window": null)")}) {
        INFO(bad);
        auto m = kvcalc::read_model_text(R"({"architectures": ["DeepseekV4ForCausalLM"], )" + bad + "}");
        REQUIRE_FALSE(m.ok());
        CHECK(m.error().field == "architectures");
        CHECK(m.error().message == "DeepseekV4ForCausalLM is not sized by kvcalc: " + reason);
    }
    // No layer count at all: the error names the missing field, before any architecture is weighed.
    auto none = kvcalc::read_model_text(R"({"architectures": ["DeepseekV4ForCausalLM"], "head_dim": 512})");
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().field == "num_hidden_layers");
}
