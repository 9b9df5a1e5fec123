// Pool derivation as vLLM and SGLang do it, on named GPUs, with every step's arithmetic.
#include "check/gpu_presets.hpp"
#include "check/pool.hpp"
#include "sizing/weights.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::Engine;

namespace {

kvcalc::Fraction fraction(const std::string& text) {
    auto f = kvcalc::parse_fraction(text, "gpu_memory_utilization");
    INFO(text << ": " << (f ? "" : f.error().message));
    REQUIRE(f.ok());
    return f.value();
}

// The inputs for `file` at tensor parallel `tp` on the named GPU, as check_report fills them.
kvcalc::PoolInputs inputs_for(const std::string& file, std::uint64_t tp, const char* gpu, Engine engine) {
    auto m = model(file);
    kvcalc::SizeOptions o;
    o.context = 4096;
    o.tp = tp;
    auto r = kvcalc::size_model(m, o);
    REQUIRE(r.ok());
    auto w = kvcalc::estimate_weights(m);
    REQUIRE(w.ok());
    auto per_gpu = kvcalc::weight_bytes_per_gpu(*w, r->stages, tp);
    REQUIRE(per_gpu.ok());
    const kvcalc::GpuPreset* g = kvcalc::find_gpu_preset(gpu);
    REQUIRE(g != nullptr);
    kvcalc::PoolInputs in;
    in.engine = engine;
    in.gpu_memory_bytes = kvcalc::gpu_memory_bytes(*g);
    in.gpu_source = gpu;
    in.fraction = fraction(engine == Engine::vllm ? "0.9" : "0.88");
    in.fraction_source = "default";
    in.weight_bytes_per_gpu = *per_gpu;
    in.weight_source = "estimate";
    in.bytes_per_token_per_gpu = r->bytes_per_token_per_gpu;
    in.block_size = engine == Engine::vllm ? 16 : 1;
    return in;
}

}  // namespace

TEST_CASE("pool: fractions are exact decimals") {
    auto f = fraction("0.9");
    CHECK(f.num == 9);
    CHECK(f.den == 10);
    CHECK(f.text == "0.9");
    auto g = fraction("0.925");
    CHECK(g.num == 37);  // 925 / 1000 reduced
    CHECK(g.den == 40);
    CHECK(fraction("1").num == 1);
    CHECK(fraction("1.000").den == 1);
    CHECK(fraction(".85").text == "0.85");
    CHECK(fraction("0.900").text == "0.9");
    for (
        auto [text, message] :
        {std::pair{"0", "gpu_memory_utilization: must be above 0, got \"0\""},
         std::pair{"1.1", "gpu_memory_utilization: must be at most 1, got \"1.1\""},
         std::pair{"0.1234567",
                   "gpu_memory_utilization: must be a decimal fraction like 0.9 (at most 6 decimals), got "
                   "\"0.1234567\""},
         std::pair{
             "90%",
             "gpu_memory_utilization: must be a decimal fraction like 0.9 (at most 6 decimals), got \"90%\""},
         std::pair{
             "",
             "gpu_memory_utilization: must be a decimal fraction like 0.9 (at most 6 decimals), got \"\""}}) {
        auto bad = kvcalc::parse_fraction(text, "gpu_memory_utilization");
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().code == "bad_option");
        CHECK(bad.error().field == "gpu_memory_utilization");
        CHECK(bad.error().message == message);
    }
}

TEST_CASE("pool: byte sizes, rounded down to whole bytes") {
    auto size = [](const char* text) {
        auto s = kvcalc::parse_byte_size(text, "activation_peak");
        INFO(text << ": " << (s ? "" : s.error().message));
        REQUIRE(s.ok());
        return *s;
    };
    CHECK(size("1.5GiB") == 1610612736);     // 3 x 2^29
    CHECK(size("512 MiB") == 536870912);     // 2^29
    CHECK(size("80GB") == 80000000000);      // decimal units are 10^9
    CHECK(size("79.11GiB") == 84943715696);  // floor(7911 x 2^30 / 100) = floor(84,943,715,696.64)
    CHECK(size("536870912") == 536870912);
    CHECK(size("0") == 0);
    auto frac = kvcalc::parse_byte_size("1.5", "non_torch");
    REQUIRE_FALSE(frac.ok());
    CHECK(frac.error().message == "non_torch: a number of bytes must be whole, got \"1.5\"");
    auto unit = kvcalc::parse_byte_size("2 XB", "non_torch");
    REQUIRE_FALSE(unit.ok());
    CHECK(unit.error().message ==
          "non_torch: unknown unit (expected B, KiB, MiB, GiB, TiB, kB, MB, GB or TB), got \"2 XB\"");
}

TEST_CASE("pool: GPU presets carry the memory CUDA reports") {
    REQUIRE(kvcalc::gpu_preset_count() == 8);
    const auto* h100 = kvcalc::find_gpu_preset("H100_80GB");  // case and separators are folded
    REQUIRE(h100 != nullptr);
    CHECK(std::string(h100->id) == "h100-80gb");
    CHECK(kvcalc::gpu_memory_bytes(*h100) == 84943715696);  // 79.11 GiB: floor(7911 x 2^30 / 100)
    for (auto [id, hundredths] :
         {std::pair{"h200-141gb", 13981}, std::pair{"a100-40gb", 3939}, std::pair{"a100-80gb", 7915},
          std::pair{"l40s", 4431}, std::pair{"rtx-4090", 2353}, std::pair{"b200", 17852},
          std::pair{"mi300x", 19145}}) {
        const auto* g = kvcalc::find_gpu_preset(id);
        REQUIRE(g != nullptr);
        CHECK(g->memory_gib_hundredths == static_cast<std::uint64_t>(hundredths));
        CHECK(kvcalc::gpu_memory_bytes(*g) == static_cast<std::uint64_t>(hundredths) * 1073741824 / 100);
    }
    CHECK(kvcalc::find_gpu_preset("h100") == nullptr);  // ambiguous names are not guessed
}

