// Every error kind with its exact message, each followed by a valid call: errors are
// data, and the core keeps working after any number of them.
#include "api.hpp"
#include "config/json.hpp"
#include "report.hpp"
#include "support.hpp"

using namespace kvtest;

namespace {

// A plain 32-layer MHA model, 2 x 32 x 32 x 128 x 2 = 524,288 B per token.
const char* valid = R"({"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
                       "torch_dtype": "float16", "max_position_embeddings": 4096})";

kvcalc::Error error_of(const std::string& config, kvcalc::SizeOptions o = at(4096)) {
    auto m = kvcalc::read_model_text(config);
    if (!m) return m.error();
    auto r = kvcalc::size_model(*m, o);
    REQUIRE_FALSE(r.ok());
    return r.error();
}

void still_works() {
    auto m = kvcalc::read_model_text(valid);
    REQUIRE(m.ok());
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 524288);  // 2 x 32 x 32 x 128 x 2
}

struct Case {
    const char* name;
    std::string config;
    const char* code;
    const char* field;
    const char* message;
    int line = 0;
    int column = 0;
};

}  // namespace

TEST_CASE("config errors name the field and the value, and the next call works") {
    const Case cases[] = {
        {"malformed: double comma", R"({"num_hidden_layers": 32,,})", "malformed_json", "",
         "malformed JSON at line 1, column 26: syntax error while parsing object key - unexpected ','; "
         "expected string literal",
         1, 26},
        {"malformed: missing comma on line 3",
         "{\"num_hidden_layers\": 32,\n  \"num_attention_heads\": 32\n  \"hidden_size\": 4096}",
         "malformed_json", "",
         "malformed JSON at line 3, column 15: syntax error while parsing object - unexpected string "
         "literal; expected '}'",
         3, 15},
        {"malformed: column counts the original NaN, not its rewrite",
         R"({"a": NaN, "num_hidden_layers": 3 x})", "malformed_json", "",
         "malformed JSON at line 1, column 35: syntax error while parsing object - invalid literal; last "
         "read: '3 x'; expected '}'",
         1, 35},
        {"malformed: truncated", R"({"num_hidden_layers": 32)", "malformed_json", "",
         "malformed JSON at line 1, column 25: syntax error while parsing object - unexpected end of input; "
         "expected '}'",
         1, 25},
        {"malformed: number too large for a double", R"({"num_hidden_layers": 3, "hidden_size": 1e400})",
         "malformed_json", "", "malformed JSON at line 1, column 45: number overflow parsing '1e400'", 1, 45},
        {"duplicate key", R"({"num_hidden_layers": 32, "num_hidden_layers": 3})", "malformed_json",
         "num_hidden_layers", "duplicate key \"num_hidden_layers\" in the top-level object"},
        {"not an object", "[1, 2]", "invalid_value", "", "the config must be a JSON object, got [1,2]"},
        {"missing layer count", R"({"hidden_size": 4096, "num_attention_heads": 32})", "missing_field",
         "num_hidden_layers",
         "missing layer count: none of num_hidden_layers, n_layer, num_layers, n_layers is in the config or "
         "its "
         "text_config"},
        {"missing query heads", R"({"num_hidden_layers": 32, "hidden_size": 4096})", "missing_field",
         "num_attention_heads", "num_attention_heads: missing (also looked for n_head, num_heads, n_heads)"},
        {"heads do not divide hidden size",
         R"({"num_hidden_layers": 32, "hidden_size": 4000, "num_attention_heads": 48})", "inconsistent",
         "hidden_size",
         "hidden_size 4000 is not divisible by num_attention_heads 48, and there is no head_dim"},
        {"zero", R"({"num_hidden_layers": 0, "hidden_size": 4096, "num_attention_heads": 32})",
         "invalid_value", "num_hidden_layers", "num_hidden_layers: must be a positive integer, got 0"},
        {"negative", R"({"num_hidden_layers": -4, "hidden_size": 4096, "num_attention_heads": 32})",
         "invalid_value", "num_hidden_layers", "num_hidden_layers: must be a positive integer, got -4"},
        {"non-integer", R"({"num_hidden_layers": 32.5, "hidden_size": 4096, "num_attention_heads": 32})",
         "invalid_value", "num_hidden_layers", "num_hidden_layers: must be an integer, got 32.5"},
        {"non-number", R"({"num_hidden_layers": "32", "hidden_size": 4096, "num_attention_heads": 32})",
         "invalid_value", "num_hidden_layers", "num_hidden_layers: must be a number, got \"32\""},
        {"NaN where a number is needed",
         R"({"num_hidden_layers": NaN, "hidden_size": 4096, "num_attention_heads": 32})", "invalid_value",
         "num_hidden_layers", "num_hidden_layers: must be a positive integer, got NaN"},
        {"Infinity where a number is needed",
         R"({"num_hidden_layers": 2, "hidden_size": Infinity, "num_attention_heads": 32})", "invalid_value",
         "hidden_size", "hidden_size: must be a positive integer, got Infinity"},
        {"null counts as missing",
         R"({"num_hidden_layers": null, "hidden_size": 4096, "num_attention_heads": 32})", "missing_field",
         "num_hidden_layers",
         "missing layer count: none of num_hidden_layers, n_layer, num_layers, n_layers is in the config or "
         "its "
         "text_config"},
        {"nested field path",
         R"({"text_config": {"num_hidden_layers": 2, "num_attention_heads": 0, "hidden_size": 4}})",
         "invalid_value", "text_config.num_attention_heads",
         "text_config.num_attention_heads: must be a positive integer, got 0"},
        {"KV heads do not divide query heads",
         R"({"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 5})",
         "inconsistent", "num_key_value_heads",
         "num_key_value_heads 5 does not divide num_attention_heads 32"},
        {"more KV heads than query heads",
         R"({"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 64})",
         "inconsistent", "num_key_value_heads",
         "num_key_value_heads 64 does not divide num_attention_heads 32"},
        {"absurd head size overflows one token",
         R"({"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 400000000000000})",
         "overflow", "head_dim",
         "one token of one full_attention layer exceeds 2^53 - 1 bytes (8 PiB), the largest figure kvcalc "
         "reports "
         "exactly: check head_dim"},
        {"too large for exact figures",
         R"({"num_hidden_layers": 3, "hidden_size": 18446744073709551615, "num_attention_heads": 1})",
         "invalid_value", "hidden_size", "hidden_size: is too large, got 18446744073709551615"},
        {"unknown dtype",
         R"({"num_hidden_layers": 3, "hidden_size": 4096, "num_attention_heads": 32, "torch_dtype": "int8"})",
         "invalid_value", "torch_dtype",
         "torch_dtype: unknown dtype \"int8\" (expected bfloat16, float16 or float32)"},
        {"MLA without its rope dim",
         R"({"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "kv_lora_rank": 512})",
         "missing_field", "qk_rope_head_dim",
         "qk_rope_head_dim: missing, but kv_lora_rank is set (MLA caches kv_lora_rank + qk_rope_head_dim per "
         "token)"},
        {"sliding layers need a window",
         R"({"num_hidden_layers": 2, "hidden_size": 4096, "num_attention_heads": 32, "layer_types": ["full_attention", "sliding_attention"]})",
         "missing_field", "sliding_window", "sliding_window: missing"},
        {"unknown layer type",
         R"({"num_hidden_layers": 2, "hidden_size": 4096, "num_attention_heads": 32, "layer_types": ["full_attention", "x"]})",
         "invalid_value", "layer_types[1]",
         "layer_types[1]: unknown layer type \"x\" (known: full_attention, sliding_attention, "
         "chunked_attention, "
         "linear_attention, mamba, conv)"},
        {"layer_types of the wrong length",
         R"({"num_hidden_layers": 3, "hidden_size": 4096, "num_attention_heads": 32, "layer_types": ["full_attention"]})",
         "inconsistent", "layer_types", "layer_types: has 1 entries but the model has 3 layers"},
        {"linear layers without state dims",
         R"({"num_hidden_layers": 4, "hidden_size": 4096, "num_attention_heads": 32, "full_attention_interval": 4})",
         "missing_field", "linear_num_value_heads",
         "linear_num_value_heads: missing: the config has linear-attention layers but no state dimensions "
         "(looked for "
         "linear_num_value_heads, mamba_num_heads, mamba_n_heads, linear_attn_config)"},
        {"hybrid pattern of the wrong length",
         R"({"num_hidden_layers": 3, "hidden_size": 4096, "num_attention_heads": 32, "hybrid_override_pattern": "M*"})",
         "inconsistent", "hybrid_override_pattern",
         "hybrid_override_pattern: has 2 characters but the model has 3 layers"},
        {"1-indexed layer list out of range",
         R"({"num_hidden_layers": 2, "hidden_size": 4096, "num_attention_heads": 32, "linear_attn_config": {"full_attn_layers": [2], "kda_layers": [0]}})",
         "invalid_value", "linear_attn_config.kda_layers[0]",
         "linear_attn_config.kda_layers[0]: must be a positive integer, got 0"},
        {"an Omni config whose thinker has no text model",
         R"({"architectures": ["Qwen2_5OmniModel"], "thinker_config": {"audio_config": {}}})",
         "missing_field", "thinker_config.text_config",
         "thinker_config.text_config: missing: the thinker's text model is what vLLM serves"},
        {"a Molmo head_dim its layers do not use",
         R"({"architectures": ["MolmoForCausalLM"], "num_hidden_layers": 2, "hidden_size": 3584, "num_attention_heads": 28, "head_dim": 64})",
         "unsupported_architecture", "head_dim",
         "head_dim: 64 is not hidden_size 3584 / num_attention_heads 28: vLLM's Molmo layers use the latter, "
         "its "
         "page sizes the former, which kvcalc does not model"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            kvcalc::Error e = error_of(c.config);
            CHECK(e.message == c.message);
            CHECK(e.code == c.code);
            CHECK(e.field == c.field);
            CHECK(e.line == c.line);
            CHECK(e.column == c.column);
            still_works();
        }
    }
}

