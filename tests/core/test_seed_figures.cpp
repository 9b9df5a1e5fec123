// The seed figures from the guide: plain dense models, bf16 unless the config says otherwise.
#include "support.hpp"

using namespace kvtest;
using kvcalc::Accounting;

TEST_CASE("Qwen2.5-7B-Instruct: 56 KiB per token, 1.75 GiB at 32K") {
    auto r = size("Qwen--Qwen2.5-7B-Instruct.json", at(32768));
    CHECK(r.bytes_per_token == 57344);  // 2 x 28 layers x 4 KV heads x 128 (3584/28) x 2 B
    CHECK(r.bytes_per_token == 56 * KiB);
    CHECK(r.sequence_bytes_naive == 1879048192);                 // 57,344 x 32,768
    CHECK(r.sequence_bytes_naive == 7 * GiB / 4);                // 1.75 GiB
    CHECK(r.sequence_bytes_resident == r.sequence_bytes_naive);  // use_sliding_window false: no window
}

TEST_CASE("Mistral-7B-v0.1: 128 KiB per token") {
    auto r = size("mistralai--Mistral-7B-v0.1.json", at(4096));
    CHECK(r.bytes_per_token == 131072);  // 2 x 32 x 8 x 128 (4096/32) x 2
    CHECK(r.bytes_per_token == 128 * KiB);
}

TEST_CASE("Qwen3-8B: 144 KiB per token") {
    auto r = size("Qwen--Qwen3-8B.json", at(4096));
    CHECK(r.bytes_per_token == 147456);  // 2 x 36 x 8 x 128 (head_dim) x 2
    CHECK(r.bytes_per_token == 144 * KiB);
}

TEST_CASE("Qwen2.5-72B-Instruct: 320 KiB per token, 10 GiB at 32K, 80 GiB for 8 users") {
    auto one = size("Qwen--Qwen2.5-72B-Instruct.json", at(32768));
    CHECK(one.bytes_per_token == 327680);  // 2 x 80 x 8 x 128 (8192/64) x 2
    CHECK(one.bytes_per_token == 320 * KiB);
    CHECK(one.kv_bytes == 10 * GiB);  // 327,680 x 32,768 = 10,737,418,240
    auto o = at(32768);
    o.batch = 8;
    auto eight = size("Qwen--Qwen2.5-72B-Instruct.json", o);
    CHECK(eight.kv_bytes == 80 * GiB);  // 8 x 10 GiB = 85,899,345,920
}

TEST_CASE("Llama-2-7b is MHA: 32 KV heads, 512 KiB per token in fp16") {
    auto m = model("meta-llama--Llama-2-7b-hf.json");
    CHECK(m.groups.at(0).kv_heads.value == 32);
    auto r = size("meta-llama--Llama-2-7b-hf.json", at(4096));
    CHECK(r.bytes_per_token == 524288);  // 2 x 32 x 32 x 128 x 2 (float16)
    CHECK(r.kv_bytes == 2 * GiB);        // 524,288 x 4,096
}

TEST_CASE("GQA: Mistral-7B's 8 KV heads cut the cache 4x against its MHA twin") {
    std::string text = shared_config("mistralai--Mistral-7B-v0.1.json");
    auto gqa = kvcalc::read_model_text(text);
    REQUIRE(gqa.ok());
    std::string mha_text = text;
    auto pos = mha_text.find("\"num_key_value_heads\": 8");
    REQUIRE(pos != std::string::npos);
    mha_text.replace(pos, 24, "\"num_key_value_heads\": 32");
    auto mha = kvcalc::read_model_text(mha_text);
    REQUIRE(mha.ok());
    auto a = kvcalc::size_model(*gqa, at(32768, Accounting::naive));
    auto b = kvcalc::size_model(*mha, at(32768, Accounting::naive));
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(b->bytes_per_token == 524288);                  // 2 x 32 x 32 x 128 x 2
    CHECK(b->bytes_per_token == 4 * a->bytes_per_token);  // 32 query heads / 8 KV heads
    CHECK(b->kv_bytes == 4 * a->kv_bytes);
}
