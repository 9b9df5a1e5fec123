// Parsed models evaluated many times: the size plan against size_model, the series call and
// its variants (the GQA demo's KV-head counts and MLA point), and the session's cache.
#include "api.hpp"
#include "report.hpp"
#include "sizing/series.hpp"
#include "support.hpp"

using kvcalc::json;
using kvtest::model;

namespace {

json series(const std::string& config, const std::string& options, const std::string& axes) {
    auto out = kvcalc::parse_json_text(kvcalc::Session().series(config, options, axes));
    REQUIRE(out.ok());
    INFO(kvcalc::to_text(*out));
    REQUIRE_FALSE(out->contains("error"));
    return *out;
}

}  // namespace

TEST_CASE("size plan: figures at any context equal size_model's") {
    for (const char* file : {"mistralai--Mistral-7B-v0.1.json", "google--gemma-4-26B-A4B.json",
                             "Qwen--Qwen3-Next-80B-A3B-Instruct.json", "deepseek-ai--DeepSeek-V3.json"}) {
        const kvcalc::ModelSpec m = model(file);
        for (auto acc : {kvcalc::Accounting::naive, kvcalc::Accounting::resident, kvcalc::Accounting::vllm}) {
            kvcalc::SizeOptions o;
            o.accounting = acc;
            o.batch = 3;
            o.tp = 2;
            auto plan = kvcalc::SizePlan::make(m, o);
            REQUIRE(plan.ok());
            for (std::uint64_t c : {1u, 17u, 4096u, 4097u, 131072u}) {
                INFO(file << " at " << c);
                o.context = c;
                auto full = kvcalc::size_model(m, o);
                auto f = plan->figures(c);
                REQUIRE(full.ok());
                REQUIRE(f.ok());
                CHECK(f->kv_bytes == full->kv_bytes);
                CHECK(f->kv_bytes_per_gpu == full->kv_bytes_per_gpu);
                CHECK(f->kv_bytes_deployment == full->kv_bytes_deployment);
                CHECK(f->sequence_bytes_vllm == full->sequence_bytes_vllm);
                CHECK(plan->bytes_per_token() == full->bytes_per_token);
            }
        }
    }
}

TEST_CASE("series: contexts x dtypes of one model") {
    // Mistral-7B: 2 x 32 layers x 8 KV heads x 128 = 65,536 elements per token; every layer
    // slides with a 4,096-token window, so the resident cache stops growing at 4,096.
    json s = series("mistralai/Mistral-7B-v0.1", "{}",
                    R"({"contexts": [1024, 4096, 32768], "kv_dtypes": ["auto", "fp8", "fp8_ds_mla"]})");
    CHECK(s["contexts"] == json::array({1024, 4096, 32768}));
    REQUIRE(s["series"].size() == 3);
    const json& bf16 = s["series"][0];
    CHECK(bf16["kv_dtype"] == "auto");
    CHECK(bf16["kv_dtype_name"] == "bf16");
    CHECK(bf16["bytes_per_token"] == 131072);  // 65,536 x 2 B
    CHECK(bf16["kv_heads"] == 8);
    CHECK(bf16["kv_bytes"] == json::array({131072ull * 1024, 131072ull * 4096, 131072ull * 4096}));
    const json& fp8 = s["series"][1];
    CHECK(fp8["bytes_per_token"] == 65536);  // x 1 B
    CHECK(fp8["kv_bytes"][2] == 65536ull * 4096);
    // fp8_ds_mla needs MLA layers: that series alone carries the error.
    const json& bad = s["series"][2];
    CHECK(bad["kv_bytes"].is_null());
    CHECK(bad["error"]["field"] == "kv_dtype");
    CHECK(bad["error"]["message"] ==
          "kv_dtype fp8_ds_mla applies only to MLA layers, and this model has none");
}

TEST_CASE("series: the GQA demo's variants come from the core") {
    json s = series("mistralai/Mistral-7B-v0.1", R"({"context": 4096})",
                    R"({"variants": ["model", {"kv_heads": 1}, {"kv_heads": 32}, "mla", {"kv_heads": 3}]})");
    const json& list = s["series"];
    REQUIRE(list.size() == 5);
    CHECK(list[0]["bytes_per_token"] == 131072);  // 2 x 32 x 8 x 128 x 2 B
    CHECK(list[1]["bytes_per_token"] == 16384);   // 2 x 32 x 1 x 128 x 2 B: MQA
    CHECK(list[1]["attention_kind"] == "MQA, sliding window");
    CHECK(list[2]["bytes_per_token"] == 524288);  // 2 x 32 x 32 x 128 x 2 B: MHA
    CHECK(list[2]["kv_heads"] == 32);
    // MLA on Mistral's 32 layers: one latent of 512 + 64 per token and layer, no factor 2, and
    // no window (MLA layers attend to the whole context): 32 x 576 x 2 B = 36,864 B.
    CHECK(list[3]["bytes_per_token"] == 36864);
    CHECK(list[3]["latent_dim"] == 576);
    CHECK(list[3]["kv_heads"].is_null());
    CHECK(list[3]["attention_kind"] == "MLA");
    CHECK(list[3]["kv_bytes"][0] == 36864ull * 4096);
    // 3 does not divide 32 query heads.
    CHECK(list[4]["error"]["message"] == "3 KV heads do not divide num_attention_heads 32");
}