TEST_CASE("option errors name the option") {
    auto m = kvcalc::read_model_text(valid);
    REQUIRE(m.ok());
    struct OptCase {
        const char* name;
        kvcalc::SizeOptions o;
        const char* field;
        const char* message;
    };
    kvcalc::SizeOptions tp3 = at(4096), pp0 = at(4096), dt = at(4096), mla = at(4096), prefix = at(4096),
                        big = at(4096), ctx0 = at(0), blk0 = at(4096);
    tp3.tp = 3;
    pp0.pp = 0;
    dt.kv_dtype = "fp7";
    mla.kv_dtype = "fp8_ds_mla";
    prefix.shared_prefix = 5000;
    big.batch = 100000000;
    blk0.block_size = 0;
    const OptCase cases[] = {
        {"tp not dividing heads", tp3, "tp",
         "tp 3 does not divide num_attention_heads 32 (engines shard query heads evenly)"},
        {"pp zero", pp0, "pp", "pp: must be from 1 to the model's 32 layers, got 0"},
        {"unknown kv dtype", dt, "kv_dtype",
         "kv_dtype: unknown \"fp7\" (expected auto, fp32, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, int8, int4, "
         "fp8_ds_mla)"},
        {"fp8_ds_mla on a model without MLA", mla, "kv_dtype",
         "kv_dtype fp8_ds_mla applies only to MLA layers, and this model has none"},
        {"prefix longer than the context", prefix, "shared_prefix",
         "shared_prefix 5000 is longer than the context 4096"},
        {"batch that overflows", big, "batch",
         "the KV cache of 100,000,000 sequences of 4,096 tokens in the full_attention layers exceeds 2^53 - "
         "1 bytes "
         "(8 PiB), the largest figure kvcalc reports exactly: check batch"},
        {"zero context", ctx0, "context", "context: must be a positive integer, got 0"},
        {"zero block size", blk0, "block_size", "block_size: must be from 1 to 1048576, got 0"},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            auto r = kvcalc::size_model(*m, c.o);
            REQUIRE_FALSE(r.ok());
            CHECK((r.error().code == "bad_option" || r.error().code == "overflow"));
            CHECK(r.error().field == c.field);
            CHECK(r.error().message == c.message);
            still_works();
        }
    }
}

