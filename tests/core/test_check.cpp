// The check: advertised context against the pool, concurrency as vLLM prints it, the safe
// context in whole blocks, and the full report through check_json.
#include <utility>

#include "api.hpp"
#include "check/check.hpp"
#include "report.hpp"
#include "support.hpp"

using kvcalc::json;

namespace {

kvcalc::CheckResult check(std::uint64_t pool, std::uint64_t context, std::uint64_t block = 16,
                          std::uint64_t model_max = 0,
                          std::optional<std::uint64_t> concurrency = std::nullopt) {
    kvcalc::CheckInputs in;
    in.pool_tokens = pool;
    in.max_context = context;
    in.block_size = block;
    in.model_max_context = model_max;
    in.model_max_context_source = "max_position_embeddings";
    in.concurrency = concurrency;
    auto r = kvcalc::check_pool(in);
    INFO((r ? "" : r.error().message));
    REQUIRE(r.ok());
    return r.value();
}

json report(const std::string& config, const json& options) {
    auto out = kvcalc::parse_json_text(kvcalc::check_json(config, kvcalc::to_text(options)));
    REQUIRE(out.ok());
    INFO(kvcalc::to_text(*out));
    REQUIRE_FALSE(out->contains("error"));
    return *out;
}

json error_of(const std::string& config, const json& options) {
    auto out = kvcalc::parse_json_text(kvcalc::check_json(config, kvcalc::to_text(options)));
    REQUIRE(out.ok());
    REQUIRE(out->contains("error"));
    return (*out)["error"];
}

}  // namespace

TEST_CASE("check: max concurrency is what vLLM's %.2f prints, in integers") {
    using kvcalc::printf_hundredths;
    CHECK(printf_hundredths(681280, 1048576) == 65);  // 68,128,000 / 1,048,576 = 64.97...: "0.65"
    CHECK(printf_hundredths(463216, 32768) == 1414);  // 14.136...: "14.14"
    CHECK(printf_hundredths(91088, 32768) ==
          278);  // vLLM V0's 5,693 blocks x 16 / 32,768 = 2.7797...: "2.78"
    CHECK(printf_hundredths(290864, 32768) == 888);  // 8.876...
    // Exact ties go where the double goes: 0.125 is a double, and printf rounds it to even;
    // 0.375 to even upwards; 0.005 and 0.025 are stored a little high, 0.015 a little low.
    CHECK(printf_hundredths(1, 8) == 12);
    CHECK(printf_hundredths(3, 8) == 38);
    CHECK(printf_hundredths(1, 200) == 1);
    CHECK(printf_hundredths(3, 200) == 1);
    CHECK(printf_hundredths(5, 200) == 3);
    CHECK(printf_hundredths(0, 7) == 0);
    CHECK(kvcalc::hundredths_text(65) == "0.65");
    CHECK(kvcalc::hundredths_text(1414) == "14.14");
    CHECK(kvcalc::hundredths_text(100) == "1.00");
}

TEST_CASE("check: the reference case, 1,048,576 advertised on a 681,280-token pool") {
    auto r = check(681280, 1048576);
    CHECK_FALSE(r.fits);
    CHECK(r.blocks_available == 42580);  // 681,280 / 16
    CHECK(r.blocks_needed == 65536);     // 1,048,576 / 16
    CHECK(r.max_concurrency_text == "0.65");
    CHECK(r.max_safe_context == 681280);
    REQUIRE(r.advice.size() == 3);
    CHECK(r.advice[0] ==
          "Does not fit: one request of 1,048,576 tokens needs 65,536 blocks of 16 tokens; the pool "
          "has 42,580.");
    CHECK(r.advice[1] ==
          "Set --max-model-len 681280 (vLLM) / --context-length 681280 (SGLang), and advertise no "
          "more than 681,280 tokens.");
    CHECK(r.advice[2] == "Test it: a prompt of 681,281 tokens must get an error (HTTP 400), not a 200.");
}

TEST_CASE("check: the safe context is the pool rounded down to whole blocks") {
    auto a = check(681290, 1048576);  // 42,580 whole blocks and 10 tokens over
    CHECK(a.max_safe_context == 681280);
    auto b = check(100000, 131072, 64);  // 1,562 blocks of 64 = 99,968
    CHECK(b.blocks_available == 1562);
    CHECK(b.max_safe_context == 99968);
    CHECK_FALSE(check(100000, 99969, 64).fits);  // needs 1,563 blocks
    CHECK(check(100000, 99968, 64).fits);        // exactly 1,562
    auto c = check(100000, 131072, 1);           // SGLang's page size 1
    CHECK(c.max_safe_context == 100000);
    auto tiny = check(15, 4096);
    CHECK(tiny.max_safe_context == 0);
    REQUIRE(tiny.advice.size() == 1);
    CHECK(tiny.advice[0].rfind("The pool (15 tokens) holds no whole block of 16 tokens", 0) == 0);
}

TEST_CASE("check: never above the model's own max context") {
    auto r = check(681280, 32768, 16, 32768);
    CHECK(r.fits);
    CHECK(r.max_safe_context == 32768);
    CHECK(r.max_safe_context_source == "the model's own max context (max_position_embeddings)");
    CHECK(r.max_concurrency_text == "20.79");  // 681,280 / 32,768 = 20.79...
    REQUIRE(r.advice.size() == 3);
    CHECK(r.advice[0] ==
          "Fits: one request of 32,768 tokens needs 2,048 of the pool's 42,580 blocks; 20.79x such "
          "requests fit at once.");
    CHECK(r.advice[1] == "Keep --max-model-len 32768 (the pool would allow 32,768).");
    CHECK(r.advice[2] == "Test it: a prompt of 32,769 tokens must get an error (HTTP 400), not a 200.");
    auto over = check(681280, 65536, 16, 32768);
    REQUIRE(over.warnings.size() == 1);
    CHECK(over.warnings[0].field == "max_context");
}