TEST_CASE("series: an MLA model expands into heads, and keeps its own latent") {
    // DeepSeek-V3: 61 layers, latent 512 + 64 = 576: 61 x 576 x 2 B = 70,272 B per token.
    // Expanded: each head keeps a key of qk_nope 128 + qk_rope 64 = 192 and a value of 128.
    json s = series("deepseek-ai/DeepSeek-V3", R"({"context": 4096})",
                    R"({"variants": ["mla", {"kv_heads": 1}, {"kv_heads": 128}]})");
    const json& list = s["series"];
    CHECK(list[0]["bytes_per_token"] == 70272);
    CHECK(list[1]["bytes_per_token"] == 39040);    // 61 x 1 x (192 + 128) x 2 B
    CHECK(list[2]["bytes_per_token"] == 4997120);  // 61 x 128 x (192 + 128) x 2 B
    CHECK(list[2]["attention_kind"] == "MHA");
}

TEST_CASE("series: malformed axes are errors naming them") {
    kvcalc::Session session;
    auto error = [&](const std::string& axes) {
        auto out = kvcalc::parse_json_text(session.series("Qwen/Qwen3-8B", "{}", axes));
        REQUIRE(out.ok());
        REQUIRE(out->contains("error"));
        return (*out)["error"];
    };
    CHECK(error(R"({"contexts": []})")["message"] == "contexts: must be a non-empty list, got []");
    CHECK(error(R"({"contexts": [0]})")["message"] == "contexts[0]: must be a positive integer, got 0");
    CHECK(error(R"({"colours": [1]})")["message"] ==
          "unknown axis \"colours\" (axes: contexts, kv_dtypes, variants)");
    CHECK(error(R"({"variants": ["gqa"]})")["message"] ==
          "variants[0]: must be \"model\", \"mla\" or {\"kv_heads\": N}, got \"gqa\"");
    CHECK(error(R"({"kv_dtypes": [8]})")["message"] == "kv_dtypes[0]: must be a string, got 8");
    CHECK(error("[")["field"] == "axes");
    // And the session goes on answering.
    auto ok = kvcalc::parse_json_text(session.series("Qwen/Qwen3-8B", "{}", R"({"contexts": [4096]})"));
    CHECK((*ok)["series"][0]["kv_bytes"][0] == 147456ull * 4096);  // 2 x 36 x 8 x 128 x 2 B per token
}

TEST_CASE("session: a config is read once and kept, the least recently used leaving first") {
    kvcalc::Session session(2);
    auto a = session.model("Qwen/Qwen3-8B");
    auto again = session.model("Qwen/Qwen3-8B");
    REQUIRE(a.ok());
    CHECK(a->get() == again->get());  // the same reading, not a new one
    auto text = kvtest::shared_config("mistralai--Mistral-7B-v0.1.json");
    auto b = session.model(text);
    auto c = session.model("deepseek-ai/DeepSeek-V3");  // a third: Qwen3-8B was used least recently
    REQUIRE(b.ok());
    REQUIRE(c.ok());
    CHECK(session.model(text)->get() == b->get());
    CHECK(session.model("Qwen/Qwen3-8B")->get() != a->get());  // read again
    auto bad = session.model("{\"num_hidden_layers\": 0}");
    CHECK_FALSE(bad.ok());
    CHECK(bad.error().message == "num_hidden_layers: must be a positive integer, got 0");
}

namespace {

// The size report of `config` with `options` (JSON text), and size_figures of the same.
struct Both {
    json report;
    kvcalc::Result<kvcalc::ModelFigures> figures;
};

Both both(const std::string& config, const std::string& options) {
    auto m = kvcalc::read_config(config);
    INFO(options);
    REQUIRE(m.ok());
    auto report = kvcalc::parse_json_text(kvcalc::size_text(*m, options));
    REQUIRE(report.ok());
    return {*report, kvcalc::size_figures(*m, options)};
}

}  // namespace