TEST_CASE("the text API returns errors as JSON and keeps answering") {
    using kvcalc::json;
    for (int i = 0; i < 1000; ++i) {
        auto bad = kvcalc::parse_json_text(kvcalc::size_json("{\"num_hidden_layers\": ", ""));
        REQUIRE(bad.ok());
        REQUIRE(bad->contains("error"));
        CHECK((*bad)["error"]["code"] == "malformed_json");
    }
    auto out =
        kvcalc::parse_json_text(kvcalc::size_json("Qwen/Qwen2.5-7B-Instruct", R"({"context": 32768})"));
    REQUIRE(out.ok());
    CHECK((*out)["bytes_per_token"] == 57344);  // 2 x 28 x 4 x 128 x 2
    CHECK((*out)["model"] == "Qwen/Qwen2.5-7B-Instruct");

    auto unknown = kvcalc::parse_json_text(kvcalc::size_json("Qwen/Nope", ""));
    CHECK((*unknown)["error"]["message"] ==
          "\"Qwen/Nope\" is neither config JSON nor a bundled preset id (see presets)");
    auto empty = kvcalc::parse_json_text(kvcalc::size_json("  \n", ""));
    CHECK((*empty)["error"]["message"] ==
          "the config is empty: give config.json text or a bundled preset id");
    auto opt = kvcalc::parse_json_text(kvcalc::size_json(valid, R"({"contxt": 5})"));
    CHECK((*opt)["error"]["message"] == "unknown option \"contxt\"");
    CHECK((*opt)["error"]["code"] == "bad_option");
    auto neg = kvcalc::parse_json_text(kvcalc::size_json(valid, R"({"batch": -1})"));
    CHECK((*neg)["error"]["message"] == "batch: must be a positive integer, got -1");
}