TEST_CASE("check: a target concurrency") {
    auto r = check(463216, 32768, 16, 32768, 8);  // 8 users at 32K on 28,951 blocks
    REQUIRE(r.concurrency_fits);
    CHECK(*r.concurrency_fits);  // 8 x 2,048 = 16,384 blocks
    CHECK(*r.max_context_at_concurrency ==
          32768);  // 28,951 / 8 = 3,618 blocks = 57,888 tokens, capped at 32,768
    auto s = check(463216, 32768, 16, 32768, 16);
    CHECK_FALSE(*s.concurrency_fits);               // 16 x 2,048 = 32,768 > 28,951
    CHECK(*s.max_context_at_concurrency == 28944);  // 28,951 / 16 = 1,809 blocks x 16
    CHECK(s.advice.back() ==
          "16 concurrent requests of 32,768 tokens do not fit: the pool holds 14.14x. For 16 at "
          "once, each can have at most 28,944 tokens; beyond that the engine queues or preempts "
          "requests.");
}

TEST_CASE("check report: the reference case through check_json") {
    json r = report("meta-llama/Llama-4-Scout-17B-16E-Instruct",
                    {{"max_context", 1048576}, {"pool_tokens", 681280}});
    CHECK(r["pool_tokens"] == 681280);
    CHECK(r["max_context"] == 1048576);
    CHECK(r["fits"] == false);
    CHECK(r["max_concurrency"].is_number_float());
    CHECK(kvcalc::to_text(r["max_concurrency"]) == "0.65");
    CHECK(r["max_concurrency_text"] == "0.65");
    CHECK(r["max_safe_context"] == 681280);
    CHECK(r["model_max_context"] == 10485760);
    CHECK(r["engine"] == "vllm");
    CHECK(r["block_size"] == 16);
}

TEST_CASE("check report: an advertised context too large to size names max_context, the option given") {
    // 36 layers x 8 KV heads x 128 x 2 x 2 B = 147,456 B a token for Qwen3-8B; x 2^50 tokens is
    // far above 2^53 - 1 bytes.
    json e = error_of("Qwen/Qwen3-8B", {{"max_context", 1125899906842624}, {"pool_tokens", 681280}});
    CHECK(e["code"] == "overflow");
    CHECK(e["field"] == "max_context");
    CHECK(e["message"] ==
          "the KV cache of 1,125,899,906,842,624 tokens in the full_attention layers exceeds 2^53 - 1 "
          "bytes (8 PiB), the largest figure kvcalc reports exactly: check max_context");
}

TEST_CASE("check report: Qwen2.5-72B, 8 users at 32K: 80 GiB of cache beside 145 GB of weights") {
    kvcalc::SizeOptions o;
    o.context = 32768;
    o.batch = 8;
    auto sized = kvtest::size("Qwen--Qwen2.5-72B-Instruct.json", o);
    CHECK(sized.kv_bytes == 80 * kvtest::GiB);  // 8 x 327,680 B x 32,768
    // On four H100s (tp 4) the pool is 463,216 tokens (test_pool); 8 x 32,768 fit.
    json four = report("Qwen/Qwen2.5-72B-Instruct",
                       {{"max_context", 32768}, {"gpu", "h100-80gb"}, {"tp", 4}, {"concurrency", 8}});
    CHECK(four["weight_bytes"] == 145410768896);  // 72,705,384,448 x 2 B: about 145 GB
    CHECK(four["weight_bytes_per_gpu"] == 36354670592);
    CHECK(four["pool_tokens"] == 463216);
    CHECK(four["pool_bytes_per_gpu"] == 37947189886);
    CHECK(four["request_bytes_per_gpu"] == 10 * kvtest::GiB / 4);  // one request's 10 GiB split 4 ways
    CHECK(four["fits"] == true);
    CHECK(four["concurrency_fits"] == true);
    CHECK(four["max_concurrency_text"] == "14.14");
    CHECK(four["pool"]["steps"].size() == 7);
    // On two (tp 2) the weights take 67.71 GiB of each GPU's 71.2 GiB:
    // 76,449,344,126 - 72,706,703,360 - 1,610,612,736 - 536,870,912 = 1,595,157,118 B,
    // / (16 x 163,840 B per token per GPU) = 608 blocks = 9,728 tokens.
    json two = report("Qwen/Qwen2.5-72B-Instruct",
                      {{"max_context", 32768}, {"gpu", "H100-80GB"}, {"gpu_count", 2}, {"concurrency", 8}});
    CHECK(two["tp"] == 2);
    CHECK(two["weight_bytes_per_gpu"] == 72706703360);
    CHECK(two["pool_bytes_per_gpu"] == 1595157118);
    CHECK(two["pool_tokens"] == 9728);
    CHECK(two["fits"] == false);
    CHECK(two["max_safe_context"] == 9728);
    CHECK(two["concurrency_fits"] == false);
}