TEST_CASE("figures: size_figures is the size report's headline, without the report") {
    // Qwen2.5-7B-Instruct: 2 x 28 layers x 4 KV heads x 128 x 2 B = 57,344 B per token;
    // x 32,768 tokens = 1,879,048,192 B; a batch of 4 = 7,516,192,768 B, half on each of 2 GPUs.
    {
        Both b = both(kvtest::shared_config("Qwen--Qwen2.5-7B-Instruct.json"),
                      R"({"context": 32768, "batch": 4, "tp": 2})");
        REQUIRE(b.figures.ok());
        CHECK(b.figures->bytes_per_token == 57344);
        CHECK(b.figures->bytes_per_token_per_gpu == 28672);
        CHECK(b.figures->sequence_bytes_resident == 1879048192);
        CHECK(b.figures->kv_bytes == 7516192768);
        CHECK(b.figures->kv_bytes_per_gpu == 3758096384);
    }
    // MLA, sliding + full, Mamba hybrid, linear attention, speculative tokens, pp, blocks,
    // shared prefix: every figure equals the report's field of the same name.
    const std::pair<const char*, const char*> cases[] = {
        {"deepseek-ai--DeepSeek-V3.json", R"({"context": 131072, "tp": 8, "accounting": "vllm"})"},
        {"deepseek-ai--DeepSeek-V3.json", R"({"kv_dtype": "fp8_ds_mla", "num_speculative_tokens": 1})"},
        {"openai--gpt-oss-120b.json", R"({"context": 100000, "batch": 3, "block_size": 32})"},
        {"openai--gpt-oss-120b.json",
         R"({"context": 8192, "accounting": "naive", "shared_prefix": 1000, "batch": 5})"},
        {"nvidia--Nemotron-H-56B-Base-8K.json",
         R"({"context": 4096, "tp": 2, "pp": 2, "accounting": "vllm"})"},
        {"Qwen--Qwen3-Next-80B-A3B-Instruct.json",
         R"({"num_speculative_tokens": 2, "mamba_cache_mode": "align", "accounting": "vllm", "tp": 4})"},
        {"moonshotai--Kimi-Linear-48B-A3B-Instruct.json", R"({"context": 65536, "kv_dtype": "fp8"})"},
        {"google--gemma-4-26B-A4B.json", ""},
    };
    for (const auto& [file, options] : cases) {
        INFO(file << " " << options);
        Both b = both(kvtest::shared_config(file), options);
        REQUIRE_FALSE(b.report.contains("error"));
        REQUIRE(b.figures.ok());
        const kvcalc::ModelFigures& f = *b.figures;
        const json& r = b.report;
        CHECK(r["context"] == f.context);
        CHECK(r["batch"] == f.batch);
        CHECK(r["tp"] == f.tp);
        CHECK(r["pp"] == f.pp);
        CHECK(r["accounting"] == kvcalc::accounting_name(f.accounting));
        CHECK(r["kv_dtype_bits"] == f.kv_dtype_bits);
        CHECK(r["bytes_per_token"] == f.bytes_per_token);
        CHECK(r["bytes_per_token_per_gpu"] == f.bytes_per_token_per_gpu);
        CHECK(r["state_bytes"] == f.state_bytes);
        CHECK(r["sequence_bytes_naive"] == f.sequence_bytes_naive);
        CHECK(r["sequence_bytes_resident"] == f.sequence_bytes_resident);
        CHECK(r["sequence_bytes_vllm"] == f.sequence_bytes_vllm);
        CHECK(r["kv_bytes"] == f.kv_bytes);
        CHECK(r["kv_bytes_per_gpu"] == f.kv_bytes_per_gpu);
        CHECK(r["kv_bytes_deployment"] == f.kv_bytes_deployment);
    }
}

TEST_CASE("figures: bad options give size's error, in size's order") {
    // Qwen2.5-7B-Instruct's own file, and the same without its max_position_embeddings and its
    // model_type (written here: no config class's default length applies, so the context must then
    // come from the options).
    const std::string qwen = kvtest::shared_config("Qwen--Qwen2.5-7B-Instruct.json");
    json no_max = *kvcalc::parse_json_text(qwen);
    no_max.erase("max_position_embeddings");
    no_max.erase("model_type");
    const std::pair<std::string, const char*> cases[] = {
        {qwen, R"({"kv_dtype": "nope"})"},
        {qwen, R"({"context": 0})"},
        {qwen, R"({"context": 4096.5})"},
        {qwen, R"({"context": "4096"})"},
        {qwen, R"({"batch": 0, "tp": 3})"},
        {qwen, R"({"tp": 3})"},
        {qwen, R"({"shared_prefix": 5000, "context": 4096})"},
        {qwen, R"({"num_speculative_tokens": 1})"},
        {qwen, R"({"pool_tokens": 1000})"},
        {qwen, R"({"contxt": 1})"},
        {qwen, "[1]"},
        {qwen, R"({"context": )"},
        {qwen, R"({"context": 9007199254740992})"},
        {qwen, R"({"context": 4503599627370496, "batch": 4096})"},
        {kvcalc::to_text(no_max), ""},
        {kvcalc::to_text(no_max), R"({"tp": 3})"},
    };
    for (const auto& [config, options] : cases) {
        INFO(options);
        Both b = both(config, options);
        REQUIRE(b.report.contains("error"));
        REQUIRE_FALSE(b.figures.ok());
        CHECK(kvcalc::error_report(b.figures.error()) == b.report);
    }
}
