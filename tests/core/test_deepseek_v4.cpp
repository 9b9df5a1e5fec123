// DeepSeek-V4 (DeepseekV4ForCausalLM, model_type deepseek_v4) stays refused by name: vLLM gives
// each layer several caches of different block sizes in one packed pool, and how it pages and packs
// them (kv_cache_interface.py, kv_cache_utils.py for V4) is in no vLLM commit kvcalc read. These
// cases hold the refusal to every way a V4 config can arrive: never a partial figure.
#include "config/architectures.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;

namespace {

std::string fixture(const std::string& name) {
    return read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/" + name);
}

// The family's reason, as `kvcalc architectures` lists it.
std::string v4_reason() {
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

TEST_CASE("DeepSeek-V4's refusal names what vLLM caches and what kvcalc did not read") {
    const std::string reason = v4_reason();
    // What was read (vLLM's model and cache files), each with the config field it comes from.
    for (const char* part :
         {"sliding_window", "584 B a token in fp8_ds_mla, blocks of 64", "compress_ratios",
          "one 584 B entry per 4 or 128 tokens", "fp32 compressor state (blocks of 4 or 8)",
          "index_head_dim + index_head_dim / 128 x 4 B per 4 tokens", "576 B", "deepseek_v4_attention.py",
          "sparse_swa.py", "deepseek_compressor.py"}) {
        INFO(part);
        CHECK(reason.find(part) != std::string::npos);
    }
    // What was not read, by file: the reason a figure would be a guess.
    CHECK(reason.find("kv_cache_interface.py and kv_cache_utils.py for DeepSeek-V4") != std::string::npos);
    CHECK(reason.find("the block size it serves V4 with") != std::string::npos);
    CHECK(reason.find("so kvcalc gives no figure") != std::string::npos);
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
        CHECK(m.error().message == "DeepseekV4ForCausalLM is not sized by kvcalc: " + v4_reason());
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
    const std::string reason = v4_reason();
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
    const std::string reason = v4_reason();
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