TEST_CASE("check report: pools from vLLM and SGLang logs") {
    // The SGLang excerpt: pool and context both from the log, page size 1.
    std::string sglang =
        "[2025-06-10 14:02:20 TP0] KV Cache is allocated. #tokens: 386961, K size: 26.57 GB, V size: 26.57 "
        "GB\n"
        "[2025-06-10 14:02:24 TP0] max_total_num_tokens=386961, chunked_prefill_size=8192, "
        "max_prefill_tokens=16384, "
        "max_running_requests=4096, context_len=40960, available_gpu_mem=7.98 GB\n";
    json s = report("Qwen/Qwen3-8B", {{"engine_log", sglang}});
    CHECK(s["engine"] == "sglang");
    CHECK(s["pool_tokens"] == 386961);
    CHECK(s["max_context"] == 40960);
    CHECK(s["max_context_source"] == "the engine log: SGLang's context_len (line 2)");
    CHECK(s["block_size"] == 1);
    CHECK(s["fits"] == true);
    CHECK(s["max_concurrency_text"] == "9.45");  // 386,961 / 40,960 = 9.447...
    CHECK(s["log"]["understood"].size() == 4);   // the pool, its K and V sizes, and the scheduler's figures
    CHECK(s["cross_checks"].size() == 2);
    CHECK(s["cross_checks"][0]["figure"] == "K size");
    CHECK(s["cross_checks"][0]["agree"] == true);  // (386,961 + 1) x 36 x 8 x 128 x 2 B = 26.57 GiB

    // A memory-only vLLM log for Llama-3.1-70B on tp 4: 43.21 GiB per GPU
    // = floor(4321 x 2^30 / 100) = 46,396,384,215 B; / (16 x 81,920 B per token per GPU,
    // 2 x 80 layers x 2 KV heads x 128 x 2 B) = 35,397 blocks = 566,352 tokens, whose bytes
    // are 35,397 x 1,310,720 = 46,395,555,840.
    json v = report("meta-llama/Llama-3.1-70B",
                    {{"max_context", 131072},
                     {"tp", 4},
                     {"engine_log",
                      "(VllmWorker rank=0 pid=9) INFO 05-12 10:31:58 [gpu_worker.py:227] Available KV "
                      "cache memory: 43.21 GiB\n"}});
    CHECK(v["bytes_per_token_per_gpu"] == 81920);
    CHECK(v["pool_bytes_per_gpu"] == 46395555840);
    CHECK(v["pool_blocks"] == 35397);
    CHECK(v["pool_tokens"] == 566352);
    CHECK(v["fits"] == true);
    CHECK(v["max_concurrency_text"] == "4.32");  // 566,352 / 131,072 = 4.3209...

    // vLLM V0 blocks x the block size.
    json b = report("meta-llama/Llama-3.1-8B",
                    {{"engine_log",
                      "INFO 01-13 11:35:23 gpu_executor.py:76] # GPU blocks: 5693, # CPU blocks: 2048\n"
                      "INFO 01-13 11:35:23 gpu_executor.py:80] Maximum concurrency for 32768 tokens per "
                      "request: 2.78x\n"}});
    CHECK(b["pool_tokens"] == 91088);  // 5,693 x 16
    CHECK(b["max_context"] == 32768);
    CHECK(b["max_concurrency_text"] == "2.78");  // agrees with the engine's own line
    CHECK(b["log"]["max_concurrency_text"] == "2.78");
}

TEST_CASE("check report: bad options are errors naming the option") {
    auto e = error_of("Qwen/Qwen3-8B", {{"max_context", 4096}});
    CHECK(e["code"] == "bad_option");
    CHECK(e["field"] == "pool_tokens");
    CHECK(e["message"] ==
          "no pool: give pool_tokens, engine_log (the engine's startup log), or gpu (a GPU preset, or "
          "gpu_memory) to derive it");
    e = error_of("Qwen/Qwen3-8B", {{"max_context", 4096}, {"pool_tokens", 1000}, {"gpu", "l40s"}});
    CHECK(e["message"] == "give one pool source: pool_tokens, engine_log or gpu/gpu_memory, not several");
    e = error_of("Qwen/Qwen3-8B", {{"max_context", 4096}, {"gpu", "v100"}});
    CHECK(e["field"] == "gpu");
    CHECK(e["message"] ==
          "gpu: unknown \"v100\" (known: h100-80gb, h200-141gb, a100-40gb, a100-80gb, l40s, "
          "rtx-4090, b200, mi300x)");
    e = error_of("Qwen/Qwen3-8B",
                 {{"max_context", 4096}, {"gpu", "l40s"}, {"engine", "vllm"}, {"mem_fraction_static", 0.9}});
    CHECK(e["field"] == "mem_fraction_static");
    e = error_of("Qwen/Qwen3-8B",
                 {{"max_context", 4096}, {"pool_tokens", 1000}, {"gpu_memory_utilization", 0.9}});
    CHECK(e["message"] ==
          "gpu_memory_utilization: applies only when the pool is derived from a GPU (gpu or gpu_memory)");
    e = error_of("Qwen/Qwen3-8B", {{"pool_tokens", 1000}});
    CHECK(e["code"] == "missing_field");
    CHECK(e["field"] == "max_context");
    e = error_of("Qwen/Qwen3-8B", {{"max_context", 4096}, {"pool_tokens", 1000}, {"colour", "red"}});
    CHECK(e["message"] == "unknown option \"colour\"");
    e = error_of("Qwen/Qwen3-8B", {{"max_context", 4096}, {"engine_log", "nothing here\n"}});
    CHECK(e["code"] == "unrecognised_log");
    e = error_of("Qwen/Qwen3-8B",
                 {{"max_context", 4096}, {"gpu", "l40s"}, {"gpu_memory_utilization", "0.9.1"}});
    CHECK(e["field"] == "gpu_memory_utilization");
    // The same instance keeps working after errors.
    CHECK(report("Qwen/Qwen3-8B", {{"max_context", 4096}, {"pool_tokens", 4096}})["fits"] == true);
}

