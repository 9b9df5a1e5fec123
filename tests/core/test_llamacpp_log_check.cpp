// The check with a llama.cpp, Ollama or LM Studio startup log: which engine wrote it, the
// configuration it states, every figure it printed held against kvcalc's allocation for that build
// and those settings, and the verdict per slot. Then SGLang's pool shorter than its context, with
// the version and mode its log states (sgl-project/sglang#30233). The real logs of
// tests/fixtures/engine-logs/ are used as stored; a written variant says what it was written from.
#include "api.hpp"
#include "config/json.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;

namespace {

const std::string logs = std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/engine-logs/";
const std::string llama = logs + "llamacpp/";

json run(const std::string& config, json options) {
    auto out = kvcalc::parse_json_text(kvcalc::check_json(config, kvcalc::to_text(options)));
    REQUIRE(out.ok());
    return *out;
}

json report(const std::string& config, json options) {
    json r = run(config, std::move(options));
    INFO(kvcalc::to_text(r));
    REQUIRE_FALSE(r.contains("error"));
    return r;
}

const json* check_named(const json& r, const std::string& figure) {
    for (const json& c : r["cross_checks"])
        if (c["figure"] == figure) return &c;
    return nullptr;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// gpt-oss-20b and its llama-server log (read in a test: read_file asserts).
std::string gpt_oss() {
    return read_file(llama + "gguf/gpt-oss-20b-mxfp4.json");
}
std::string gpt_oss_log() {
    return read_file(llama + "llamacpp-b6699-gpt-oss-20b-131072-fa.log");
}

}  // namespace

TEST_CASE("llamacpp check: the log names its engine; one of another engine than the one given is an error",
          "[llamacpp-check]") {
    // No engine: the lines say llama.cpp, and the check is llama.cpp's.
    json r = report(gpt_oss(), {{"engine_log", gpt_oss_log()}});
    CHECK(r["engine"] == "llamacpp");
    CHECK(r["llamacpp_host"] == "llamacpp");
    CHECK(r["log"]["engine"] == "llamacpp");

    auto error = [&](const std::string& config, const json& options) {
        json e = run(config, options);
        REQUIRE(e.contains("error"));
        CHECK(e["error"]["field"] == "engine");
        return e["error"]["message"].get<std::string>();
    };
    CHECK(error(gpt_oss(), {{"engine_log", gpt_oss_log()}, {"engine", "vllm"}, {"max_context", 4096}}) ==
          "engine vllm given, but the engine log is llamacpp's");
    const std::string vllm_log = read_file(logs + "vllm-v0.19-qwen3-8b-h100-tp1.log");
    CHECK(error("Qwen/Qwen3-8B", {{"engine_log", vllm_log}, {"engine", "llamacpp"}}) ==
          "engine llamacpp given, but the engine log is vllm's");
    const std::string ollama_log = read_file(llama + "ollama-2024-12-llama32-3b-journal-parallel4.log");
    const std::string llama32 = read_file(llama + "gguf/llama-3.2-3b.json");
    CHECK(error(llama32, {{"engine_log", ollama_log}, {"engine", "lmstudio"}}) ==
          "engine lmstudio given, but the engine log is ollama's");
    CHECK(error(llama32, {{"engine_log", ollama_log}, {"engine", "llamacpp"}}) ==
          "engine llamacpp given, but the engine log is ollama's");
    // llama.cpp's own lines, which Ollama prints too, read as the host given says.
    json hosted = report(gpt_oss(), {{"engine_log", gpt_oss_log()}, {"engine", "ollama"}});
    CHECK(hosted["llamacpp_host"] == "ollama");
    CHECK(hosted["log"]["engine"] == "ollama");
}

TEST_CASE("llamacpp check: the served configuration is the log's, each setting with its line",
          "[llamacpp-check]") {
    // llamacpp-b6699-gpt-oss-20b-131072-fa.log: llama-server -c 131072 -fa on, build 6699.
    json r = report(gpt_oss(), {{"engine_log", gpt_oss_log()}});
    const json& s = r["log"]["served"];
    CHECK(s["build"]["value"] == 6699);
    CHECK(s["build"]["from"] == "line 5 (build: 6699)");
    CHECK(s["n_ctx"]["value"] == 131072);
    CHECK(s["n_ctx"]["from"] == "n_ctx, line 123");
    CHECK(s["n_seq_max"]["value"] == 1);
    CHECK(s["flash_attn"]["value"] == true);
    CHECK(s["flash_attn"]["from"] == "flash_attn = enabled, line 128");
    CHECK(s["kv_unified"]["value"] == false);
    CHECK(s["swa_full"]["value"] == false);
    CHECK(s["cache_type_k"]["value"] == "f16");
    CHECK(s["n_ubatch"]["value"] == 512);
    // kvcalc's allocation at those settings: 12 full layers of 8 KV heads x 64, f16, 131,072 cells; the
    // SWA layers PAD(128 x 1 + 512, 256) = 768 cells.
    const json& mem = r["llamacpp"]["memory"];
    CHECK(mem[0]["bytes"] == 12ull * 8 * 64 * 2 * 131072 * 2);
    CHECK(mem[1]["cells"] == 768);
    CHECK(r["cross_checks"].size() == 17);
    for (const json& c : r["cross_checks"])
        CHECK(c["agree"] == true);
    const json* k = check_named(r, "SWA cache K (f16)");
    REQUIRE(k);
    CHECK((*k)["engine"] == "9.00 MiB");
    CHECK((*k)["line"] == 138);
    CHECK((*k)["text"] ==
          "SWA cache K (f16): the engine's 9.00 MiB agrees with kvcalc's 9,437,184 B (9.00 MiB)");
    CHECK(r["fits"] == true);
    CHECK(r["slot_context"] == 131072);
    CHECK(r["slot_context_source"] == "the server's slot context, line 149");
    CHECK(r["max_context_source"] == "llama.cpp's -c as the log states it (n_ctx, line 123)");
}

TEST_CASE("llamacpp check: the era a log's wording dates from, where it prints no build",
          "[llamacpp-check]") {
    // llamacpp-b5273-qwen3-4b-vulkan-16348.log prints "llama_kv_cache_unified: KV self size" (b5265-b5428)
    // and kv_size 16352 = PAD(16348, 32) with padding = 32: the rules of that era agree.
    json r = report(read_file(llama + "gguf/qwen3-4b.json"),
                    {{"engine_log", read_file(llama + "llamacpp-b5273-qwen3-4b-vulkan-16348.log")}});
    const json& b = r["log"]["served"]["build"];
    CHECK(r["log"]["build_low"] == 5265);
    CHECK(r["log"]["build_high"] == 5428);
    CHECK(b["from"].get<std::string>().find("(b5265-b5428): builds b5265 to b5428, whose rules agree here") !=
          std::string::npos);
    CHECK(check_named(r, "padding")->at("agree") == true);
    CHECK(r["llamacpp"]["memory"][0]["cells"] == 16352);  // ceildiv(16348, 32) x 32
    // No sequence count printed: one assumed, and said.
    bool said = false;
    for (const json& w : r["warnings"])
        said = said || (w["field"] == "parallel");
    CHECK(said);
}

TEST_CASE("llamacpp check: -c split among slots, and a printed figure kvcalc does not reproduce",
          "[llamacpp-check]") {
    // Written from the shape of the current build's lines (src/llama-context.cpp,
    // src/llama-kv-cache.cpp:299): llama-server -c 32768 -np 4, Llama 3.1 8B (32 layers of 8 KV heads x 128,
    // f16): four streams of PAD(32768 / 4, 256) = 8,192 cells, K = 32 x 8 x 128 x 2 x 8192 x 4 = 2048.00 MiB.
    const std::string model = read_file(llama + "gguf/llama-3.1-8b-instruct-q4_0.json");
    const std::string log =
        "build: 7000 (abcdef12) with cc for x86_64-linux-gnu\n"
        "llama_context: n_seq_max     = 4\n"
        "llama_context: n_ctx         = 32768\n"
        "llama_context: n_ctx_seq     = 8192\n"
        "llama_context: flash_attn    = auto\n"
        "llama_context: kv_unified    = false\n"
        "llama_kv_cache: size = 4096.00 MiB (  8192 cells,  32 layers,  4/4 seqs), K (f16): 2048.00 MiB, V "
        "(f16): 2048.00 MiB\n";
    json r = report(model, {{"engine_log", log}});
    CHECK(r["fits"] == false);
    CHECK(r["max_context"] == 32768);  // the -c the log states, as nothing else is given
    CHECK(r["slot_context"] == 8192);
    CHECK(r["n_seq_max"] == 4);
    CHECK(r["kv_unified"] == false);
    CHECK(r["advice"][0] ==
          "Does not fit: a slot holds 8,192 tokens (8,192 cells, n_ctx_seq: a stream of cells a slot), a "
          "request of 32,768 needs more.");
    CHECK(r["advice"][1] ==
          "Set -c 131072 = 32768 x 4 (llama.cpp splits -c among 4 slots unless --kv-unified), or --parallel "
          "1 so each slot gets more.");
    for (const json& c : r["cross_checks"])
        CHECK(c["agree"] == true);
    // The context each request is served, given: it fits a slot.
    CHECK(report(model, {{"engine_log", log}, {"max_context", 8192}})["fits"] == true);

    // The same lines with cells the build would not allocate (written: 8192 changed to 6144): the
    // disagreements are stated figure by figure, and the verdict follows what the engine printed.
    const std::string odd =
        replaced(replaced(log, "4096.00 MiB (  8192 cells", "3072.00 MiB (  6144 cells"),
                 "K (f16): 2048.00 MiB, V (f16): 2048.00 MiB", "K (f16): 1536.00 MiB, V (f16): 1536.00 MiB");
    json d = report(model, {{"engine_log", odd}, {"max_context", 8192}});
    const json* cells = check_named(d, "KV cache cells");
    REQUIRE(cells);
    CHECK((*cells)["agree"] == false);
    CHECK((*cells)["text"] == "KV cache cells: the engine printed 6,144 (line 7); kvcalc derives 8,192");
    CHECK(check_named(d, "KV cache total")->at("agree") == false);
    CHECK(d["slot_context"] == 6144);
    CHECK(d["fits"] == false);
    CHECK(d["verdict_source"] ==
          "the engine's printed cells, where kvcalc's derivation differs (see cross_checks)");
    json own = report(model, {{"engine_log", odd}, {"max_context", 8192}, {"verdict_from", "kvcalc"}});
    CHECK(own["slot_context"] == 8192);
    CHECK(own["fits"] == true);
}

TEST_CASE("llamacpp check: Ollama's estimate, by its own formula, is not llama.cpp's allocation",
          "[llamacpp-check]") {
    // ollama-2024-12-llama32-3b-estimate-parallel4.log: memory.required.kv="896.0 MiB" for --ctx-size 8192
    // --parallel 4: 8192 x (128 + 128) x 8 x 28 x 2 = 939,524,096 B, printed to one decimal.
    json r = report(read_file(llama + "gguf/llama-3.2-3b.json"),
                    {{"engine_log", read_file(llama + "ollama-2024-12-llama32-3b-estimate-parallel4.log")}});
    CHECK(r["llamacpp_host"] == "ollama");
    const json* e = check_named(r, "Ollama's estimate (memory.required.kv)");
    REQUIRE(e);
    CHECK((*e)["agree"] == true);
    CHECK((*e)["engine"] == "896.0 MiB");
    CHECK((*e)["kvcalc"].get<std::string>().rfind("939,524,096 B (896.00 MiB) by Ollama's own formula", 0) ==
          0);
    CHECK((*e)["kvcalc"].get<std::string>().find("not what llama.cpp allocates") != std::string::npos);
    // num_ctx, Ollama's context a slot: --ctx-size 8192 / --parallel 4.
    CHECK(r["max_context"] == 2048);
    CHECK(r["slot_context"] == 2048);
    CHECK(r["fits"] == true);
}

TEST_CASE("sglang check: a pool shorter than the context, and the issue of its disaggregated prefill",
          "[llamacpp-check][sglang]") {
    // sglang-kimi-k2-0905-tp8-piecewise-mla.log: a pool of 8,050 tokens; 131,072 advertised.
    const std::string kimi = shared_config("moonshotai--Kimi-K2-Instruct.json");
    const std::string log = read_file(logs + "sglang-kimi-k2-0905-tp8-piecewise-mla.log");
    auto advice_with = [](const json& r, const std::string& part) {
        for (const json& a : r["advice"])
            if (a.get<std::string>().find(part) != std::string::npos) return a.get<std::string>();
        return std::string();
    };
    json r = report(kimi, {{"engine_log", log}, {"tp", 8}, {"max_context", 131072}});
    CHECK(r["fits"] == false);
    CHECK_FALSE(advice_with(r, "SGLang starts anyway and caps each request at the pool").empty());
    CHECK_FALSE(advice_with(r, "sgl-project/sglang#30233, reported on 0.5.11").empty());
    CHECK_FALSE(advice_with(r, "Run 0.5.22 or later").empty());
    CHECK(advice_with(r, "The log states") ==
          "The log states no SGLang version (python3 -m sglang.check_env prints it), and not whether it runs "
          "disaggregated.");
    CHECK(r["log"]["version"] == "");

    // Written: the same line after the lines an issue report carries, check_env's version and the server
    // args' disaggregation_mode (the shape of issue #30233's environment).
    json pd = report(kimi, {{"engine_log",
                             "- sglang: 0.5.11\n[2025-11-21 04:10:00] server_args=ServerArgs(tp_size=8, "
                             "disaggregation_mode='prefill', page_size=1)\n" +
                                 log},
                            {"max_context", 131072}});
    CHECK(pd["log"]["version"] == "0.5.11");
    CHECK(pd["log"]["disaggregation_mode"] == "prefill");
    CHECK(
        advice_with(pd, "The log states") ==
        "The log states SGLang 0.5.11 (line 1): before 0.5.20, and disaggregation_mode prefill (line 2): the "
        "deployment the issue describes.");
    bool warned = false;
    for (const json& w : pd["warnings"])
        warned =
            warned || w["message"].get<std::string>().find("sgl-project/sglang#30233") != std::string::npos;
    CHECK(warned);

    json old = report(kimi, {{"engine_log", "sglang==0.4.3.post2\n--disaggregation-mode null\n" + log},
                             {"tp", 8},
                             {"max_context", 131072}});
    CHECK(advice_with(old, "The log states") ==
          "The log states SGLang 0.4.3.post2 (line 1): before 0.5.20, and disaggregation_mode null (line 2): "
          "not "
          "disaggregated, so the issue does not apply.");
    // Not disaggregated: no warning, whatever the version.
    for (const json& w : old["warnings"])
        CHECK(w["message"].get<std::string>().find("30233") == std::string::npos);
    // The versions to run: 0.5.20 and 0.5.21 are past the fix but before the advised 0.5.22, still warned
    // when disaggregated; 0.5.22 is not warned.
    auto warned_for = [&](const std::string& version) {
        json v = report(kimi,
                        {{"engine_log", "- sglang: " + version +
                                            "\nserver_args=ServerArgs(disaggregation_mode='decode')\n" + log},
                         {"tp", 8},
                         {"max_context", 131072}});
        bool w30233 = false;
        for (const json& w : v["warnings"])
            w30233 = w30233 ||
                     w["message"].get<std::string>().find("sgl-project/sglang#30233") != std::string::npos;
        return std::make_pair(w30233, advice_with(v, "The log states"));
    };
    CHECK(warned_for("0.5.21") ==
          std::make_pair(
              true, std::string("The log states SGLang 0.5.21 (line 1): 0.5.20 or later, before the 0.5.22 "
                                "to run, and disaggregation_mode decode (line 2): the deployment the "
                                "issue describes.")));
    CHECK(warned_for("0.5.22").first == false);
    // A pool that holds the context: nothing of this is said.
    json fits = report(kimi, {{"engine_log", log}, {"tp", 8}, {"max_context", 8000}});
    CHECK(advice_with(fits, "30233").empty());
}

TEST_CASE("sglang check: the version and mode of a real issue paste (sgl-project/sglang#30233's environment)",
          "[llamacpp-check][sglang]") {
    // sglang-0.5.11-glm-5.2-fp8-pd-prefill-environment.txt, as posted: "- SGLang version: 0.5.11" (line 3),
    // disaggregation_mode=prefill (line 10), page_size=64 (line 7), context_len=1048576 (line 14),
    // max_total_num_tokens=284928 (line 15). GLM-5.2-FP8's own config is not stored; the paste says
    // "DeepSeek-V3 architecture", so DeepSeek-V3's config stands in: only what the paste states is asserted.
    json r = report(shared_config("deepseek-ai--DeepSeek-V3.json"),
                    {{"engine_log", read_file(logs + "sglang-0.5.11-glm-5.2-fp8-pd-prefill-environment.txt")},
                     {"max_context", 1048576}});
    CHECK(r["log"]["version"] == "0.5.11");
    CHECK(r["log"]["disaggregation_mode"] == "prefill");
    CHECK(r["pool_tokens"] == 284928);
    // 284,928 / 64 = 4,452 pages; 1,048,576 / 64 = 16,384 needed.
    CHECK(r["blocks_available"] == 4452);
    CHECK(r["blocks_needed"] == 16384);
    CHECK(r["fits"] == false);
    bool said = false;
    for (const json& a : r["advice"])
        said = said || a == "The log states SGLang 0.5.11 (line 3): before 0.5.20, and disaggregation_mode "
                            "prefill (line 10): "
                            "the deployment the issue describes.";
    CHECK(said);
    bool warned = false;
    for (const json& w : r["warnings"])
        warned =
            warned || w["message"].get<std::string>().find("sgl-project/sglang#30233") != std::string::npos;
    CHECK(warned);
}