TEST_CASE("pool: whole blocks of the per-GPU bytes per token") {
    CHECK(kvcalc::tokens_in_bytes(37947189886, 81920, 16) ==
          463216);  // floor(37,947,189,886 / 1,310,720) = 28,951 blocks
    CHECK(kvcalc::tokens_in_bytes(1310719, 81920, 16) == 0);  // less than one block
    CHECK(kvcalc::tokens_in_bytes(1310720, 81920, 16) == 16);
    CHECK(kvcalc::tokens_in_bytes(1310720, 81920, 1) == 16);  // SGLang's page size 1
}

TEST_CASE("pool: Qwen2.5-72B on four H100s, tensor parallel 4, as vLLM derives it") {
    auto in = inputs_for("Qwen--Qwen2.5-72B-Instruct.json", 4, "h100-80gb", Engine::vllm);
    CHECK(in.weight_bytes_per_gpu == 36354670592);  // the 72.71B parameters' share of one rank (test_weights)
    CHECK(in.bytes_per_token_per_gpu == 81920);     // 2 x 80 layers x (8 KV heads / 4) x 128 x 2 B
    auto r = kvcalc::derive_pool(in);
    REQUIRE(r.ok());
    // 84,943,715,696 B x 9 / 10 = 76,449,344,126 (rounded down)
    CHECK(r->requested_bytes == 84943715696ull * 9 / 10);
    CHECK(r->requested_bytes == 76449344126);
    // - 36,354,670,592 weights - 1,610,612,736 activation peak - 536,870,912 non-torch
    CHECK(r->pool_bytes_per_gpu == 76449344126ull - 36354670592 - 1610612736 - 536870912);
    CHECK(r->pool_bytes_per_gpu == 37947189886);  // 35.34 GiB for the KV cache per GPU
    CHECK(r->pool_blocks == 37947189886ull / (16 * 81920));
    CHECK(r->pool_blocks == 28951);
    CHECK(r->pool_tokens == 28951 * 16);
    CHECK(r->pool_tokens == 463216);
    CHECK(r->memory_left);
    REQUIRE(r->steps.size() == 7);
    CHECK(r->steps[0] == "GPU memory 84,943,715,696 B (79.11 GiB) (h100-80gb)");
    CHECK(r->steps[1] == "x gpu_memory_utilization 0.9 (default) = 76,449,344,126 B (71.2 GiB)");
    CHECK(r->steps[2] == "- weights 36,354,670,592 B (33.86 GiB) per GPU (estimate)");
    CHECK(r->steps[3] == "- activation peak 1,610,612,736 B (1.5 GiB) (default 1.5 GiB)");
    CHECK(r->steps[4] == "- non-torch memory 536,870,912 B (512 MiB) (default 0.5 GiB)");
    CHECK(r->steps[5] == "= 37,947,189,886 B (35.34 GiB) for the KV cache per GPU");
    CHECK(r->steps[6] == "/ (16 tokens x 81,920 B per token per GPU) = 28,951 whole blocks = 463,216 tokens");
}

TEST_CASE("pool: the same deployment under SGLang's mem_fraction_static") {
    auto in = inputs_for("Qwen--Qwen2.5-72B-Instruct.json", 4, "h100-80gb", Engine::sglang);
    auto r = kvcalc::derive_pool(in);
    REQUIRE(r.ok());
    // 84,943,715,696 x 88 / 100 = 74,750,469,812; SGLang keeps activations inside the
    // 12% it leaves out, so only weights and non-torch memory are subtracted.
    CHECK(r->requested_bytes == 74750469812);
    CHECK(r->pool_bytes_per_gpu == 74750469812ull - 36354670592 - 536870912);
    CHECK(r->pool_tokens == 37858928308ull / 81920);  // page size 1: 462,145 tokens
    CHECK(r->pool_tokens == 462145);
    CHECK(r->steps.size() == 6);  // no activation line
}

TEST_CASE("pool: Qwen2.5-72B does not fit one H100: nothing left for the cache") {
    auto in = inputs_for("Qwen--Qwen2.5-72B-Instruct.json", 1, "h100-80gb", Engine::vllm);
    CHECK(in.weight_bytes_per_gpu == 145410768896);  // all 145.4 GB on one GPU
    auto r = kvcalc::derive_pool(in);
    REQUIRE(r.ok());
    CHECK_FALSE(r->memory_left);
    CHECK(r->pool_bytes_per_gpu == 0);
    CHECK(r->pool_tokens == 0);
    CHECK(r->steps.back() ==
          "= nothing left for the KV cache: the reservations (147,558,252,544 B (137.42 GiB)) exceed "
          "76,449,344,126 B (71.2 GiB)");  // 145,410,768,896 + 1,610,612,736 + 536,870,912
}

TEST_CASE("pool: a bigger gpu_memory_utilization gives the cache the difference") {
    auto in = inputs_for("meta-llama--Llama-3.1-8B.json", 1, "h100-80gb", Engine::vllm);
    auto at90 = kvcalc::derive_pool(in);
    in.fraction = fraction("0.95");
    auto at95 = kvcalc::derive_pool(in);
    REQUIRE(at90.ok());
    REQUIRE(at95.ok());
    // 84,943,715,696 x 19 / 20 - 84,943,715,696 x 9 / 10, each rounded down.
    CHECK(at95->pool_bytes_per_gpu - at90->pool_bytes_per_gpu ==
          84943715696ull * 19 / 20 - 84943715696ull * 9 / 10);
}