TEST_CASE("check report: utilization as a JSON number is read as its decimal") {
    // 0.92 is not a double exactly; the report reads it back as the decimal 0.92 = 23/25.
    json r = report("meta-llama/Llama-3.1-8B",
                    {{"max_context", 131072}, {"gpu", "h100-80gb"}, {"gpu_memory_utilization", 0.92}});
    CHECK(r["pool"]["fraction"] == "0.92");
    CHECK(r["pool"]["requested_bytes"] == 84943715696ull * 23 / 25);
    // Llama-3.1-8B: 16,060,522,496 B of weights, 131,072 B per token.
    std::uint64_t pool = 84943715696ull * 23 / 25 - 16060522496 - 1610612736 - 536870912;
    CHECK(r["pool_bytes_per_gpu"] == pool);
    CHECK(r["pool_tokens"] == pool / (16 * 131072) * 16);
}

TEST_CASE("check report: MLA models are told about vLLM's forced block size") {
    json r = report("deepseek-ai/DeepSeek-V3", {{"max_context", 163840}, {"pool_tokens", 200000}});
    bool warned = false;
    for (const auto& w : r["warnings"])
        warned |= w["field"] == "block_size";
    CHECK(warned);
    CHECK(r["block_size"] == 16);  // still the default unless given
    json given = report("deepseek-ai/DeepSeek-V3",
                        {{"max_context", 163840}, {"pool_tokens", 200000}, {"block_size", 64}});
    CHECK(given["max_safe_context"] == 163840);  // 200,000 / 64 = 3,125 blocks = 200,000, capped at 163,840
    for (const auto& w : given["warnings"])
        CHECK(w["field"] != "block_size");
}

TEST_CASE("check report: a model with windows and a pool in bytes goes by bytes, as vLLM admits") {
    // ENGINES.md 1.9: gemma-4 on vLLM 0.29.0 with 4.25 GiB of KV memory and 4,992 tokens in
    // flight logged 2.39x / 1.77x / 1.16x at 32K / 64K / 128K and a ceiling of 162,496 tokens.
    // 4.25 GiB = 4,563,402,752 B. Pages of 131,072 B: 5 full layers (2 x 2 KV heads x 512 x 2 B
    // = 4,096 B a token) in blocks of 32, 25 sliding ones (2 x 8 x 256 x 2 = 8,192 B) in blocks
    // of 16, each sliding layer cdiv(min(1,023 + 4,992, C), 16) + 1 = 377 blocks. vLLM's groups of
    // 5 layers (one full, five sliding) share blocks of 5 pages: 4,563,402,752 // 655,360 = 6,963
    // blocks, 4,563,271,680 B.
    const std::string log = "INFO [gpu_worker.py:227] Available KV cache memory: 4.25 GiB\n";
    auto at = [&](std::uint64_t c) {
        return report("google/gemma-4-26B-A4B",
                      {{"max_context", c}, {"engine_log", log}, {"max_num_batched_tokens", 4992}});
    };
    const json r = at(32768);
    CHECK(r["pool_bytes_per_gpu"] == 4563271680);
    CHECK(r["pool_blocks"] == 6963);
    CHECK(r["fits_by"] == "bytes");
    CHECK(r["fits"] == true);
    // (5 x cdiv(32,768, 32) + 25 x 377) x 131,072 = (5,120 + 9,425) x 131,072 = 1,906,442,240 B
    CHECK(r["request_bytes_per_gpu"] == 1906442240);
    CHECK(r["max_concurrency_text"] == "2.39");  // 6,963 / (1,024 + 5 x 377) = 2.394
    // 5 x cdiv(162,496, 32) = 25,390 blocks + 9,425 = 34,815 x 131,072 = 4,563,271,680 B fits;
    // 162,497 tokens need 34,820 blocks = 4,563,927,040 B, more than the pool.
    CHECK(r["max_safe_context"] == 162496);
    CHECK(r["max_safe_context_source"] ==
          "the longest request whose bytes per GPU fit the pool's 4,563,271,680 B");
    REQUIRE(r["advice"].size() == 3);
    CHECK(
        r["advice"][0] ==
        "Fits: one request of 32,768 tokens needs 1,906,442,240 of the pool's 4,563,271,680 B per GPU; 2.39x "
        "such requests fit at once.");
    CHECK(at(65536)["max_concurrency_text"] == "1.77");
    CHECK(at(131072)["max_concurrency_text"] == "1.16");
    CHECK(at(162496)["fits"] == true);
    const json over = at(162497);
    CHECK(over["fits"] == false);
    CHECK(over["request_bytes_per_gpu"] == 4563927040);
    CHECK(over["advice"][0] ==
          "Does not fit: one request of 162,497 tokens needs 4,563,927,040 B per GPU (vLLM's blocks for what "
          "each "
          "layer keeps); the pool has 4,563,271,680 B.");
    CHECK(over["advice"][1] ==
          "Set --max-model-len 162496 (vLLM) / --context-length 162496 (SGLang), and advertise no more than "
          "162,496 tokens.");

    // Three requests of 32K at once: 3 x 1,906,442,240 B is more than the pool. Each may have
    // 11,605 pages (4,563,271,680 / 131,072 / 3 = 11,605), 9,425 of them sliding: 2,180 for
    // the 5 full layers, 436 each, 13,952 tokens.
    json three = report(
        "google/gemma-4-26B-A4B",
        {{"max_context", 32768}, {"engine_log", log}, {"max_num_batched_tokens", 4992}, {"concurrency", 3}});
    CHECK(three["concurrency_fits"] == false);
    CHECK(three["max_context_at_concurrency"] == 13952);
    CHECK(report("google/gemma-4-26B-A4B", {{"max_context", 32768},
                                            {"engine_log", log},
                                            {"max_num_batched_tokens", 4992},
                                            {"concurrency", 2}})["concurrency_fits"] == true);

    // A pool given in tokens stays a check in tokens, with the warning that says so.
    json tokens = report("mistralai/Mistral-7B-v0.1", {{"max_context", 32768}, {"pool_tokens", 16384}});
    CHECK(tokens["fits_by"] == "tokens");
    CHECK(tokens["fits"] == false);
    // Mistral-7B's 32 layers all slide (window 4,096): with 2 GiB, 2^31 / (32 x 65,536 B pages)
    // = 1,024 blocks a layer against cdiv(min(4,095 + 8,192, 32,768), 16) + 1 = 769 per request.
    json mistral = report("mistralai/Mistral-7B-v0.1",
                          {{"max_context", 32768},
                           {"engine_log", "INFO [gpu_worker.py:227] Available KV cache memory: 2.00 GiB\n"}});
    CHECK(mistral["fits_by"] == "bytes");
    CHECK(mistral["request_bytes_per_gpu"] == 1612709888);  // 32 x 769 x 65,536
    CHECK(mistral["max_concurrency_text"] == "1.33");       // 2,147,483,648 / 1,612,709,888 = 1.332
    CHECK(mistral["max_safe_context"] == 32768);            // the model's own max: the bytes stop growing
}

TEST_CASE("check: a context above the model's own max is advised down to it, even when the pool holds it") {
    auto r = check(10000000, 200000, 16, 131072);
    CHECK(r.fits);
    CHECK(r.max_safe_context == 131072);
    REQUIRE(r.advice.size() == 3);
    CHECK(r.advice[1] ==
          "The model's own max context is 131,072, though: set --max-model-len 131072 (vLLM) / "
          "--context-length "
          "131072 (SGLang), and advertise no more than 131,072 tokens.");
    CHECK(r.advice[2] == "Test it: a prompt of 131,073 tokens must get an error (HTTP 400), not a 200.");
}

TEST_CASE("check report: vLLM V0's block line as later releases spell it") {
    // vLLM 0.6 names the device: "# cuda blocks" (and "# CUDA blocks") for "# GPU blocks".
    for (const char* device : {"cuda", "CUDA", "GPU"}) {
        json r = report("meta-llama/Llama-3.1-8B",
                        {{"max_context", 32768},
                         {"engine_log", std::string("INFO 10-02 09:14:07 gpu_executor.py:122] # ") + device +
                                            " blocks: 5693, # CPU blocks: 2048\n"}});
        CHECK(r["pool_tokens"] == 91088);  // 5,693 x 16
        CHECK(r["fits"] == true);
    }
}

TEST_CASE("check report: SGLang's own pools for hybrid models, derived from a GPU") {
    // Qwen3-Next on 4 H100s at 0.85: 31,739,562,117 B per GPU for the cache. The Mamba state takes
    // floor(x 9 / 19) = 15,034,529,423 B first; the 12 full-attention layers (2 x 1 KV head per
    // GPU x 256 x 2 B = 1,024 B each) get 16,705,032,694 B / 12,288 B = 1,359,459 tokens.
    json next = report("Qwen/Qwen3-Next-80B-A3B-Instruct", {{"max_context", 262144},
                                                            {"gpu", "h100-80gb"},
                                                            {"tp", 4},
                                                            {"engine", "sglang"},
                                                            {"mem_fraction_static", "0.85"}});
    CHECK(next["pool"]["pool_bytes_per_gpu"] == 31739562117);
    CHECK(next["pool_tokens"] == 1359459);
    CHECK(next["fits_by"] == "tokens");
    CHECK(next["max_concurrency_text"] == "5.19");  // 1,359,459 / 262,144 = 5.186
    // gpt-oss-120b on one H100 at 0.85: 6,496,111,749 B. 18 full and 18 sliding layers of
    // 2 x 8 x 64 x 2 = 2,048 B a token: full tokens = 5 x 6,496,111,749 / (5 x 36,864 + 4 x 36,864)
    // = 97,899; the sliding layers hold 0.8 of that.
    json oss = report("openai/gpt-oss-120b", {{"max_context", 131072},
                                              {"gpu", "h100-80gb"},
                                              {"engine", "sglang"},
                                              {"mem_fraction_static", "0.85"}});
    CHECK(oss["pool"]["pool_bytes_per_gpu"] == 6496111749);
    CHECK(oss["pool_tokens"] == 97899);
    CHECK(oss["fits"] == false);
    const json& steps = oss["pool"]["steps"];
    CHECK(
        steps[steps.size() - 1] ==
        "/ (36,864 B per token for the full layers + 0.8 x 36,864 B for the sliding ones, SGLang's "
        "swa_full_tokens_ratio 0.8) = 97,899 pages of 1 = 97,899 full-layer tokens (the sliding layers hold "
        "0.8 of that)");
}

TEST_CASE("check report: a pool derived from a GPU says which weights the estimate leaves out") {
    // Qwen2.5-VL's vision encoder (about 0.68B parameters) is not counted; vLLM loads it too.
    json vl = report(kvtest::shared_config("reconstructed/Qwen--Qwen2.5-VL-7B-Instruct.json"),
                     {{"max_context", 32768}, {"gpu", "l40s"}});
    bool said = false;
    for (const auto& w : std::as_const(vl)["warnings"])
        said |= w["message"] ==
                "the weights leave out vision_config (a multimodal tower, not counted): an engine that loads "
                "them "
                "has less memory for the KV cache than derived here";
    CHECK(said);
    // A pool given in tokens needs no weights: no such warning.
    json given = report(kvtest::shared_config("reconstructed/Qwen--Qwen2.5-VL-7B-Instruct.json"),
                        {{"max_context", 32768}, {"pool_tokens", 100000}});
    for (const auto& w : std::as_const(given)["warnings"])
        CHECK(w["field"] != "gpu");
}

TEST_CASE("check report: SGLang's defaulted mem_fraction_static is flagged, with its 10 GB floor") {
    // An H100 as CUDA reports it: 84,943,715,696 B = 81,008 MiB; (81,008 - 10,240) / 81,008
    // = 0.8736 -> 0.874, below the 0.88 fallback used.
    json r = report("Qwen/Qwen3-8B", {{"max_context", 32768}, {"gpu", "h100-80gb"}, {"engine", "sglang"}});
    bool said = false;
    for (const auto& w : std::as_const(r)["warnings"])
        said |=
            w["field"] == "mem_fraction_static" &&
            w["message"] ==
                "SGLang sets mem_fraction_static from the GPU's memory less its reservations (activations, "
                "CUDA "
                "graphs, parallelism), with at least 10 GB reserved on GPUs over 60 GB (on this GPU's 81,008 "
                "MiB, at most 0.874 by that floor); 0.88 is its fallback: give the value your server logs";
    CHECK(said);
    json given = report("Qwen/Qwen3-8B", {{"max_context", 32768},
                                          {"gpu", "h100-80gb"},
                                          {"engine", "sglang"},
                                          {"mem_fraction_static", "0.85"}});
    for (const auto& w : std::as_const(given)["warnings"])
        CHECK(w["field"] != "mem_fraction_static");
}

TEST_CASE("check report: a context above the model's max is warned about once") {
    // Qwen3-8B's own max is 40,960: the sizing's "context" warning and the check's
    // "max_context" one say the same, and the report keeps the check's.
    json r = report("Qwen/Qwen3-8B", {{"max_context", 50000}, {"pool_tokens", 1000000}});
    int about_context = 0;
    for (const auto& w : std::as_const(r)["warnings"])
        about_context += (w["field"] == "max_context" || w["field"] == "context") ? 1 : 0;
    CHECK(about_context == 1);
}

TEST_CASE("check report: vLLM's padding layers count in a hybrid's request") {
    // Nemotron-H-56B with 10 GiB. vLLM keeps its SSM state in float32 (NemotronHForCausalLMConfig):
    // a state page of 3 x (256 x 64 + 2 x 8 x 256) x 2 + 256 x 64 x 256 x 4 = 16,900,096 B, so the
    // attention block is 16 x cdiv(16,900,096, 16 x 4,096) = 4,128 tokens, pages of 4,128 x 4,096 =
    // 16,908,288 B. Its 54 Mamba layers go in groups of its 10 attention layers: six groups, 60 state
    // pages a request, with 10 x cdiv(8,192, 4,128) = 20 attention blocks: 80 pages = 1,352,663,040 B.
    // vLLM floors the pool to whole blocks of 10 pages first: 10,737,418,240 // 16,908,288 // 10 =
    // 63 blocks, and a request takes 2 + 6 of them: 63 / 8 = 7.875, "7.88".
    json r = report("nvidia/Nemotron-H-56B-Base-8K",
                    {{"max_context", 8192},
                     {"engine_log", "INFO [gpu_worker.py:227] Available KV cache memory: 10.00 GiB\n"}});
    CHECK(r["fits_by"] == "bytes");
    CHECK(r["request_bytes_per_gpu"] == 1352663040);
    CHECK(r["max_concurrency_text"] == "7.88");
    CHECK(r["pool_blocks"] == 63);
}

// Issue 17's four failures, each with lines of the same shape as the logs users posted.

TEST_CASE(
    "check report: a hybrid's token line is not its capacity; the engine's concurrency is its verdict") {
    // Qwen3-Next-80B on tp 4: 36 linear-attention layers and 12 full ones in 4 KV cache groups of 12,
    // blocks of 12 pages of 272 x 2 x 1 KV head x 256 x 2 B = 278,528 B. One 100,000-token request
    // takes cdiv(100,000, 272) = 368 blocks + 3 state blocks = 371. "2.10x" allows 778 to 780 blocks
    // (779.1 / 371 rounds to 2.10); "61,440 tokens" fits no pool of blocks under either release's
    // formula. Dividing it by the context would say 0.61x, DOES NOT FIT.
    const std::string log =
        "(EngineCore_DP0 pid=2378760) INFO 09-26 17:58:22 [kv_cache_utils.py:1087] GPU KV cache size: 61,440 "
        "tokens\n"
        "(EngineCore_DP0 pid=2378760) INFO 09-26 17:58:22 [kv_cache_utils.py:1091] Maximum concurrency for "
        "100,000 "
        "tokens per request: 2.10x\n";
    json r = report("Qwen/Qwen3-Next-80B-A3B-Instruct", {{"engine_log", log}, {"tp", 4}});
    CHECK(r["max_context"] == 100000);
    CHECK(r["fits"] == true);
    CHECK(r["max_concurrency_text"] == "2.10");
    CHECK(r["verdict_source"] == "the engine's own verdict (line 2: maximum concurrency 2.10x)");
    CHECK(r["verdict_from"] == "engine");
    CHECK(r["log_blocks"]["blocks_per_request"] == 371);
    CHECK(r["log_blocks"]["engine_blocks_low"] == 778);
    CHECK(r["log_blocks"]["engine_blocks_high"] == 780);
    CHECK(r["pool_blocks"] == 778);
    CHECK(r["engine_verdict"]["fits"] == true);
    REQUIRE(r["cross_checks"].size() == 1);
    CHECK(r["cross_checks"][0]["figure"] == "GPU KV cache size");
    CHECK(r["cross_checks"][0]["agree"] == false);
    bool said = false;
    for (const auto& w : r["warnings"])
        said =
            said ||
            w["message"] ==
                "vLLM's \"GPU KV cache size: 61,440 tokens\" (line 1) is not how many tokens of one context "
                "the pool holds for this model: its layers are in 4 KV cache groups that share the pool's "
                "blocks. The verdict goes by blocks and the engine's own concurrency line";
    CHECK(said);
}

TEST_CASE("check report: V0's \"Memory profiling results\" line, and its block line without the #") {
    // Llama-3.1-8B: 16-token blocks of 32 x 2 x 8 x 128 x 2 B x 16 = 2,097,152 B. 4.12 GiB is 4.115 to
    // 4.125 GiB: 2,106 to 2,112 blocks; the engine's 2,110 is one of them.
    const std::string log =
        "INFO 12-02 10:11:12 worker.py:232] Memory profiling results: total_gpu_memory=23.58GiB "
        "initial_memory_usage=15.34GiB peak_torch_memory=16.77GiB memory_usage_post_profile=15.35Gib "
        "non_torch_memory=0.35GiB kv_cache_size=4.12GiB gpu_memory_utilization=0.90\n"
        "INFO 12-02 10:11:12 gpu_executor.py:113] GPU blocks: 2110, # CPU blocks: 2048\n"
        "INFO 12-02 10:11:12 gpu_executor.py:117] Maximum concurrency for 20000 tokens per request: 1.69x\n";
    json r = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}});
    CHECK(r["pool_blocks"] == 2110);
    CHECK(r["pool_tokens"] == 33760);            // 2,110 x 16
    CHECK(r["max_concurrency_text"] == "1.69");  // V0: 33,760 / 20,000
    CHECK(r["log_blocks"]["memory_blocks_low"] == 2106);
    CHECK(r["log_blocks"]["memory_blocks_high"] == 2112);
    REQUIRE(r["cross_checks"].size() == 3);
    for (const auto& c : r["cross_checks"])
        CHECK(c["agree"] == true);
    CHECK(r["cross_checks"][0]["figure"] == "pool");
    // The memory line alone is a pool too: 4.12 GiB = 4,423,816,478 B, 2,109 blocks.
    json mem = report("meta-llama/Llama-3.1-8B",
                      {{"max_context", 20000},
                       {"engine_log",
                        "Memory profiling results: total_gpu_memory=23.58GiB kv_cache_size=4.12GiB "
                        "gpu_memory_utilization=0.90\n"}});
    CHECK(mem["pool_blocks"] == 2109);
    CHECK(mem["pool_source"] ==
          "kvcalc's derivation from the logged memory: 4.12 GiB per GPU (line 1) / 2,097,152 B a block = "
          "2,109 blocks");
}

TEST_CASE("check report: vLLM's refusal states the memory and the answer") {
    // 32.00 GiB for 131,072 tokens is 256 KiB a token: Llama-3.1-8B with a float32 cache
    // (32 x 2 x 8 x 128 x 4 B). 20.50 GiB holds 5,246 to 5,249 blocks of 16 x 262,144 B, so the
    // longest request is 83,936 to 83,984 tokens: the engine's 83,968 among them.
    const std::string log =
        "(EngineCore_DP0 pid=7) ValueError: To serve at least one request with the models's max seq len "
        "(131072), "
        "(32.00 GiB KV cache is needed, which is larger than the available KV cache memory (20.50 GiB). "
        "Based on the "
        "available memory, the estimated maximum model length is 83968. Try increasing "
        "`gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.\n";
    json r = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}, {"kv_dtype", "fp32"}});
    CHECK(r["max_context"] == 131072);
    CHECK(r["fits"] == false);
    CHECK(r["max_safe_context"] == 83968);
    CHECK(r["max_safe_context_source"] == "the engine's own estimate (line 1: vLLM refused to start)");
    CHECK(r["request_bytes_per_gpu"] == 34359738368);  // 131,072 x 262,144
    CHECK(r["engine_verdict"]["estimated_max_context"] == 83968);
    REQUIRE(r["cross_checks"].size() == 3);
    CHECK(r["cross_checks"][0]["figure"] == "KV cache needed");
    CHECK(r["cross_checks"][1]["figure"] == "estimated maximum model length");
    CHECK(r["cross_checks"][1]["kvcalc"] ==
          "83,936 to 83,984 tokens: the longest request whose blocks fit 20.50 GiB (22,006,338,683 to "
          "22,017,076,101 B)");
    CHECK(r["cross_checks"][2]["figure"] == "verdict");
    for (const auto& c : r["cross_checks"])
        CHECK(c["agree"] == true);
    CHECK(r["advice"][1] ==
          "Set --max-model-len 83968 (vLLM) / --context-length 83968 (SGLang), and advertise no more than "
          "83,968 "
          "tokens.");
}

TEST_CASE(
    "check report: where kvcalc's derivation disagrees, both figures, and the verdict follows the engine's") {
    // 58.11 GiB holds 29,749 to 29,754 blocks of 2 MiB for Llama-3.1-8B; the engine printed 400,000 tokens
    // (25,000 blocks) and 48.83x.
    const std::string log =
        "INFO [gpu_worker.py:436] Available KV cache memory: 58.11 GiB\n"
        "INFO [kv_cache_utils.py:1319] GPU KV cache size: 400,000 tokens\n"
        "INFO [kv_cache_utils.py:1324] Maximum concurrency for 8,192 tokens per request: 48.83x\n";
    json engine = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}});
    CHECK(engine["pool_blocks"] == 25000);
    CHECK(engine["max_concurrency_text"] == "48.83");
    REQUIRE(engine["cross_checks"].size() == 3);
    CHECK(engine["cross_checks"][0]["figure"] == "GPU KV cache size");
    CHECK(engine["cross_checks"][0]["agree"] == false);
    CHECK(engine["cross_checks"][0]["text"] ==
          "GPU KV cache size: the engine printed 400,000 tokens (line 2); kvcalc derives 475,984 to 476,064 "
          "tokens "
          "(num_blocks x block), from 29,749 to 29,754 blocks: 58.11 GiB per GPU (62,389,768,684 to "
          "62,400,506,101 "
          "B, line 1) / 2,097,152 B a block");
    CHECK(engine["cross_checks"][1]["figure"] == "concurrency");
    CHECK(engine["cross_checks"][1]["agree"] == false);
    bool said = false;
    for (const auto& w : engine["warnings"])
        said = said ||
               w["message"] ==
                   "2 of the engine's printed figures disagree with kvcalc's derivation (see cross_checks); "
                   "the verdict follows the engine's figures (verdict_from kvcalc follows kvcalc's "
                   "derivation)";
    CHECK(said);
    // Asked to follow kvcalc: 58.11 GiB = 62,395,137,392 B, 29,752 blocks, 58.11x.
    json own = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}, {"verdict_from", "kvcalc"}});
    CHECK(own["verdict_from"] == "kvcalc");
    CHECK(own["verdict_source"] == "kvcalc");
    CHECK(own["pool_blocks"] == 29752);
    CHECK(own["max_concurrency_text"] == "58.11");
    // The engine's verdict is for its own max model length: at another context kvcalc computes
    // from the engine's pool, and says so.
    json other = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}, {"max_context", 131072}});
    CHECK(other["verdict_source"] == "kvcalc");
    CHECK(other["max_concurrency_text"] == "3.05");  // 25,000 / 8,192 blocks
}

TEST_CASE("check report: the log's tp, pp, KV dtype and block size apply unless given") {
    const std::string log =
        "INFO [core.py:105] Initializing a V1 LLM engine (v0.19.0) with config: model='x', "
        "dtype=torch.float32, "
        "max_seq_len=8192, tensor_parallel_size=2, pipeline_parallel_size=1, kv_cache_dtype=auto\n"
        "INFO [gpu_worker.py:436] Available KV cache memory: 42.80 GiB\n";
    json r = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}});
    CHECK(r["tp"] == 2);
    CHECK(r["kv_dtype"] == "fp32");                 // vLLM's auto follows a float32 model
    CHECK(r["bytes_per_token_per_gpu"] == 131072);  // 32 x 2 x 4 x 128 x 4
    json given = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}, {"tp", 1}});
    CHECK(given["tp"] == 1);
    bool said = false;
    for (const auto& w : given["warnings"])
        said =
            said ||
            w["message"] ==
                "the engine log states tp 2 (line 1, \"tensor_parallel_size=\"); checked with tp 1 as given";
    CHECK(said);
}

TEST_CASE("check report: SGLang's K and V sizes check kvcalc's bytes per token") {
    // Qwen3-8B on tp 2 read as tp 1: K size would be twice what SGLang printed.
    const std::string log =
        "[2025-06-10 14:02:20 TP0] KV Cache is allocated. #tokens: 386961, K size: 13.29 GB, V size: 13.29 "
        "GB\n"
        "[2025-06-10 14:02:24 TP0] max_total_num_tokens=386961, max_running_requests=4096, "
        "context_len=40960\n";
    json wrong = report("Qwen/Qwen3-8B", {{"engine_log", log}});
    CHECK(wrong["cross_checks"][0]["agree"] == false);
    json right = report("Qwen/Qwen3-8B", {{"engine_log", log}, {"tp", 2}});
    CHECK(right["cross_checks"][0]["agree"] == true);  // (386,961 + 1) x 36 x 4 x 128 x 2 B = 13.29 GiB
    CHECK(right["cross_checks"][0]["kvcalc"] ==
          "14,264,967,168 B (13.29 GiB): (386,961 tokens + one page of 1) x 36,864 B per token per GPU");
}

TEST_CASE("check report: SGLang's scheduler and Mamba cache cap the requests held at once") {
    // 386,961 tokens hold 94.47 requests of 4,096, but the scheduler runs 32 at most.
    const std::string log =
        "[2025-06-10 14:02:24 TP0] max_total_num_tokens=386961, chunked_prefill_size=8192, "
        "max_prefill_tokens=16384, "
        "max_running_requests=32, context_len=40960\n";
    json r = report("Qwen/Qwen3-8B", {{"engine_log", log}, {"max_context", 4096}});
    CHECK(r["max_concurrency_text"] == "32.00");
    bool said = false;
    for (const auto& w : r["warnings"])
        said = said || w["message"] ==
                           "the engine runs at most 32 requests at once (max_running_requests, line 1): the "
                           "concurrency is capped there";
    CHECK(said);
    json mamba =
        report("Qwen/Qwen3-8B", {{"engine_log", log + "[2025-06-10 14:02:25 TP0] Mamba Cache is allocated. "
                                                      "max_mamba_cache_size: 12, conv_state size: 0.10 GB\n"},
                                 {"max_context", 4096}});
    CHECK(mamba["max_concurrency_text"] == "12.00");
}

TEST_CASE("check report: a whole log of megabytes through the text API, words like NaN in it untouched") {
    // The JS API and the element pass options as JSON text: a pasted DEBUG log of 5 MB is read.
    std::string log;
    while (log.size() < (std::size_t{5} << 20))
        log +=
            "(APIServer pid=1) DEBUG 04-22 20:00:11 [loggers.py:273] loss NaN, Infinity tokens/s, "
            "-Infinity\n";
    log +=
        "INFO [gpu_worker.py:436] Available KV cache memory: 58.11 GiB\n"
        "INFO [kv_cache_utils.py:1319] GPU KV cache size: 476,016 tokens\n"
        "INFO [kv_cache_utils.py:1324] Maximum concurrency for 8,192 tokens per request: 58.11x\n";
    json r = report("meta-llama/Llama-3.1-8B", {{"engine_log", log}});
    CHECK(r["pool_blocks"] == 29751);
    CHECK(r["max_concurrency_text"] == "58.11");
    CHECK(r["log"]["understood"][0]["line"] == 55190);  // cdiv(5 MiB, 95 B a noise line) + 1: none lost
}
