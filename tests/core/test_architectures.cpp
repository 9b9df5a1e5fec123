// Architecture coverage: MLA, sliding and chunked windows, hybrids, parallelism, block
// rounding, shared prefixes, the three accountings, warnings. Arithmetic beside each figure.
#include "check/pool.hpp"
#include "config/architectures.hpp"
#include "engines/vllm/vllm_pool.hpp"
#include "sizing/series.hpp"
#include "sizing/speculative.hpp"
#include "sizing/weights.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::Accounting;
using kvcalc::LayerKind;

namespace {
bool has_warning(const kvcalc::SizeResult& r, const std::string& field, const std::string& part) {
    for (const auto& w : r.warnings)
        if (w.field == field && w.message.find(part) != std::string::npos) return true;
    return false;
}
}  // namespace

TEST_CASE("the issue's named figures") {
    SECTION("DeepSeek-V3: MLA, 70,272 B/token") {
        auto r = size("deepseek-ai--DeepSeek-V3.json", at(4096));
        CHECK(r.bytes_per_token == 70272);  // 61 layers x (512 + 64) latent x 2 B
        CHECK(r.bytes_per_token == 61 * 576 * 2);
    }
    SECTION("gpt-oss-120b: 73,728 B/token from all 36 layers; resident caps 18 sliding layers at 128") {
        auto r = size("openai--gpt-oss-120b.json", at(131072));
        CHECK(r.bytes_per_token == 73728);                   // 36 x 2 x 8 x 64 x 2
        CHECK(r.sequence_bytes_naive == 73728ull * 131072);  // 9,663,676,416
        CHECK(r.sequence_bytes_resident == 18ull * 2048 * 128 + 18ull * 2048 * 131072);  // 4,836,556,800
    }
    SECTION("Mistral-7B-v0.1 at 32,768: naive 4 GiB, resident 512 MiB, vLLM 1,612,709,888 B") {
        auto r = size("mistralai--Mistral-7B-v0.1.json", at(32768));
        CHECK(r.sequence_bytes_naive == 4 * GiB);       // 131,072 x 32,768
        CHECK(r.sequence_bytes_resident == 512 * MiB);  // all 32 layers slide at 4,096: 131,072 x 4,096
        CHECK(r.sequence_bytes_vllm == 1612709888);     // 32 layers x 769 blocks x 16 tokens x 4,096 B
        CHECK(r.groups.at(0).vllm_blocks == 769);       // ceil((4096 - 1 + 8192) / 16) + 1
    }
    SECTION("Qwen3-Next: 24,576 B/token from 12 of 48 layers, plus a fixed state") {
        auto m = model("Qwen--Qwen3-Next-80B-A3B-Instruct.json");
        CHECK(m.count(LayerKind::full_attention) == 12);
        CHECK(m.count(LayerKind::linear_state) == 36);
        auto r = size("Qwen--Qwen3-Next-80B-A3B-Instruct.json", at(4096));
        CHECK(r.bytes_per_token == 24576);  // 12 x 2 x 2 KV heads x 256 x 2
        // per linear layer: conv 3 x (2 x 16 x 128 + 32 x 128) x 2 B = 49,152 + state 32 x 128 x 128 x 2 B =
        // 1,048,576
        CHECK(r.state_bytes == 36ull * (49152 + 1048576));  // 39,518,208
        CHECK(r.sequence_bytes_resident == 24576ull * 4096 + r.state_bytes);
    }
    SECTION("Gemma 4: 225,280 B/token from 25 sliding 8 x 256 and 5 full 2 x 512 layers") {
        auto r = size("google--gemma-4-26B-A4B.json", at(4096));
        CHECK(r.bytes_per_token == 225280);  // 25 x 2 x 8 x 256 x 2 + 5 x 2 x 2 x 512 x 2 = 204,800 + 20,480
        auto m = model("google--gemma-4-26B-A4B.json");
        CHECK(m.text_path == "text_config");
        CHECK(m.count(LayerKind::sliding_window) == 25);
        CHECK(m.count(LayerKind::full_attention) == 5);
        // num_global_key_value_heads applies with attention_k_eq_v only (vLLM gemma4.py Gemma4DecoderLayer:
        // num_kv_heads = num_global_key_value_heads if use_k_eq_v else num_key_value_heads); the full layers
        // keep global_head_dim either way. Without the flag: 25 x 2 x 8 x 256 x 2 + 5 x 2 x 8 x 512 x 2 =
        // 204,800 + 81,920.
        std::string text = shared_config("google--gemma-4-26B-A4B.json");
        const std::string flag = "\"attention_k_eq_v\": true";
        const auto at_flag = text.find(flag);
        REQUIRE(at_flag != std::string::npos);
        text.replace(at_flag, flag.size(), "\"attention_k_eq_v\": false");
        auto plain = kvcalc::read_model_text(text);
        REQUIRE(plain.ok());
        auto pr = kvcalc::size_model(*plain, at(4096));
        REQUIRE(pr.ok());
        CHECK(pr->bytes_per_token == 286720);
        // transformers' Gemma4TextConfig forces the last layer to full attention, whatever layer_types says;
        // a missing layer_types is the class's (every 6th layer full, and the last), which for 26B-A4B's 30
        // layers is the published list: the same 225,280 B a token.
        auto parsed = kvcalc::parse_json_text(shared_config("google--gemma-4-26B-A4B.json"));
        REQUIRE(parsed.ok());
        kvcalc::json c = *parsed;
        c["text_config"]["layer_types"][29] = "sliding_attention";
        auto last = kvcalc::read_model_text(kvcalc::to_text(c));
        REQUIRE_FALSE(last.ok());
        CHECK(last.error().field == "text_config.layer_types[29]");
        c["text_config"].erase("layer_types");
        auto none = kvcalc::read_model_text(kvcalc::to_text(c));
        INFO((none ? "" : none.error().message));
        REQUIRE(none.ok());
        auto nr = kvcalc::size_model(*none, at(4096));
        REQUIRE(nr.ok());
        CHECK(nr->bytes_per_token == 225280);
        CHECK(none->count(kvcalc::LayerKind::full_attention) == 5);
    }
    SECTION("Qwen3-0.6B: head_dim 128, not 1024 / 16") {
        auto r = size("Qwen--Qwen3-0.6B.json", at(4096));
        CHECK(r.bytes_per_token == 114688);  // 2 x 28 x 8 x 128 x 2 (with 64 it would be 57,344)
        auto m = model("Qwen--Qwen3-0.6B.json");
        CHECK(m.groups.at(0).k_head_dim.source == "head_dim");
    }
}

TEST_CASE("provenance names the field or the derivation") {
    auto m = model("Qwen--Qwen2.5-7B-Instruct.json");
    const auto& g = m.groups.at(0);
    CHECK(g.k_head_dim.value == 128);
    CHECK(g.k_head_dim.source == "hidden_size 3584 / num_attention_heads 28");
    CHECK(g.kv_heads.source == "num_key_value_heads");
    CHECK(m.num_layers.source == "num_hidden_layers");
    CHECK(m.layer_plan_source == "use_sliding_window false");
    auto glm = model("reconstructed/THUDM--chatglm3-6b.json");
    CHECK(glm.groups.at(0).kv_heads.source == "multi_query_group_num");
    CHECK(glm.groups.at(0).k_head_dim.source == "kv_channels");
    CHECK(glm.num_layers.source == "num_layers");
    CHECK(glm.max_context.source == "seq_length");
    auto falcon = model("reconstructed/tiiuae--falcon-7b-instruct.json");
    CHECK(falcon.groups.at(0).kv_heads.value == 1);
    CHECK(falcon.groups.at(0).kv_heads.source == "multi_query true: one KV head");
    auto gpt2 = model("openai-community--gpt2-large.json");
    CHECK(gpt2.groups.at(0).kv_heads.source == "n_head (no KV-head field: one KV head per query head)");
    CHECK(gpt2.groups.at(0).k_head_dim.source == "n_embd 1280 / n_head 20");
    auto scout = model("meta-llama--Llama-4-Scout-17B-16E-Instruct.json");
    CHECK(scout.count(LayerKind::chunked_local) == 36);  // RoPE layers: (i + 1) % 4 != 0
    CHECK(scout.count(LayerKind::full_attention) == 12);
    auto kimi = model("moonshotai--Kimi-Linear-48B-A3B-Instruct.json");
    CHECK(kimi.count(LayerKind::mla) == 7);                   // full_attn_layers [4, 8, ..., 27], 1-indexed
    CHECK(kimi.count(LayerKind::linear_state) == 20);         // kda_layers
    CHECK(kimi.layer_group.at(3) != kimi.layer_group.at(0));  // layer 4 (index 3) is MLA, layer 1 is KDA
    auto nem = model("nvidia--Nemotron-H-56B-Base-8K.json");
    CHECK(nem.count(LayerKind::full_attention) == 10);
    CHECK(nem.count(LayerKind::linear_state) == 54);
    CHECK(nem.count(LayerKind::no_cache) == 54);
}

TEST_CASE("tensor parallel: KV heads split, replicated above the KV-head count, MLA unsplit") {
    // Llama-3.1-70B: 80 layers, 8 KV heads x 128, 2 B; 327,680 B/token in all.
    for (auto [tp, heads] : {std::pair{2u, 4u}, std::pair{4u, 2u}, std::pair{8u, 1u}}) {
        auto o = at(8192);
        o.tp = tp;
        auto r = size("meta-llama--Llama-3.1-70B.json", o);
        INFO("tp " << tp);
        CHECK(r.groups.at(0).kv_heads_per_gpu == heads);
        CHECK(r.bytes_per_token == 327680);  // the model's total is unchanged
        CHECK(r.bytes_per_token_per_gpu ==
              80ull * 2 * heads * 128 * 2);  // tp 2: 163,840; 4: 81,920; 8: 40,960
        CHECK(r.kv_bytes_per_gpu == r.bytes_per_token_per_gpu * 8192);
        CHECK(r.kv_bytes_deployment == r.kv_bytes);  // split evenly: nothing stored twice
    }
    SECTION("tp 16 on 8 KV heads replicates one head per GPU") {
        auto o = at(8192);
        o.tp = 16;
        auto r = size("meta-llama--Llama-3.1-70B.json", o);
        CHECK(r.groups.at(0).kv_heads_per_gpu == 1);  // max(1, 8 / 16)
        CHECK(r.bytes_per_token_per_gpu == 40960);    // 80 x 2 x 1 x 128 x 2
        CHECK(r.kv_bytes_deployment ==
              16ull * 40960 * 8192);  // 16 GPUs x 335,544,320: twice the model's cache
        CHECK(r.kv_bytes_deployment == 2 * r.kv_bytes);
    }
    SECTION("MLA: every rank holds the whole latent") {
        auto o = at(4096);
        o.tp = 8;
        auto r = size("deepseek-ai--DeepSeek-V3.json", o);
        CHECK(r.bytes_per_token_per_gpu == 70272);            // 61 x 576 x 2, unsplit
        CHECK(r.kv_bytes_deployment == 8ull * 70272 * 4096);  // 8 copies
    }
    SECTION("linear-attention state shards with tp") {
        auto o = at(4096);
        o.tp = 4;
        auto r = size("Qwen--Qwen3-Next-80B-A3B-Instruct.json", o);
        // per GPU: 12 x 2 x max(1, 2/4) x 256 x 2 = 12,288 B/token
        CHECK(r.bytes_per_token_per_gpu == 12288);
        // state per layer per GPU: conv 3 x (8192 / 4) x 2 B = 12,288 + state (32 / 4) x 128 x 128 x 2 B =
        // 262,144
        CHECK(r.groups.at(0).state_bytes_layer_per_gpu == 12288 + 262144);
    }
    SECTION("tp that splits heads unevenly is refused") {
        auto o = at(4096);
        o.tp = 16;  // Qwen2.5-7B: 28 query heads
        auto r = kvcalc::size_model(model("Qwen--Qwen2.5-7B-Instruct.json"), o);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message ==
              "tp 16 does not divide num_attention_heads 28 (engines shard query heads evenly)");
        o.tp = 7;  // divides 28 query heads, but neither divides nor is divided by 4 KV heads
        r = kvcalc::size_model(model("Qwen--Qwen2.5-7B-Instruct.json"), o);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message ==
              "tp 7 and num_key_value_heads 4: one must divide the other (KV heads are split or replicated "
              "evenly)");
    }
}

TEST_CASE("pipeline parallel: uneven stages, the heaviest sets the per-GPU figure") {
    auto o = at(1000);
    o.pp = 3;
    auto r = size("meta-llama--Llama-3.1-8B.json", o);  // 32 layers, 4,096 B per layer per token
    REQUIRE(r.stages.size() == 3);
    // vLLM's split: 32 / 3 = 10 each, the 2 left over go to the stages before the last: 11, 11, 10
    CHECK(r.stages[0].layers == 11);
    CHECK(r.stages[1].layers == 11);
    CHECK(r.stages[2].layers == 10);
    CHECK(r.stages[1].first_layer == 11);
    CHECK(r.bytes_per_token_per_gpu == 11 * 4096);     // 45,056
    CHECK(r.kv_bytes_per_gpu == 11ull * 4096 * 1000);  // 45,056,000
    CHECK(r.kv_bytes_deployment == r.kv_bytes);        // 32 x 4,096 x 1,000 over the three stages
    SECTION("pp on a hybrid puts the state where its layers are") {
        auto h = at(4096);
        h.pp = 2;
        auto q =
            size("Qwen--Qwen3-Next-80B-A3B-Instruct.json", h);  // 24 layers a stage, 6 full + 18 linear each
        CHECK(q.stages[0].bytes_per_token_per_gpu == 6 * 2048);
        CHECK(q.kv_bytes_per_gpu == 6ull * 2048 * 4096 + 18ull * 1097728);  // 50,331,648 + 19,759,104
    }
}

TEST_CASE("block rounding, accountings and batches") {
    SECTION("--block-size rounds each layer's resident tokens up to whole blocks") {
        auto o = at(100);
        o.block_size = 16;
        auto r = size("openai--gpt-oss-120b.json", o);
        // sliding (window 128): min(100, 128) = 100 -> 112 tokens; full: 100 -> 112
        CHECK(r.groups.at(0).resident_tokens == 112);
        CHECK(r.sequence_bytes_resident == 36ull * 2048 * 112);  // 8,257,536
        o.context = 1000;
        r = size("openai--gpt-oss-120b.json", o);
        // sliding: min(1000, 128) = 128 (already 8 blocks); full: 1000 -> 1008
        CHECK(r.sequence_bytes_resident == 18ull * 2048 * 128 + 18ull * 2048 * 1008);  // 41,877,504
    }
    SECTION("the chosen accounting sets kv_bytes") {
        for (auto [acc, want] : {std::pair{Accounting::naive, 4294967296ull},    // 131,072 x 32,768
                                 std::pair{Accounting::resident, 536870912ull},  // 131,072 x 4,096
                                 std::pair{Accounting::vllm, 1612709888ull}}) {  // 32 x 769 x 16 x 4,096
            auto r = size("mistralai--Mistral-7B-v0.1.json", at(32768, acc));
            CHECK(r.kv_bytes == want);
        }
    }
    SECTION("vLLM's admission budget: a smaller max_num_batched_tokens reserves less for sliding layers") {
        auto o = at(32768, Accounting::vllm);
        o.max_num_batched_tokens = 2048;
        auto r = size("mistralai--Mistral-7B-v0.1.json", o);
        CHECK(r.groups.at(0).vllm_blocks == 385);                 // ceil((4096 - 1 + 2048) / 16) + 1
        CHECK(r.sequence_bytes_vllm == 32ull * 385 * 16 * 4096);  // 807,403,520
    }
    SECTION("KV dtypes: fp8 halves, int4 quarters, fp32 doubles, fp8_ds_mla is 656 B per MLA layer") {
        auto o = at(4096);
        o.kv_dtype = "fp8";
        CHECK(size("Qwen--Qwen2.5-7B-Instruct.json", o).bytes_per_token == 28672);  // 2 x 28 x 4 x 128 x 1
        o.kv_dtype = "int4";
        CHECK(size("Qwen--Qwen2.5-7B-Instruct.json", o).bytes_per_token == 14336);  // 2 x 28 x 4 x 128 x 0.5
        o.kv_dtype = "fp32";
        CHECK(size("Qwen--Qwen2.5-7B-Instruct.json", o).bytes_per_token == 114688);  // 2 x 28 x 4 x 128 x 4
        o.kv_dtype = "fp8_ds_mla";
        CHECK(size("deepseek-ai--DeepSeek-V3.json", o).bytes_per_token == 40016);  // 61 x 656
    }
}

TEST_CASE("a shared prefix is stored once") {
    auto o = at(8192);
    o.batch = 4;
    o.shared_prefix = 4096;
    auto r = size("Qwen--Qwen2.5-7B-Instruct.json", o);
    CHECK(r.kv_bytes ==
          57344ull * (4096 + 4 * (8192 - 4096)));         // prefix once + 4 private tails = 1,174,405,120
    CHECK(r.sequence_bytes_resident == 57344ull * 8192);  // one sequence is unchanged
    SECTION("a sliding layer shares only the prefix tokens still in its window") {
        auto s = at(4200);
        s.batch = 2;
        s.shared_prefix = 200;
        auto g = size("mistralai--Mistral-7B-v0.1.json", s);
        // window 4,096 covers tokens 104..4,199, so 96 of the 200 prefix tokens are shared:
        // 96 + 2 x (4,096 - 96) = 8,096 tokens x 131,072 B
        CHECK(g.kv_bytes == 131072ull * 8096);
    }
    SECTION("vLLM shares whole prefix blocks of full-attention layers") {
        auto v = at(8192, Accounting::vllm);
        v.batch = 4;
        v.shared_prefix = 4100;  // 256 whole blocks of 16
        auto q = size("Qwen--Qwen2.5-7B-Instruct.json", v);
        CHECK(q.kv_bytes == 28ull * 16 * 2048 * (256 + 4 * (512 - 256)));  // 1,174,405,120
    }
}

TEST_CASE("warnings for what the core does not model; errors for what sizing needs") {
    auto v3 = size("deepseek-ai--DeepSeek-V3.json", at(4096));
    CHECK(has_warning(v3, "num_nextn_predict_layers", "1 multi-token-prediction layer(s) not counted"));
    auto g4 = size("google--gemma-4-26B-A4B.json", at(4096));
    CHECK(has_warning(g4, "text_config.attention_k_eq_v", "still sized with separate K and V"));
    auto oss = size("openai--gpt-oss-20b.json", at(4096));
    CHECK(has_warning(oss, "torch_dtype", "no torch_dtype or dtype in the config"));
    auto long_ctx = size("Qwen--Qwen2.5-7B-Instruct.json", at(65536));
    CHECK(has_warning(long_ctx, "context", "context 65536 is above the model's max context 32768"));

    // A field that changes the cache in a way kvcalc does not model is refused, never sized as
    // plain attention.
    auto m = kvcalc::read_model_text(R"({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
        "torch_dtype": "bfloat16", "cross_attention_layers": [1]})");
    REQUIRE_FALSE(m.ok());
    CHECK(m.error().code == "unsupported_architecture");
    CHECK(m.error().field == "cross_attention_layers");
    CHECK(
        m.error().message ==
        "this config: cross_attention_layers change the cache in ways kvcalc does not model (cross-attention "
        "layers cache the encoder's (image) tokens); it refuses to guess");

    auto missing =
        kvcalc::read_model_text(R"({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
        "hybrid_override_pattern": "M*"})");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().field == "linear_num_value_heads");
}

TEST_CASE("Qwen2-style windows: use_sliding_window true slides the layers from max_window_layers") {
    auto m = kvcalc::read_model_text(R"({"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
        "num_key_value_heads": 2, "torch_dtype": "bfloat16", "use_sliding_window": true, "sliding_window": 100,
        "max_window_layers": 2})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 2);
    CHECK(m->count(LayerKind::sliding_window) == 2);
    auto r = kvcalc::size_model(*m, at(1000));
    REQUIRE(r.ok());
    // per layer per token 2 x 2 x 64 x 2 = 512 B; 2 full x 1,000 + 2 sliding x 100
    CHECK(r->sequence_bytes_resident == 512ull * (2 * 1000 + 2 * 100));
}

TEST_CASE("fp8_e5m2 on an fp8 checkpoint: sized, with vLLM's refusal as a warning") {
    kvcalc::SizeOptions o;
    o.context = 4096;
    o.kv_dtype = "fp8_e5m2";
    // DeepSeek-V3's weights are fp8 (quantization_config.quant_method "fp8"): 61 layers x 576 x 1 B.
    auto r = size("deepseek-ai--DeepSeek-V3.json", o);
    CHECK(r.bytes_per_token == 35136);
    CHECK(has_warning(r, "kv_dtype", "vLLM refuses it with fp8 checkpoints"));
    // Qwen3-8B's are bf16: no such warning.
    CHECK_FALSE(has_warning(size("Qwen--Qwen3-8B.json", o), "kv_dtype", "refuses"));
}

TEST_CASE("vLLM's hybrid block size is the one each GPU aligns to") {
    // Qwen3-Next at tp 4: a GPU holds 1 of the 2 KV heads (replicated) and a quarter of each
    // state, so the attention block that holds one state page halves: 544 at tp 1, 272 at tp 4.
    kvcalc::SizeOptions o;
    o.context = 262144;
    o.accounting = Accounting::vllm;
    CHECK(size("Qwen--Qwen3-Next-80B-A3B-Instruct.json", o).vllm_block_size == 544);
    o.tp = 4;
    auto r = size("Qwen--Qwen3-Next-80B-A3B-Instruct.json", o);
    CHECK(r.vllm_block_size == 272);
    for (const auto& g : r.groups)
        if (g.vllm_block_size) CHECK(g.vllm_blocks == 964);  // cdiv(262,144, 272)
}

// Issue 16's four cases, with configs of the same shape as the published ones.
TEST_CASE("Jamba: attention every attn_layer_period-th layer, a Mamba-1 state on the others") {
    const char* jamba = R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "attn_layer_offset": 4,
        "attn_layer_period": 8, "mamba_d_conv": 4, "mamba_d_state": 16, "mamba_expand": 2,
        "max_position_embeddings": 262144, "torch_dtype": "bfloat16"})";
    auto m = kvcalc::read_model_text(jamba);
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 4);  // layers 4, 12, 20, 28
    CHECK(m->count(LayerKind::linear_state) == 28);
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 4 * 2 * 8 * 128 * 2);  // 16,384: 4 attention layers, not 32
    // I = mamba_expand 2 x 4096 = 8192: conv (4 - 1) x 8192 x 2 B + ssm 8192 x 16 x 2 B = 311,296 B a layer.
    CHECK(r->state_bytes == 28ull * ((4 - 1) * 8192 * 2 + 8192 * 16 * 2));  // 8,716,288
    CHECK(r->sequence_bytes_resident == 16384ull * 4096 + 8716288);
    // vLLM's attention block holds one state page: 16 x cdiv(311,296, 16 x 4,096) = 80 tokens.
    CHECK(r->vllm_block_size == 80);
    // The layer pattern's defaults are JambaConfig's, and say so.
    auto d = kvcalc::read_model_text(R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba",
        "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 4096})");
    REQUIRE(d.ok());
    CHECK(d->count(LayerKind::full_attention) == 4);
    CHECK(d->layer_plan_source.find("attn_layer_period 8 (default of JambaConfig") != std::string::npos);
    for (const auto& g : d->groups)
        if (g.kind == LayerKind::full_attention)
            CHECK(g.kv_heads.source == "num_key_value_heads 8 (default of JambaConfig: the KV heads)");
}

TEST_CASE("mamba_d_ssm under an architecture kvcalc does not know is refused by the field") {
    // Falcon-H1 itself is sized (below); the same fields elsewhere are not guessed at.
    auto other = kvcalc::read_model_text(R"({"architectures": ["MyHybridForCausalLM"], "hidden_size": 2048,
        "num_hidden_layers": 24, "num_attention_heads": 8, "mamba_d_ssm": 1536})");
    REQUIRE_FALSE(other.ok());
    CHECK(other.error().field == "mamba_d_ssm");
}

TEST_CASE("DBRX and MPT: n_heads, n_layers, d_model and attn_config.kv_n_heads") {
    auto dbrx = kvcalc::read_model_text(R"({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx",
        "d_model": 6144, "n_heads": 48, "n_layers": 40, "max_seq_len": 32768,
        "attn_config": {"clip_qkv": 8, "kv_n_heads": 8, "rope_theta": 500000}, "torch_dtype": "bfloat16"})");
    REQUIRE(dbrx.ok());
    auto r = kvcalc::size_model(*dbrx, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 40 * 8 * (6144 / 48) * 2);  // 163,840
    CHECK(dbrx->max_context.value == 32768);                    // max_seq_len
    // DbrxAttentionConfig's default kv_n_heads is 1.
    auto one = kvcalc::read_model_text(R"({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx",
        "d_model": 6144, "n_heads": 48, "n_layers": 40, "attn_config": {}})");
    REQUIRE(one.ok());
    CHECK(one->groups.at(0).kv_heads.value == 1);
    CHECK(one->groups.at(0).kv_heads.source ==
          "attn_config.kv_n_heads 1 (default of DbrxAttentionConfig: the KV heads)");
    // MPT without kv_n_heads: one KV head per query head.
    auto mpt = kvcalc::read_model_text(R"({"architectures": ["MPTForCausalLM"], "model_type": "mpt",
        "d_model": 4096, "n_heads": 32, "n_layers": 32, "max_seq_len": 2048,
        "attn_config": {"alibi": true, "attn_type": "multihead_attention"}, "torch_dtype": "bfloat16"})");
    REQUIRE(mpt.ok());
    auto p = kvcalc::size_model(*mpt, at(2048));
    REQUIRE(p.ok());
    CHECK(p->bytes_per_token == 2 * 32 * 32 * 128 * 2);  // 524,288
}

TEST_CASE("Gemma-2 alternates sliding and full layers whatever cache_implementation says") {
    auto m = kvcalc::read_model_text(R"({"architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2",
        "hidden_size": 3584, "num_hidden_layers": 42, "num_attention_heads": 16, "num_key_value_heads": 8,
        "head_dim": 256, "sliding_window": 4096, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::sliding_window) == 21);
    CHECK(m->count(LayerKind::full_attention) == 21);
    CHECK(m->layer_plan_source.find("default of Gemma2Config: every other layer slides") !=
          std::string::npos);
    auto r = kvcalc::size_model(*m, at(8192));
    REQUIRE(r.ok());
    // 2 x 8 x 256 x 2 = 8,192 B a layer and token: 21 full layers x 8,192 tokens + 21 sliding x 4,096.
    CHECK(r->sequence_bytes_resident == 21ull * 8192 * 8192 + 21ull * 8192 * 4096);  // 2,113,929,216
}

TEST_CASE(
    "Rnj1: its chunked_attention layers slide over sliding_window tokens, as vLLM's rnj1.py builds them") {
    // A config written for this test from Rnj1's fields (Gemma3TextConfig with layer_types), not a
    // published one: 3 chunked layers and 1 full, 2 KV heads of 64, window 32.
    auto m = kvcalc::read_model_text(R"({"architectures": ["Rnj1ForCausalLM"], "model_type": "rnj1",
        "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 64, "sliding_window": 32, "max_position_embeddings": 4096, "torch_dtype": "bfloat16",
        "layer_types": ["chunked_attention", "chunked_attention", "chunked_attention", "full_attention"]})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::sliding_window) == 3);
    CHECK(m->count(LayerKind::full_attention) == 1);
    CHECK(m->count(LayerKind::chunked_local) == 0);
    // 2 x 2 x 64 x 2 = 512 B a layer and token.
    auto r = kvcalc::size_model(*m, at(64));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 4 * 512);                                // 2,048
    CHECK(r->sequence_bytes_resident == 512ull * 64 + 3 * 512ull * 32);  // 81,920
    // vLLM: full cdiv(64, 16) = 4 blocks; sliding cdiv(min(32 - 1 + 8192, 64), 16) + 1 = 5 blocks;
    // no padding layers (1 full, 3 sliding: groups of 1). 16 x 512 B a block and layer.
    auto v = kvcalc::size_model(*m, at(64, Accounting::vllm));
    REQUIRE(v.ok());
    CHECK(v->sequence_bytes_vllm == 16 * 512ull * (4 + 3 * 5));  // 155,648
    auto big = kvcalc::size_model(*m, at(4096, Accounting::vllm));
    REQUIRE(big.ok());
    // full cdiv(4096, 16) = 256; sliding cdiv(min(31 + 8192, 4096), 16) + 1 = 257 (the batch's tokens in
    // flight).
    CHECK(big->sequence_bytes_vllm == 16 * 512ull * (256 + 3 * 257));  // 8,413,184
    // tp 2: one KV head a GPU, half the bytes.
    auto t = at(4096);
    t.tp = 2;
    auto tp = kvcalc::size_model(*m, t);
    REQUIRE(tp.ok());
    CHECK(tp->kv_bytes_per_gpu == 256ull * (4096 + 3 * 32));  // 1,073,152

    // Chunked layers and no sliding_window: refused by the field's name, no figure.
    auto bad = kvcalc::read_model_text(R"({"architectures": ["Rnj1ForCausalLM"], "model_type": "rnj1",
        "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 64, "torch_dtype": "bfloat16", "layer_types": ["chunked_attention", "full_attention"]})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "sliding_window");
}

TEST_CASE(
    "MiMo-V2: sliding layers with their own KV heads and K/V head sizes, as vLLM's mimo_v2.py builds them") {
    // The published MiMo-V2-Flash config: 9 full layers (4 KV heads, K 192, V 128) and 39 sliding
    // (8 KV heads, K 192, V 128, 128 tokens); attention_chunk_size 128 is not read.
    auto m = kvcalc::read_model_text(
        read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/XiaomiMiMo--MiMo-V2-Flash.json"));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 9);
    CHECK(m->count(LayerKind::sliding_window) == 39);
    CHECK(m->count(LayerKind::chunked_local) == 0);
    auto r = kvcalc::size_model(*m, at(4096, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 9 * 4 * (192 + 128) * 2 + 39 * 8 * (192 + 128) * 2);  // 222,720
    // vLLM: the full layers' page (16 x 2,560 B) grows to the sliding layers' (16 x 5,120 B): block 32;
    // groups of 9 layers, so 39 sliding layers pay for 45.
    // Full: cdiv(4096, 32) x 32 tokens; sliding: cdiv(min(128 - 1 + 8192, 4096), 16) + 1 = 257 blocks.
    CHECK(r->sequence_bytes_vllm == 9ull * 4096 * 2560 + 45ull * 257 * 16 * 5120);  // 1,041,776,640
    CHECK(r->sequence_bytes_resident == 9ull * 2560 * 4096 + 39ull * 5120 * 128);   // 119,930,880

    // Missing or contradictory fields: an error naming the field, no figure.
    const std::string base = R"({"architectures": ["MiMoV2FlashForCausalLM"], "model_type": "mimo_v2_flash",
        "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 64, "torch_dtype": "bfloat16", "sliding_window_size": 32, "swa_num_key_value_heads": 4,
        "swa_head_dim": 64)";
    auto err_field = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    CHECK(err_field(base + R"(, "hybrid_layer_pattern": [0, 1, 1]})") == "hybrid_layer_pattern");
    CHECK(err_field(base + R"(, "hybrid_layer_pattern": [0, 2]})") == "hybrid_layer_pattern[1]");
    CHECK(err_field(base + "}") == "hybrid_layer_pattern");
    CHECK(err_field(base + R"(, "hybrid_layer_pattern": [0, 1], "swa_v_head_dim": -64})") ==
          "swa_v_head_dim");
    auto no_swa_kv = kvcalc::read_model_text(R"({"architectures": ["MiMoV2FlashForCausalLM"],
        "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 64, "sliding_window_size": 32, "swa_head_dim": 64, "hybrid_layer_pattern": [0, 1]})");
    REQUIRE_FALSE(no_swa_kv.ok());
    CHECK(no_swa_kv.error().field == "swa_num_key_value_heads");
    auto ok = kvcalc::read_model_text(base + R"(, "hybrid_layer_pattern": [0, 1]})");
    REQUIRE(ok.ok());
    auto s = kvcalc::size_model(*ok, at(64));
    REQUIRE(s.ok());
    // full: 2 x (64 + 64) x 2 = 512 B x 64 tokens; sliding: 4 x (64 + 64) x 2 = 1,024 B x 32 tokens.
    CHECK(s->sequence_bytes_resident == 512ull * 64 + 1024ull * 32);  // 65,536
}

TEST_CASE("DeciLM / Nemotron-NAS: block_configs give each layer its KV heads or no attention") {
    // The published Llama-3.3-Nemotron-Super-49B config: 49 of 80 blocks have attention, each with
    // n_heads_in_group 8 (64 / 8 = 8 KV heads of 8192 / 64 = 128); 31 are no_op.
    auto m = kvcalc::read_model_text(
        read_file(std::string(KVCALC_SOURCE_DIR) +
                  "/tests/fixtures/configs/nvidia--Llama-3_3-Nemotron-Super-49B-v1.json"));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 49);
    CHECK(m->count(LayerKind::no_cache) == 31);
    auto r = kvcalc::size_model(*m, at(4096, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 49 * 8 * 128 * 2);                    // 200,704
    CHECK(r->sequence_bytes_vllm == 49ull * 256 * 16 * 2 * 8 * 128 * 2);  // 822,083,584

    const std::string head = R"({"architectures": ["DeciLMForCausalLM"], "model_type": "nemotron-nas",
        "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "torch_dtype": "bfloat16", )";
    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    // Two KV heads on one layer, one on the other: 2 x (2 + 1) x 64 x 2 = 768 B a token.
    auto two = kvcalc::read_model_text(head + R"("block_configs": [{"attention": {"n_heads_in_group": 2}},
        {"attention": {"n_heads_in_group": 4, "no_op": false}}]})");
    REQUIRE(two.ok());
    auto t = kvcalc::size_model(*two, at(16));
    REQUIRE(t.ok());
    CHECK(t->bytes_per_token == 2 * (2 + 1) * 64 * 2);
    CHECK(field_of(head + R"("block_configs": [{"ffn": {}}, {"attention": {"no_op": true}}]})") ==
          "block_configs[0].attention");
    CHECK(
        field_of(head +
                 R"("block_configs": [{"attention": {"no_op": false}}, {"attention": {"no_op": true}}]})") ==
        "block_configs[0].attention.n_heads_in_group");
    CHECK(
        field_of(
            head +
            R"("block_configs": [{"attention": {"n_heads_in_group": 3}}, {"attention": {"no_op": true}}]})") ==
        "block_configs[0].attention.n_heads_in_group");
    CHECK(field_of(head + R"("block_configs": [{"attention": {"no_op": true}}]})") == "block_configs");
    CHECK(field_of(head +
                   R"("block_configs": [{"attention": {"n_heads_in_group": 2, "replace_with_linear": true}},
        {"attention": {"no_op": true}}]})") == "block_configs[0].attention.replace_with_linear");
}

TEST_CASE("LFM2, LFM2-MoE and LFM2-VL: short-convolution state layers beside full attention") {
    // vLLM lfm2.py / lfm2_moe.py: layer_types "full_attention" is attention of hidden_size /
    // num_attention_heads per head, the others a ShortConv whose state is (conv_L_cache - 1) x dim in the
    // model dtype (mamba_utils.py short_conv_state_shape): dim = conv_dim (LFM2), hidden_size (LFM2-MoE).
    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    // LFM2-MoE, conv_L_cache left to Lfm2MoeConfig's default 3: 1 attention layer of 2 KV heads x 64, 3 conv.
    const std::string moe = R"({"architectures": ["Lfm2MoeForCausalLM"], "model_type": "lfm2_moe",
        "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
        "torch_dtype": "bfloat16", "layer_types": ["conv", "conv", "full_attention", "conv"]})";
    auto m = kvcalc::read_model_text(moe);
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::linear_state) == 3);
    CHECK(m->count(LayerKind::full_attention) == 1);
    auto r = kvcalc::size_model(*m, at(64, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 2 * 64 * 2);                       // 512
    CHECK(r->state_bytes == 3 * ((3 - 1) * 256 * 2));                  // 3,072: hidden_size wide
    CHECK(r->vllm_block_size == 16);                                   // 16 x ceildiv(1024, 16 x 512)
    CHECK(r->sequence_bytes_vllm == 1 * 4 * 16 * 512 + 3 * 16 * 512);  // state pages padded to 8,192 B
    auto t = kvcalc::size_model(*m, [] {
        auto o = at(64);
        o.tp = 2;
        return o;
    }());
    REQUIRE(t.ok());
    CHECK(t->kv_bytes_per_gpu == 1 * 64 * (2 * 1 * 64 * 2) + 3 * ((3 - 1) * (256 / 2) * 2));  // 17,920

    // LFM2 with full_attn_idxs (no layer_types) and a conv_dim wider than the attention page: vLLM raises
    // the attention block to 16 x ceildiv((4 - 1) x 8192 x 2, 16 x 512) = 96 tokens.
    const std::string head =
        R"({"architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "hidden_size": 256,
        "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "torch_dtype": "bfloat16", )";
    auto dense =
        kvcalc::read_model_text(head + R"("conv_L_cache": 4, "conv_dim": 8192, "full_attn_idxs": [1, 3]})");
    REQUIRE(dense.ok());
    CHECK(dense->count(LayerKind::full_attention) == 2);
    auto d = kvcalc::size_model(*dense, at(100, Accounting::vllm));
    REQUIRE(d.ok());
    CHECK(d->state_bytes == 2 * ((4 - 1) * 8192 * 2));  // 98,304
    CHECK(d->vllm_block_size == 96);
    CHECK(d->sequence_bytes_vllm ==
          2 * 2 * 96 * 512 + 2 * 96 * 512);  // 2 attention blocks each, 2 state pages
    // Without layer_types or full_attn_idxs, Lfm2Config puts attention on every layer.
    auto all = kvcalc::read_model_text(head + R"("conv_dim": 256})");
    REQUIRE(all.ok());
    CHECK(all->count(LayerKind::full_attention) == 4);

    // Bad input names the field.
    CHECK(field_of(head + R"("layer_types": ["conv", "full_attention", "conv", "conv"]})") == "conv_dim");
    CHECK(field_of(head + R"("conv_dim": 256, "conv_L_cache": 1, "full_attn_idxs": [0]})") == "conv_L_cache");
    CHECK(field_of(head + R"("conv_dim": 256, "full_attn_idxs": [4]})") == "full_attn_idxs[0]");
    CHECK(field_of(head + R"("conv_dim": 256, "layer_types": ["conv", "full_attention"]})") == "layer_types");
    // A head_dim other than hidden_size / num_attention_heads: vLLM's layers and page sizes would disagree.
    CHECK(field_of(head + R"("conv_dim": 256, "head_dim": 128, "full_attn_idxs": [1]})") == "head_dim");
    CHECK(field_of(R"({"architectures": ["Lfm2MoeForCausalLM"], "model_type": "lfm2_moe", "hidden_size": 256,
        "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2})") == "layer_types");
    // LFM2-VL sizes the state pages from text_config.hidden_size but its layers from conv_dim: refused when
    // they differ.
    CHECK(field_of(R"({"architectures": ["Lfm2VlForConditionalGeneration"], "model_type": "lfm2_vl",
        "text_config": {"model_type": "lfm2", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "conv_dim": 512, "layer_types": ["conv", "full_attention"]}})") ==
          "text_config.conv_dim");
}

TEST_CASE("Falcon-H1: attention and a Mamba-2 state in every layer (a parallel hybrid)") {
    // vLLM falcon_h1.py FalconH1ParallelHybrid: each of the 44 layers has an Attention (2 KV heads x 128)
    // and a MambaMixer2 (get_mamba_state_shape_from_config: mamba_d_ssm 3072, 1 group, 24 heads x 128,
    // d_state 256, d_conv 4). The config is written from Falcon-H1-7B's published fields.
    const std::string file = std::string(KVCALC_SOURCE_DIR) +
                             "/tests/fixtures/configs/reconstructed/tiiuae--Falcon-H1-7B-Instruct.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 44);
    CHECK(m->count(LayerKind::linear_state) == 44);
    CHECK(m->layer_second_group.size() == 44);
    // No weights model for parallel layers: an error, not a figure without the Mamba mixers.
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE_FALSE(w.ok());
    CHECK(w.error().code == "unsupported_architecture");
    CHECK(w.error().field == "architectures");

    // tp 4: 1 KV head a GPU (replicated); the single group is copied to every GPU, so the conv state is
    // (3072 + 2 x 4 x 256) / 4 = 1,280 channels wide, and 24 / 4 = 6 SSM heads.
    auto o = at(4096);
    o.tp = 4;
    auto r = kvcalc::size_model(*m, o);
    REQUIRE(r.ok());
    const std::uint64_t state_gpu =
        (4 - 1) * ((3072 + 2 * 4 * 256) / 4) * 2 + (24 / 4) * 128 * 256 * 2;          // 400,896
    CHECK(r->kv_bytes_per_gpu == 44ull * (2 * 1 * 128 * 2) * 4096 + 44 * state_gpu);  // 109,914,112
    CHECK(r->vllm_block_size == 16 * ((state_gpu + 16 * 512 - 1) / (16 * 512)));      // 784
    // pp 2: each stage holds 22 layers, with their attention and their state.
    auto p = at(4096);
    p.pp = 2;
    auto s = kvcalc::size_model(*m, p);
    REQUIRE(s.ok());
    CHECK(s->bytes_per_token_per_gpu == 22 * 1024);
    CHECK(s->kv_bytes_per_gpu ==
          22ull * 1024 * 4096 + 22ull * ((4 - 1) * (3072 + 2 * 256) * 2 + 24 * 128 * 256 * 2));

    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    const std::string head = R"({"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1",
        "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "torch_dtype": "bfloat16", )";
    // mamba_d_ssm null: mamba_expand 2 x hidden_size 256 = 512 wide; mamba_d_head "auto" = 512 / 8.
    auto expand =
        kvcalc::read_model_text(head + R"("mamba_d_ssm": null, "mamba_n_heads": 8, "mamba_d_state": 16})");
    REQUIRE(expand.ok());
    auto e = kvcalc::size_model(*expand, at(16));
    REQUIRE(e.ok());
    CHECK(e->state_bytes == 2 * ((4 - 1) * (512 + 2 * 1 * 16) * 2 + 8 * 64 * 16 * 2));  // 2 x 19,648
    // Class defaults: mamba_d_ssm 1024, 128 heads of "auto" 1024 / 128 = 8, d_state 256, 1 group, d_conv 4.
    auto defaults = kvcalc::read_model_text(head + "\"max_position_embeddings\": 64}");
    REQUIRE(defaults.ok());
    auto d = kvcalc::size_model(*defaults, at(16));
    REQUIRE(d.ok());
    CHECK(d->state_bytes == 2 * ((4 - 1) * (1024 + 2 * 1 * 256) * 2 + 128 * 8 * 256 * 2));
    // 2 groups on tp 4: vLLM's MambaMixer2 needs tp to divide n_groups, or 1 group.
    auto two = kvcalc::read_model_text(head + R"("mamba_n_heads": 8, "mamba_n_groups": 2})");
    REQUIRE(two.ok());
    auto t4 = at(16);
    t4.tp = 4;
    auto refused = kvcalc::size_model(*two, t4);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "tp");
    // Bad input names the field.
    CHECK(field_of(head + R"("mamba_d_ssm": 512, "mamba_n_heads": 8, "mamba_d_head": 32})") ==
          "mamba_d_head");
    CHECK(field_of(head + R"("mamba_d_ssm": -512})") == "mamba_d_ssm");
    CHECK(field_of(head + R"("mamba_d_conv": 0})") == "mamba_d_conv");
}

TEST_CASE("Zamba2: a Mamba-2 state on every layer, the shared attention block's own cache on hybrid ones") {
    // vLLM zamba2.py: every layer a MambaMixer2 (I = 2 x 2560, 8 heads of 640, 1 group, d_state 64); the 9
    // 'hybrid' layers also an Attention of 32 heads x 2 x 2560 / 32 = 160 (one per hybrid layer). The config
    // is transformers' Zamba2Config defaults, written.
    auto m = kvcalc::read_model_text(
        read_file(std::string(KVCALC_SOURCE_DIR) +
                  "/tests/fixtures/configs/reconstructed/transformers--Zamba2Config-defaults.json"));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::linear_state) == 54);
    CHECK(m->count(LayerKind::full_attention) == 9);
    auto r = kvcalc::size_model(*m, at(4096, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 9 * 2 * 32 * 160 * 2);  // 184,320
    CHECK(r->vllm_block_size == 48);                    // 16 x ceildiv(686,848, 16 x 20,480)
    // pp: vLLM's Zamba2 does not support pipeline parallelism.
    auto p = at(4096);
    p.pp = 2;
    auto refused = kvcalc::size_model(*m, p);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "pp");
    // A value of attention_head_dim in config.json is overwritten by Zamba2Config: still 2 x 256 / 4 = 128.
    auto small = kvcalc::read_model_text(R"({"architectures": ["Zamba2ForCausalLM"], "model_type": "zamba2",
        "hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "attention_head_dim": 64,
        "torch_dtype": "bfloat16", "layers_block_type": ["mamba", "hybrid", "mamba"]})");
    REQUIRE(small.ok());
    auto s = kvcalc::size_model(*small, at(16));
    REQUIRE(s.ok());
    CHECK(s->bytes_per_token == 2 * 4 * 128 * 2);  // 2,048
    // Defaults: n_mamba_heads 8 of 512 / 8 = 64, d_state 64, 1 group, d_conv 4.
    CHECK(s->state_bytes == 3 * ((4 - 1) * (512 + 2 * 1 * 64) * 2 + 8 * 64 * 64 * 2));
    auto bad = kvcalc::read_model_text(R"({"architectures": ["Zamba2ForCausalLM"], "model_type": "zamba2",
        "hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "layers_block_type": ["mamba", "x", "mamba"]})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "layers_block_type[1]");
    // GQA in num_key_value_heads: vLLM's pages would follow it, its layers not. Refused by name.
    auto gqa = kvcalc::read_model_text(R"({"architectures": ["Zamba2ForCausalLM"], "model_type": "zamba2",
        "hidden_size": 256, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
        "layers_block_type": ["mamba", "hybrid", "mamba"]})");
    REQUIRE_FALSE(gqa.ok());
    CHECK(gqa.error().field == "num_key_value_heads");
}

TEST_CASE("MiniMax-Text-01 / M1: lightning linear-attention states beside full attention") {
    // vLLM minimax_text_01.py: attn_type_list 1 = full attention (num_key_value_heads x head_dim), 0 = a
    // MiniMaxText01LinearAttention whose state is num_attention_heads x head_dim x head_dim in the model
    // dtype (mamba_utils.py linear_attention_state_shape / linear_attention_state_dtype). A config written
    // for this test.
    const std::string head = R"({"architectures": ["MiniMaxM1ForCausalLM"], "model_type": "minimax_text_01",
        "hidden_size": 512, "num_hidden_layers": 8, "num_attention_heads": 8, "num_key_value_heads": 2,
        "torch_dtype": "bfloat16", )";
    auto m = kvcalc::read_model_text(head + R"("head_dim": 64, "attn_type_list": [0, 0, 0, 1, 0, 0, 0, 1]})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::linear_state) == 6);
    CHECK(m->count(LayerKind::full_attention) == 2);
    auto r = kvcalc::size_model(*m, at(1000, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * (2 * 2 * 64 * 2));  // 1,024
    CHECK(r->state_bytes == 6 * (8 * 64 * 64 * 2));     // 393,216
    CHECK(r->vllm_block_size == 128);                   // 16 x ceildiv(65,536, 16 x 512)
    CHECK(r->sequence_bytes_vllm ==
          2ull * 8 * 128 * 512 + 6ull * 128 * 512);  // ceildiv(1000, 128) = 8 blocks
    auto o = at(1000);
    o.tp = 2;
    auto t = kvcalc::size_model(*m, o);
    REQUIRE(t.ok());
    CHECK(t->kv_bytes_per_gpu == 2ull * (2 * 1 * 64 * 2) * 1000 + 6ull * ((8 / 2) * 64 * 64 * 2));
    // transformers' MiniMaxForCausalLM names the layers in layer_types.
    auto hf = kvcalc::read_model_text(R"({"architectures": ["MiniMaxForCausalLM"], "model_type": "minimax",
        "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 64, "layer_types": ["linear_attention", "full_attention"]})");
    REQUIRE(hf.ok());
    CHECK(hf->count(LayerKind::linear_state) == 1);
    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    CHECK(field_of(head + R"("attn_type_list": [0, 0, 0, 1, 0, 0, 0, 1]})") == "head_dim");
    CHECK(field_of(head + R"("head_dim": 64, "attn_type_list": [0, 2, 0, 1, 0, 0, 0, 1]})") ==
          "attn_type_list[1]");
    CHECK(field_of(head + R"("head_dim": 64, "attn_type_list": [0, 1]})") == "attn_type_list");
    // MiniMax-VL-01 stays refused: vLLM removed it (registry.py _PREVIOUSLY_SUPPORTED_MODELS, last v0.23.0),
    // and its wrapper class was not IsHybrid, so how vLLM paged its states was not read.
    auto vl = kvcalc::read_model_text(R"({"architectures": ["MiniMaxVL01ForConditionalGeneration"],
        "text_config": {"model_type": "minimax", "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
        "head_dim": 64, "layer_types": ["linear_attention", "full_attention"]}})");
    REQUIRE_FALSE(vl.ok());
    CHECK(vl.error().code == "unsupported_architecture");
    CHECK(vl.error().field == "architectures");
}

TEST_CASE("MiniCPM3: full keys and values per head, not an MLA latent") {
    // vLLM minicpm3.py MiniCPM3Attention: Attention(heads, qk_nope_head_dim + qk_rope_head_dim,
    // num_kv_heads=heads), V padded to that size. The fields of MiniCPM3-4B (62 layers, 40 heads, 64 + 32),
    // written for this test: 2 x 62 x 40 x 96 x 2 = 952,320 B a token, not the latent's 62 x (256 + 32) x 2.
    const std::string head = R"({"architectures": ["MiniCPM3ForCausalLM"], "model_type": "minicpm3",
        "hidden_size": 2560, "num_hidden_layers": 62, "num_attention_heads": 40, "num_key_value_heads": 40,
        "torch_dtype": "bfloat16", "q_lora_rank": 768, "kv_lora_rank": 256, )";
    auto m = kvcalc::read_model_text(head +
                                     R"("qk_nope_head_dim": 64, "qk_rope_head_dim": 32, "v_head_dim": 64})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 62);
    CHECK(m->count(LayerKind::mla) == 0);
    auto r = kvcalc::size_model(*m, at(4096, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 62 * 40 * (64 + 32) * 2);  // 952,320
    CHECK(r->sequence_bytes_vllm == 952320ull * 4096);
    auto bad = kvcalc::read_model_text(head + R"("qk_rope_head_dim": 32})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "qk_nope_head_dim");
}

TEST_CASE("Qwen2.5-Omni / Qwen3-Omni / Qwen3-ASR: the thinker's text model, thinker_config.text_config") {
    // vLLM qwen2_5_omni_thinker.py builds Qwen2ForCausalLM on thinker_config.text_config (and
    // get_hf_text_config reads the same config). The fields of Qwen2.5-Omni-7B's thinker (28 layers, 28
    // heads, 4 KV heads, hidden 3584), written for this test; the talker's layers (talker_config) are not the
    // served text model.
    const std::string talker = R"("talker_config": {"num_hidden_layers": 24, "num_attention_heads": 12,
        "num_key_value_heads": 4, "hidden_size": 896}, )";
    const std::string thinker = R"("thinker_config": {"model_type": "qwen2_5_omni_thinker", "text_config": {
        "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
        "max_position_embeddings": 32768, "torch_dtype": "bfloat16", "sliding_window": 32768, )";
    auto m =
        kvcalc::read_model_text(R"({"architectures": ["Qwen2_5OmniModel"], "model_type": "qwen2_5_omni", )" +
                                talker + thinker + R"("use_sliding_window": false}}})");
    REQUIRE(m.ok());
    CHECK(m->text_path == "thinker_config.text_config");
    CHECK(m->count(LayerKind::full_attention) == 28);
    CHECK(m->max_context.value == 32768);
    auto r = kvcalc::size_model(*m, at(4096, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 28 * 4 * (3584 / 28) * 2);  // 57,344
    CHECK(r->sequence_bytes_vllm == 28ull * (4096 / 16) * 16 * 2 * 4 * 128 * 2);
    // Qwen3-Omni's thinker: Qwen3MoeLLMForCausalLM, head_dim read as given (qwen3_omni_moe_thinker.py).
    auto q3 = kvcalc::read_model_text(R"({"architectures": ["Qwen3OmniMoeForConditionalGeneration"],
        "thinker_config": {"text_config": {"hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 32,
        "num_key_value_heads": 4, "head_dim": 128, "torch_dtype": "bfloat16", "sliding_window": null,
        "use_sliding_window": false}}})");
    REQUIRE(q3.ok());
    auto r3 = kvcalc::size_model(*q3, at(16));
    REQUIRE(r3.ok());
    CHECK(r3->bytes_per_token == 2 * 48 * 4 * 128 * 2);  // 98,304
    // Bad input names the field: no text model in the thinker, a window that may be on.
    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    CHECK(field_of(R"({"architectures": ["Qwen2_5OmniModel"], "thinker_config": {"audio_config": {}}})") ==
          "thinker_config.text_config");
    CHECK(field_of(R"({"architectures": ["Qwen2_5OmniModel"], "thinker_config": 3})") == "thinker_config");
    CHECK(
        field_of(
            R"({"architectures": ["Qwen2_5OmniModel"], "thinker_config": {"text_config": {"hidden_size": 64}}})") ==
        "thinker_config.text_config.num_hidden_layers");
    CHECK(field_of(R"({"architectures": ["Qwen2_5OmniModel"], )" + thinker +
                   R"("use_sliding_window": true}}})") == "thinker_config.text_config.use_sliding_window");
    CHECK(field_of(R"({"architectures": ["Qwen2_5OmniModel"], )" + thinker + R"("rope_theta": 1e6}}})") ==
          "thinker_config.text_config.sliding_window");
    // The streaming Qwen3-ASR (qwen3_asr_realtime.py Qwen3ASRRealtimeGeneration) is
    // Qwen3ASRForConditionalGeneration with another prompt processor and no cache spec of its own: the same
    // thinker text model.
    auto rt = kvcalc::read_model_text(R"({"architectures": ["Qwen3ASRRealtimeGeneration"], )" + thinker +
                                      R"("use_sliding_window": false}}})");
    REQUIRE(rt.ok());
    CHECK(rt->text_path == "thinker_config.text_config");
    CHECK(kvcalc::size_model(*rt, at(16))->bytes_per_token == 2 * 28 * 4 * (3584 / 28) * 2);  // 57,344
    CHECK(field_of(R"({"architectures": ["Qwen3ASRRealtimeGeneration"], "thinker_config": {}})") ==
          "thinker_config.text_config");
}

TEST_CASE("Aria, Chameleon, Molmo, Molmo2: their own decoders, full attention as vLLM builds it") {
    // Aria: aria.py AriaTextModel is vLLM's LlamaModel (LlamaDecoderLayer attention) on text_config.
    auto aria =
        kvcalc::read_model_text(R"({"architectures": ["AriaForConditionalGeneration"], "model_type": "aria",
        "text_config": {"model_type": "aria_text", "hidden_size": 2560, "num_hidden_layers": 28,
        "num_attention_heads": 20, "num_key_value_heads": 20, "torch_dtype": "bfloat16", "moe_num_experts": 64}})");
    REQUIRE(aria.ok());
    auto ra = kvcalc::size_model(*aria, at(16));
    REQUIRE(ra.ok());
    CHECK(ra->bytes_per_token == 2 * 28 * 20 * (2560 / 20) * 2);  // 286,720
    // Chameleon: chameleon.py ChameleonAttention, num_key_value_heads (else the query heads) of
    // hidden_size // num_attention_heads. Chameleon-7B's fields (32 layers, 32 heads, hidden 4096), written.
    const std::string cham =
        R"({"architectures": ["ChameleonForConditionalGeneration"], "model_type": "chameleon",
        "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "torch_dtype": "bfloat16", )";
    auto c = kvcalc::read_model_text(cham + R"("num_key_value_heads": 32})");
    REQUIRE(c.ok());
    auto rc = kvcalc::size_model(*c, at(16));
    REQUIRE(rc.ok());
    CHECK(rc->bytes_per_token == 2 * 32 * 32 * (4096 / 32) * 2);  // 524,288
    // Molmo: molmo.py MolmoAttention, num_key_value_heads or num_attention_heads (a null one is the latter),
    // of hidden_size // num_attention_heads. Molmo-7B-D's fields (28 layers, 28 heads, 4 KV heads, hidden
    // 3584).
    const std::string molmo = R"({"architectures": ["MolmoForCausalLM"], "model_type": "molmo",
        "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28, "torch_dtype": "bfloat16", )";
    auto mo = kvcalc::read_model_text(molmo + R"("num_key_value_heads": 4})");
    REQUIRE(mo.ok());
    auto rm = kvcalc::size_model(*mo, at(16));
    REQUIRE(rm.ok());
    CHECK(rm->bytes_per_token == 2 * 28 * 4 * (3584 / 28) * 2);  // 57,344
    auto mnull = kvcalc::read_model_text(molmo + R"("num_key_value_heads": null})");
    REQUIRE(mnull.ok());
    auto rn = kvcalc::size_model(*mnull, at(16));
    REQUIRE(rn.ok());
    CHECK(rn->bytes_per_token == 2 * 28 * 28 * 128 * 2);  // 401,408
    // A head_dim other than hidden_size / num_attention_heads: vLLM's layers and its page sizes would differ.
    auto bad = kvcalc::read_model_text(molmo + R"("num_key_value_heads": 4, "head_dim": 64})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "head_dim");
    auto badc = kvcalc::read_model_text(cham + R"("head_dim": 256})");
    REQUIRE_FALSE(badc.ok());
    CHECK(badc.error().field == "head_dim");
    // A window in the config does not slide Molmo's layers: vLLM's MolmoAttention takes none.
    auto win = kvcalc::read_model_text(molmo + R"("num_key_value_heads": 4, "sliding_window": 1024})");
    REQUIRE(win.ok());
    CHECK(win->count(LayerKind::full_attention) == 28);
    // Molmo2: molmo2.py Molmo2TextModel on text_config, num_key_value_heads of head_dim, both required.
    const std::string molmo2 = R"({"architectures": ["Molmo2ForConditionalGeneration"], "text_config": {
        "hidden_size": 4096, "num_hidden_layers": 36, "num_attention_heads": 32, "torch_dtype": "bfloat16", )";
    auto m2 = kvcalc::read_model_text(molmo2 + R"("num_key_value_heads": 8, "head_dim": 128}})");
    REQUIRE(m2.ok());
    auto r2 = kvcalc::size_model(*m2, at(16));
    REQUIRE(r2.ok());
    CHECK(r2->bytes_per_token == 2 * 36 * 8 * 128 * 2);  // 147,456
    auto m2bad = kvcalc::read_model_text(molmo2 + R"("num_key_value_heads": 8}})");
    REQUIRE_FALSE(m2bad.ok());
    CHECK(m2bad.error().field == "text_config.head_dim");
    auto kvbad = kvcalc::read_model_text(molmo + R"("num_key_value_heads": 5})");
    REQUIRE_FALSE(kvbad.ok());
    CHECK(kvbad.error().field == "num_key_value_heads");
}

TEST_CASE("PLaMo2: Mamba-2 layers from mamba_step, attention of hidden_size_per_head") {
    // vLLM plamo2.py: is_mamba(config, i) = i % mamba_step != mamba_step // 2; Plamo2AttentionMixer caches
    // num_key_value_heads of hidden_size_per_head; get_mamba_state_shape_from_config: mamba2_state_shape with
    // I = mamba_num_heads x hidden_size_per_head, n_groups 0. A config written for this test (the shape of
    // PLaMo 2 1B: 16 layers, 16 heads, 1 KV head of 128, 32 Mamba heads, d_state 64, d_conv 4, step 2).
    const std::string head = R"({"architectures": ["Plamo2ForCausalLM"], "model_type": "plamo2",
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 1, "hidden_size_per_head": 128,
        "mamba_num_heads": 32, "mamba_d_state": 64, "mamba_d_conv": 4, "torch_dtype": "bfloat16", )";
    auto m = kvcalc::read_model_text(head + R"("num_hidden_layers": 16, "mamba_step": 2})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 8);  // layers 1, 3, ..., 15
    CHECK(m->count(LayerKind::linear_state) == 8);
    CHECK(m->layer_group[0] != m->layer_group[1]);
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 8 * 1 * 128 * 2);  // 4,096
    // conv (4 - 1) x (32 x 128 + 2 x 0 x 64) + ssm 32 x 128 x 64, 2 B each, on 8 layers
    CHECK(r->state_bytes == 8 * ((4 - 1) * (32 * 128) * 2 + 32 * 128 * 64 * 2));  // 4,390,912
    // tp 2: 16 Mamba heads and 2,048 conv channels a GPU (no groups to copy); the 1 KV head replicated.
    auto t2 = at(4096);
    t2.tp = 2;
    auto r2 = kvcalc::size_model(*m, t2);
    REQUIRE(r2.ok());
    const auto& mamba = r2->groups.at(m->layer_group[0]);
    CHECK(mamba.state_bytes_layer_per_gpu == (4 - 1) * (32 * 128 / 2) * 2 + (32 / 2) * 128 * 64 * 2);
    // Fewer layers than mamba_step / 2: every layer but the last is Mamba.
    auto few = kvcalc::read_model_text(head + R"("num_hidden_layers": 3, "mamba_step": 8})");
    REQUIRE(few.ok());
    CHECK(few->count(LayerKind::full_attention) == 1);
    CHECK(few->groups[few->layer_group[2]].kind == LayerKind::full_attention);
    // Bad input names the field.
    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    CHECK(field_of(head + R"("num_hidden_layers": 4})") == "mamba_step");
    CHECK(field_of(head + R"("num_hidden_layers": 4, "mamba_step": 1})") == "mamba_step");
    CHECK(field_of(head + R"("num_hidden_layers": 4, "mamba_step": 2, "mamba_d_state": 0})") ==
          "mamba_d_state");
    auto nohs = kvcalc::read_model_text(R"({"architectures": ["Plamo2ForCausalLM"], "num_hidden_layers": 4,
        "mamba_step": 2, "hidden_size": 2048, "num_attention_heads": 16})");
    REQUIRE_FALSE(nohs.ok());
    CHECK(nohs.error().field == "hidden_size_per_head");
}

TEST_CASE("Moondream3: its own text decoder, read from config.text") {
    // vLLM moondream3.py: Moondream3ForCausalLM builds Moondream3TextModel on Moondream3Config.text_config,
    // which transformers_utils/configs/moondream3.py builds from config.json's config.text;
    // Moondream3Attention is an Attention of n_kv_heads x (dim // n_heads), no window, on each of n_layers.
    // The config is Moondream 3 Preview's shape, written.
    const std::string file =
        std::string(KVCALC_SOURCE_DIR) +
        "/tests/fixtures/configs/reconstructed/moondream--moondream3-preview-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->text_path == "config.text");
    CHECK(m->count(LayerKind::full_attention) == 24);
    CHECK(m->max_context.value == 4096);  // config.text.max_context
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 24 * (2 * 32 * (2048 / 32) * 2));  // 196,608
    CHECK_FALSE(kvcalc::estimate_weights(*m).ok());
    // Moondream3ForCausalLM (the other name vLLM registers) reads the same; 4 layers, 2 KV heads of 256 / 4.
    const std::string head = R"({"architectures": ["Moondream3ForCausalLM"], "config": {"text": {)";
    auto small =
        kvcalc::read_model_text(head + R"("n_layers": 4, "n_heads": 4, "n_kv_heads": 2, "dim": 256}}})");
    REQUIRE(small.ok());
    CHECK(kvcalc::size_model(*small, at(16))->bytes_per_token == 4 * (2 * 2 * 64 * 2));  // 2,048
    // vLLM's class defaults are not taken: a missing or contradictory field is named.
    for (const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
             {R"({"architectures": ["HfMoondream"], "config": {}})", "config.text"},
             {R"({"architectures": ["HfMoondream"], "config": {"text": []}})", "config.text"},
             {head + R"("n_heads": 4, "n_kv_heads": 2, "dim": 256}}})", "config.text.n_layers"},
             {head + R"("n_layers": 4, "n_heads": 4, "dim": 256}}})", "config.text.n_kv_heads"},
             {head + R"("n_layers": 4, "n_heads": 4, "n_kv_heads": 2}}})", "config.text.dim"},
             {head + R"("n_layers": 4, "n_heads": 4, "n_kv_heads": 3, "dim": 256}}})",
              "config.text.n_kv_heads"},
             {head + R"("n_layers": 4, "n_heads": 3, "n_kv_heads": 1, "dim": 256}}})", "config.text.dim"}}) {
        auto e = kvcalc::read_model_text(text);
        INFO(text);
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == field);
    }
}

TEST_CASE("Cosmos3: the understanding tower, read as vLLM's Qwen3-VL text model") {
    // vLLM cosmos3.py: Cosmos3ForConditionalGeneration is a Qwen3VLForConditionalGeneration (its weights
    // mapper drops the generation tower), on Cosmos3Config, a Qwen3VLConfig: text_config's
    // num_key_value_heads x head_dim on every layer, full attention. The config is Cosmos3-Nano's published
    // shape, written.
    const std::string file = std::string(KVCALC_SOURCE_DIR) +
                             "/tests/fixtures/configs/reconstructed/nvidia--Cosmos3-Nano-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->text_path == "text_config");
    CHECK(m->count(LayerKind::full_attention) == 36);
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 36 * (2 * 8 * 128 * 2));  // 147,456
    // Without its text model there is nothing to size: an error naming the layer count.
    auto bare = kvcalc::read_model_text(
        R"({"architectures": ["Cosmos3ForConditionalGeneration"], "model_type": "cosmos3_omni"})");
    REQUIRE_FALSE(bare.ok());
    CHECK(bare.error().field == "num_hidden_layers");
}

TEST_CASE("PLaMo3: full attention every sliding_window_pattern-th layer, window_size elsewhere") {
    // vLLM plamo3.py Plamo3AttentionMixer: per_layer_sliding_window=config.interleaved_sliding_window[i],
    // which the remote Plamo3Config derives: None (full) where (i + 1) % sliding_window_pattern == 0, else
    // window_size. The config is the remote Plamo3Config's defaults, written (32 layers, 4 KV heads of 128,
    // window 128, pattern 8).
    const std::string file =
        std::string(KVCALC_SOURCE_DIR) +
        "/tests/fixtures/configs/reconstructed/pfnet--Plamo3Config-defaults-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 4);  // layers 7, 15, 23, 31
    CHECK(m->count(LayerKind::sliding_window) == 28);
    CHECK(m->groups[m->layer_group[7]].kind == LayerKind::full_attention);
    CHECK(m->groups[m->layer_group[0]].kind == LayerKind::sliding_window);
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 32 * (2 * 4 * 128 * 2));  // 65,536
    // resident: 4 full layers x 2,048 B x 4,096 + 28 sliding layers x 2,048 B x min(4,096, 128)
    CHECK(r->sequence_bytes_resident == 4 * 2048 * 4096 + 28 * 2048 * 128);  // 40,894,464
    CHECK_FALSE(kvcalc::estimate_weights(*m).ok());
    const std::string head = R"({"architectures": ["Plamo3ForCausalLM"], "model_type": "plamo3",
        "hidden_size": 256, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
        "num_hidden_layers": 4, "torch_dtype": "bfloat16", )";
    // Pattern 2 on 4 layers: layers 1 and 3 full, 0 and 2 slide by 8; the list may be given if it agrees.
    auto two = kvcalc::read_model_text(head + R"("window_size": 8, "sliding_window_pattern": 2,
        "interleaved_sliding_window": [8, null, 8, null], "sliding_window": 8})");
    REQUIRE(two.ok());
    CHECK(two->count(LayerKind::full_attention) == 2);
    auto r2 = kvcalc::size_model(*two, at(64));
    REQUIRE(r2.ok());
    CHECK(r2->sequence_bytes_resident == 2 * (2 * 2 * 64 * 2) * 64 + 2 * (2 * 2 * 64 * 2) * 8);  // 40,960
    // Bad input and what the config's versions read differently: refused, naming the field.
    for (
        const auto& [extra, field] : std::vector<std::pair<std::string, std::string>>{
            {R"("sliding_window_pattern": 2})", "window_size"},
            {R"("window_size": 8})", "sliding_window_pattern"},
            {R"("window_size": 0, "sliding_window_pattern": 2})", "window_size"},
            {R"("window_size": 8, "sliding_window_pattern": 1})", "sliding_window_pattern"},
            {R"("window_size": 8, "sliding_window_pattern": 2, "sliding_window": 16})", "sliding_window"},
            {R"("window_size": 8, "sliding_window_pattern": 2, "interleaved_sliding_window": [8, 8, 8, null]})",
             "interleaved_sliding_window[1]"},
            {R"("window_size": 8, "sliding_window_pattern": 2, "interleaved_sliding_window": [8, null]})",
             "interleaved_sliding_window"}}) {
        auto e = kvcalc::read_model_text(head + extra);
        INFO(extra);
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == field);
    }
    auto nohd = kvcalc::read_model_text(R"({"architectures": ["Plamo3ForCausalLM"], "hidden_size": 256,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 4, "window_size": 8,
        "sliding_window_pattern": 2})");
    REQUIRE_FALSE(nohd.ok());
    CHECK(nohd.error().field == "head_dim");
}

TEST_CASE("Bailing linear: lightning states beside MLA layers, every layer_group_size-th layer MLA") {
    // vLLM bailing_moe_linear.py: is_linear_layer(i, layer_group_size) = (i + 1) % layer_group_size != 0; the
    // others BailingMoeV25MLAAttention (one latent of kv_lora_rank + qk_rope_head_dim); the linear layers a
    // LinearAttention state of num_attention_heads x head_dim x head_dim in the model dtype (base.py). A
    // config written for this test.
    const std::string head = R"({"architectures": ["BailingMoeV2_5ForCausalLM"], "num_hidden_layers": 8,
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 16, "torch_dtype": "bfloat16", )";
    auto m = kvcalc::read_model_text(
        head + R"("layer_group_size": 4, "head_dim": 128, "kv_lora_rank": 512, "qk_rope_head_dim": 64})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::mla) == 2);  // layers 3 and 7
    CHECK(m->count(LayerKind::linear_state) == 6);
    CHECK(m->groups[m->layer_group[3]].kind == LayerKind::mla);
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * (512 + 64) * 2);    // 2,304
    CHECK(r->state_bytes == 6 * (16 * 128 * 128 * 2));  // 3,145,728
    // head_dim absent: hidden_size / num_attention_heads = 128, the same state.
    auto nohd = kvcalc::read_model_text(
        head + R"("layer_group_size": 4, "kv_lora_rank": 512, "qk_rope_head_dim": 64})");
    REQUIRE(nohd.ok());
    auto rn = kvcalc::size_model(*nohd, at(4096));
    REQUIRE(rn.ok());
    CHECK(rn->state_bytes == 6 * (16 * (2048 / 16) * (2048 / 16) * 2));
    // No layer_group_size: vLLM's default 1 makes every layer MLA.
    auto all = kvcalc::read_model_text(head + R"("kv_lora_rank": 512, "qk_rope_head_dim": 64})");
    REQUIRE(all.ok());
    CHECK(all->count(LayerKind::mla) == 8);
    // Bad input names the field: MLA layers without their latent, a negative group size.
    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        REQUIRE_FALSE(bad.ok());
        return bad.error().field;
    };
    CHECK(field_of(head + R"("layer_group_size": 4, "head_dim": 128})") == "kv_lora_rank");
    CHECK(field_of(head + R"("layer_group_size": -4, "kv_lora_rank": 512, "qk_rope_head_dim": 64})") ==
          "layer_group_size");
    CHECK(field_of(head + R"("layer_group_size": 4, "kv_lora_rank": 512})") == "qk_rope_head_dim");
}

TEST_CASE("Step-3: one KV head of head_dim on every layer, whatever num_attention_groups says") {
    // vLLM step3_text.py Step3TextDecoderLayer: Step3TextAttention(num_kv_heads=1, head_dim=config.head_dim),
    // no window. The fields of Step-3's text model (61 layers, 64 heads, head_dim 256, share_q_dim 2048),
    // written.
    const std::string head = R"({"architectures": ["Step3TextForCausalLM"], "model_type": "step3_text",
        "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 64, "num_attention_groups": 8,
        "share_q_dim": 2048, "torch_dtype": "bfloat16", )";
    auto m = kvcalc::read_model_text(head + R"("head_dim": 256, "sliding_window": 4096})");
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 61);
    auto r = kvcalc::size_model(*m, at(16));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 61 * 1 * 256 * 2);  // 62,464
    auto bad = kvcalc::read_model_text(head + R"("num_key_value_heads": 8})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "head_dim");
    // The vision wrapper: step3_vl.py builds the text model text_config.architectures names, here Step-3's.
    const std::string text = R"("hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 64,
        "num_attention_groups": 8, "head_dim": 256, "torch_dtype": "bfloat16")";
    auto vl = kvcalc::read_model_text(
        R"({"architectures": ["Step3VLForConditionalGeneration"], "model_type": "step3_vl", "text_config": {
        "architectures": ["Step3TextForCausalLM"], "model_type": "step3_text", )" +
        text + "}}");
    REQUIRE(vl.ok());
    CHECK(vl->family == "step3_text");
    auto vr = kvcalc::size_model(*vl, at(16));
    REQUIRE(vr.ok());
    CHECK(vr->bytes_per_token == 2 * 61 * 1 * 256 * 2);  // 62,464, as the text model alone
    // Without text_config.architectures, or naming a wrapper, it is refused.
    auto none = kvcalc::read_model_text(
        R"({"architectures": ["Step3VLForConditionalGeneration"], "text_config": {)" + text + "}}");
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().field == "text_config.architectures");
    CHECK(none.error().code == "missing_field");
    auto nested =
        kvcalc::read_model_text(R"({"architectures": ["StepVLForConditionalGeneration"], "text_config": {
        "architectures": ["Step3VLForConditionalGeneration"], )" +
                                text + "}}");
    REQUIRE_FALSE(nested.ok());
    CHECK(nested.error().field == "text_config.architectures");
    // Step3-VL-10B (StepVLForConditionalGeneration, step_vl.py): a Qwen3 text model, sized by Qwen3's rule.
    auto qwen =
        kvcalc::read_model_text(R"({"architectures": ["StepVLForConditionalGeneration"], "text_config": {
        "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 4096, "num_hidden_layers": 36,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "torch_dtype": "bfloat16"}})");
    REQUIRE(qwen.ok());
    auto qr = kvcalc::size_model(*qwen, at(16));
    REQUIRE(qr.ok());
    CHECK(qr->bytes_per_token == 2 * 36 * 8 * 128 * 2);  // 147,456
}

TEST_CASE("Step-3.5: num_attention_groups KV heads, attention_other_setting's geometry on its layer type") {
    // vLLM step3p5.py Step3p5DecoderLayer / Step3p5Attention. Step-3.5-Flash's fields, written
    // (reconstructed/): 45 layers, 12 full ("full_attention" every 4th from 0) and 33 sliding at 512, every
    // layer 8 KV heads of 128 (the sliding layers' other setting changes their query heads to 96 only).
    auto read = kvcalc::read_model_text(read_file(std::string(KVCALC_SOURCE_DIR) +
                                                  "/tests/fixtures/configs/reconstructed/"
                                                  "stepfun-ai--Step-3.5-Flash-written.json"));
    REQUIRE(read.ok());
    const kvcalc::ModelSpec& m = *read;
    CHECK(m.count(LayerKind::full_attention) == 12);
    CHECK(m.count(LayerKind::sliding_window) ==
          33);  // layer_types' 3 MTP entries past layer 45 are not layers
    CHECK(m.max_context.value == 262144);
    auto r = kvcalc::size_model(m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 45 * 2 * 8 * 128 * 2);                              // 184,320
    CHECK(r->sequence_bytes_resident == 12ull * 4096 * 4096 + 33ull * 4096 * 512);  // 270,532,608

    // Another geometry: written so the sliding layers differ (4 KV heads of 64).
    const std::string head = R"({"architectures": ["Step3p5ForCausalLM"], "model_type": "step3p5",
        "hidden_size": 4096, "num_hidden_layers": 8, "num_attention_heads": 64, "num_attention_groups": 8,
        "head_dim": 128, "sliding_window": 512, "torch_dtype": "bfloat16", "max_position_embeddings": 65536, )";
    const std::string types = R"("layer_types": ["full_attention", "sliding_attention", "sliding_attention",
        "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention"], )";
    auto other = kvcalc::read_model_text(
        head + types +
        R"("attention_other_setting": {"attention_type": "sliding_attention", "num_attention_heads": 96,
        "num_attention_groups": 4, "head_dim": 64}})");
    REQUIRE(other.ok());
    CHECK(other->max_context.value == 4096);  // the least of 65,536 and Step3p5Config's max_seq_len 4096
    auto o = kvcalc::size_model(*other, at(4096));
    REQUIRE(o.ok());
    CHECK(o->bytes_per_token == 2 * 2 * 8 * 128 * 2 + 6 * 2 * 4 * 64 * 2);  // 8,192 + 6,144 = 14,336
    // vLLM's pages: full 16 x 4,096 B, sliding 16 x 1,024 B, unified at 65,536 B (sliding block 64); 2 full
    // layers against 6 sliding, no padding: 2 x 256 blocks x 16 x 4,096 + 6 x (ceildiv(4,096, 64) + 1) x 64 x
    // 1,024 B.
    CHECK(o->sequence_bytes_vllm ==
          2ull * 256 * 16 * 4096 + 6ull * 65 * 64 * 1024);  // 33,554,432 + 25,559,040
    kvcalc::SizeOptions tp64 = at(4096);
    tp64.tp = 64;  // 64 query heads split, the sliding layers' 96 not: vLLM asserts
    auto t = kvcalc::size_model(*other, tp64);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().field == "tp");

    // Without layer_types, even layers slide; without a window, no layer does.
    auto even = kvcalc::read_model_text(head + R"("max_seq_len": 8192})");
    REQUIRE(even.ok());
    CHECK(even->count(LayerKind::sliding_window) == 4);
    CHECK(even->max_context.value == 8192);
    auto nowin = kvcalc::read_model_text(R"({"architectures": ["Step3p5ForCausalLM"], "hidden_size": 4096,
        "num_hidden_layers": 4, "num_attention_heads": 64, "num_attention_groups": 8, "head_dim": 128})");
    REQUIRE(nowin.ok());
    CHECK(nowin->count(LayerKind::full_attention) == 4);

    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        return bad.ok() ? std::string("(read)") : bad.error().field;
    };
    CHECK(field_of(head + types + R"("attention_other_setting": {"num_attention_heads": 96}})") ==
          "attention_other_setting.attention_type");
    CHECK(field_of(head + types + R"("attention_other_setting": {"attention_type": "sliding_attention",
        "num_attention_heads": 96, "head_dim": 64}})") == "attention_other_setting.num_attention_groups");
    CHECK(field_of(R"({"architectures": ["Step3p5ForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 4,
        "num_attention_heads": 64, "num_key_value_heads": 8})") == "num_attention_groups");
    CHECK(field_of(head + R"("layer_types": ["full_attention"]})") == "layer_types");
    CHECK(field_of(head + R"("att_impl_type": "MLA"})") == "att_impl_type");
    // Step-3.7 builds Step-3.5 on text_config; without max_seq_len there, no default context.
    auto wrapped = kvcalc::read_model_text(R"({"architectures": ["Step3p7ForConditionalGeneration"],
        "text_config": {"architectures": ["Step3p5ForCausalLM"], "model_type": "step3p5", "hidden_size": 4096, "num_hidden_layers": 4,
        "num_attention_heads": 64, "num_attention_groups": 8, "head_dim": 128, "max_position_embeddings": 65536}})");
    REQUIRE(wrapped.ok());
    CHECK(wrapped->family == "step3p5");  // step3p7.py builds the architecture text_config names
    CHECK(wrapped->max_context.value == 0);
    // The MTP draft (step3p5_mtp.py): num_nextn_predict_layers 3 Step3p5DecoderLayers at layers 45 to 47,
    // typed by layer_types there (all "sliding_attention" here): 36 sliding layers, 48 x 4,096 B a token.
    auto draft = kvcalc::with_speculative_tokens(m, 3, 1);
    REQUIRE(draft.ok());
    CHECK(draft->count(LayerKind::sliding_window) == 36);
    CHECK(draft->count(LayerKind::full_attention) == 12);
    auto d = kvcalc::size_model(*draft, at(4096));
    REQUIRE(d.ok());
    CHECK(d->bytes_per_token == 48 * 2 * 8 * 128 * 2);                              // 196,608
    CHECK(d->sequence_bytes_resident == 12ull * 4096 * 4096 + 36ull * 4096 * 512);  // 276,824,064
    // layer_types without the draft's entries: refused, as vLLM's draft layers would index past it.
    auto short_types = kvcalc::read_model_text(head + types + R"("num_nextn_predict_layers": 1})");
    REQUIRE(short_types.ok());
    auto none = kvcalc::with_speculative_tokens(*short_types, 1, 1);
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().field == "num_speculative_tokens");
}

TEST_CASE("LongCat-Flash: two MLA caches in every decoder layer") {
    // vLLM longcat_flash.py FlashDecoderLayer: self_attn.0 and self_attn.1, each a DeepseekV2MLAAttention
    // with its own MLAAttentionSpec. LongCat-Flash-Chat's fields, written (reconstructed/): 28 layers
    // (num_layers), latent 512 + 64.
    auto read = kvcalc::read_model_text(read_file(std::string(KVCALC_SOURCE_DIR) +
                                                  "/tests/fixtures/configs/reconstructed/"
                                                  "meituan-longcat--LongCat-Flash-Chat-written.json"));
    REQUIRE(read.ok());
    const kvcalc::ModelSpec& m = *read;
    CHECK(m.num_layers.value == 28);
    CHECK(m.count(LayerKind::mla) == 56);  // 28 layers, two caches each
    auto r = kvcalc::size_model(m, at(4096, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 2 * 28 * (512 + 64) * 2);          // 64,512
    CHECK(r->sequence_bytes_vllm == 2ull * 28 * 256 * 16 * 1152);  // 264,241,152: one kind, no padding
    // Pipeline stages split the decoder layers, both caches of a layer on one stage: 14 x 2 x 1,152 B a
    // token.
    kvcalc::SizeOptions pp2 = at(4096);
    pp2.pp = 2;
    pp2.tp = 8;
    auto s = kvcalc::size_model(m, pp2);
    REQUIRE(s.ok());
    CHECK(s->kv_bytes_per_gpu == 14ull * 2 * 1152 * 4096);  // 132,120,576 (the latent is not split by tp)

    const std::string head = R"({"architectures": ["LongcatFlashForCausalLM"], "model_type": "longcat_flash",
        "hidden_size": 6144, "num_attention_heads": 64, "max_position_embeddings": 131072, )";
    auto field_of = [](const std::string& text) {
        auto bad = kvcalc::read_model_text(text);
        return bad.ok() ? std::string("(read)") : bad.error().field;
    };
    // transformers' LongcatFlashConfig counts 56 sublayers in num_hidden_layers; vLLM builds that many
    // layers.
    CHECK(field_of(head + R"("num_layers": 28, "num_hidden_layers": 56, "kv_lora_rank": 512,
        "qk_rope_head_dim": 64})") == "num_hidden_layers");
    CHECK(field_of(head + R"("num_layers": 28, "num_hidden_layers": 28, "kv_lora_rank": 512,
        "qk_rope_head_dim": 64})") == "(read)");
    CHECK(field_of(head + R"("num_layers": 28})") == "kv_lora_rank");
    CHECK(field_of(head + R"("num_layers": 28, "kv_lora_rank": 512})") == "qk_rope_head_dim");
    // The MTP draft (longcat_flash_mtp.py) is not modelled: refused, not left out.
    auto draft = kvcalc::with_speculative_tokens(m, 1, 1);
    REQUIRE_FALSE(draft.ok());
    CHECK(draft.error().field == "num_speculative_tokens");
}

TEST_CASE("Ouro: a full-attention cache per layer and loop step, the weights once") {
    // vLLM ouro.py OuroAttention.__init__: total_ut_steps Attention layers per decoder layer (unique index
    // ut_step x num_hidden_layers + layer), num_key_value_heads of hidden_size / num_attention_heads, no
    // window. The config is written from Ouro-1.4B's published fields (24 layers, 4 steps, hidden 2048, 16 /
    // 16 heads).
    const std::string file =
        std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/reconstructed/ByteDance--Ouro-1.4B.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->num_layers.value == 24);
    REQUIRE(m->groups.size() == 1);
    CHECK(m->groups[0].per_layer == 4);
    CHECK(m->count(LayerKind::full_attention) == 96);  // 24 layers x 4 steps
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 786432);  // 2 x 24 x 4 x 16 x 128 x 2
    CHECK(r->sequence_bytes_vllm == 96ull * (4096 / 16) * 16 * (2 * 16 * 128 * 2));  // 3,221,225,472
    // tp 8: 2 KV heads a GPU; pp 2: each stage holds 12 layers, their 48 caches.
    auto o = at(4096);
    o.tp = 8;
    CHECK(kvcalc::size_model(*m, o)->kv_bytes_per_gpu == 96ull * 2 * 2 * 128 * 2 * 4096);  // 402,653,184
    auto p = at(4096);
    p.pp = 2;
    CHECK(kvcalc::size_model(*m, p)->bytes_per_token_per_gpu == 48 * 8192);  // 393,216
    // The weights are shared across the steps: counted once per layer, with Ouro's four norms a layer and
    // its early-exit gate. 2 x 49,152 x 2,048 (embeddings, lm_head) + 24 x (4 x 2,048^2 + 3 x 2,048 x 5,632
    // + 4 x 2,048) + 2,048 (final norm) + 2,048 + 1 (gate) = 1,434,652,673.
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE(w.ok());
    CHECK(w->param_count == 1434652673);
    // The steps come from total_ut_steps, else vLLM's default 4; a window is refused, as are bad counts.
    const std::string head =
        R"({"architectures": ["OuroForCausalLM"], "model_type": "ouro", "hidden_size": 256,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "torch_dtype": "bfloat16", )";
    auto d = kvcalc::read_model_text(head + R"("head_dim": 32})");
    REQUIRE(d.ok());
    CHECK(kvcalc::size_model(*d, at(16))->bytes_per_token == 2 * 2 * 4 * 2 * 64 * 2);  // 4,096: head 256 / 4
    for (const char* bad :
         {R"("total_ut_steps": 0})", R"("total_ut_steps": "4"})", R"("total_ut_steps": 5000})"}) {
        auto e = kvcalc::read_model_text(head + bad);
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == "total_ut_steps");
    }
    auto win = kvcalc::read_model_text(head + R"("sliding_window": 64})");
    REQUIRE_FALSE(win.ok());
    CHECK(win.error().field == "sliding_window");
    auto off = kvcalc::read_model_text(head + R"("use_sliding_window": false, "sliding_window": 64})");
    REQUIRE(off.ok());
    auto encoder = kvcalc::read_model_text(head + R"("is_causal": false})");  // encoder-only: no cache
    REQUIRE_FALSE(encoder.ok());
    CHECK(encoder.error().field == "is_causal");
    auto nokv = kvcalc::read_model_text(R"({"architectures": ["OuroForCausalLM"], "hidden_size": 256,
        "num_hidden_layers": 2, "num_attention_heads": 4})");
    REQUIRE_FALSE(nokv.ok());
    CHECK(nokv.error().field == "num_key_value_heads");
}

TEST_CASE("IQuest-LoopCoder: a full cache and loop_num - 1 sliding ones in every layer") {
    // vLLM iquest_loopcoder.py LoopCoderAttention.__init__: loop 0 on the model's cache_config (full
    // attention), loops 1 .. loop_num - 1 on sliding_window = loop_window_size: a SlidingWindowSpec each. The
    // config is written from IQuest-Coder-V1-40B-Loop's fields (80 layers, 40 / 8 heads of 128, loop_num 2,
    // loop_window_size 64).
    const std::string file =
        std::string(KVCALC_SOURCE_DIR) +
        "/tests/fixtures/configs/reconstructed/IQuestLab--IQuest-Coder-V1-40B-Loop-shape-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 80);
    CHECK(m->count(LayerKind::sliding_window) == 80);
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 655360);  // 2 x 80 x 8 x 128 x 2 x 2 caches
    CHECK(r->sequence_bytes_resident == 80ull * 4096 * 4096 + 80ull * 4096 * 64);  // 1,363,148,800
    // vLLM: the sliding caches keep min(64 - 1 + 8,192, 4,096) tokens, ceildiv(4,096, 16) + 1 = 257 blocks.
    CHECK(r->sequence_bytes_vllm == 80ull * 256 * 16 * 4096 + 80ull * 257 * 16 * 4096);  // 2,689,597,440
    // The weights once per layer, with the gate projection of each (LoopGateProjection: 128 x 40 + 40).
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE(w.ok());
    // 2 x 76,800 x 5,120 + 80 x (5,120 x (5,120 + 2 x 1,024) + 5,120^2 + 3 x 5,120 x 27,648 + 2 x 5,120
    // + 128 x 40 + 40) + 5,120
    CHECK(w->param_count == 2ull * 76800 * 5120 +
                                80ull * (5120ull * (5120 + 2 * 1024) + 5120ull * 5120 + 3ull * 5120 * 27648 +
                                         2 * 5120 + 128 * 40 + 40) +
                                5120);
    // loop_num 3: two sliding caches a layer; loop_num 1: the full one only.
    const std::string head = R"({"architectures": ["IQuestLoopCoderForCausalLM"], "hidden_size": 256,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "torch_dtype": "bfloat16", )";
    auto three = kvcalc::read_model_text(head + R"("loop_num": 3, "loop_window_size": 8})");
    REQUIRE(three.ok());
    CHECK(three->count(LayerKind::sliding_window) == 4);                                   // 2 layers x 2
    CHECK(kvcalc::size_model(*three, at(16))->bytes_per_token == 3 * 2 * 2 * 2 * 64 * 2);  // 3,072
    auto one = kvcalc::read_model_text(head + R"("loop_num": 1})");
    REQUIRE(one.ok());
    CHECK(one->count(LayerKind::sliding_window) == 0);
    auto bad = kvcalc::read_model_text(head + R"("loop_num": 2, "loop_window_size": -1})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "loop_window_size");
}

TEST_CASE("openPangu: plain, sink or MLA attention as OpenPanguDecoderLayer picks it") {
    // openPangu-Embedded-7B-V1.1's published config: OpenPanguEmbeddedAttention, an Attention of 8 KV heads x
    // 4,096 / 32 on each of 34 layers.
    const std::string file = std::string(KVCALC_SOURCE_DIR) +
                             "/tests/fixtures/configs/ascend-tribe--openPangu-Embedded-7B-V1.1.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 139264);  // 2 x 34 x 8 x 128 x 2
    // bias true puts biases on QKV and o_proj (attention_bias or bias), none on the MLP (mlp_bias only):
    // 2 x 153,376 x 4,096 + 34 x (2 x 4,096^2 + 2 x 4,096 x 1,024 + 6,144 + 4,096 + 3 x 4,096 x 12,800
    // + 2 x 4,096) + 4,096 = 8,030,887,936.
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE(w.ok());
    CHECK(w->param_count == 8030887936);

    const std::string head = R"({"architectures": ["PanguProMoEV2ForCausalLM"], "hidden_size": 256,
        "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "torch_dtype": "bfloat16", )";
    // Sink attention (static_sink_attention.py StaticSinkAttention.get_kv_cache_spec): a
    // SinkFullAttentionSpec of K qk_rope_dim + qk_nope_dim and V v_channels, no window whatever
    // sliding_window says.
    const std::string sink =
        R"("param_sink_number": 16, "qk_rope_dim": 16, "qk_nope_dim": 48, "v_channels": 32)";
    auto s = kvcalc::read_model_text(head + sink + R"(, "sliding_window": 64})");
    REQUIRE(s.ok());
    CHECK(s->count(LayerKind::full_attention) == 4);
    CHECK(s->groups[0].k_head_dim.value == 64);
    CHECK(s->groups[0].v_head_dim.value == 32);
    auto sr = kvcalc::size_model(*s, at(16));
    REQUIRE(sr.ok());
    CHECK(sr->bytes_per_token == 4 * 2 * (64 + 32) * 2);  // 1,536
    CHECK(has_warning(*sr, "param_sink_number", "SinkFullAttentionManager"));
    CHECK_FALSE(kvcalc::estimate_weights(*s).ok());  // sink parameters and k_layernorm not read
    auto tp4 = at(16);
    tp4.tp = 4;  // 2 KV heads on 4 GPUs: OpenPanguSinkAttention raises rather than replicate
    auto refused = kvcalc::size_model(*s, tp4);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "tp");
    auto nov =
        kvcalc::read_model_text(head + R"("param_sink_number": 16, "qk_rope_dim": 16, "qk_nope_dim": 48})");
    REQUIRE_FALSE(nov.ok());
    CHECK(nov.error().field == "v_channels");

    // MLA when all four fields are set (OpenPanguMLAAttention, a MultiHeadLatentAttentionWrapper without
    // sinks).
    const std::string mla =
        R"("kv_lora_rank": 32, "qk_rope_head_dim": 16, "qk_nope_head_dim": 32, "v_head_dim": 32)";
    auto l = kvcalc::read_model_text(head + mla + "}");
    REQUIRE(l.ok());
    CHECK(l->count(LayerKind::mla) == 4);
    CHECK(kvcalc::size_model(*l, at(16))->bytes_per_token == 4 * (32 + 16) * 2);  // 384
    auto partial = kvcalc::read_model_text(head + R"("kv_lora_rank": 32, "qk_rope_head_dim": 16})");
    REQUIRE_FALSE(partial.ok());
    CHECK(partial.error().field == "qk_nope_head_dim");
    // Refused by name: sinks on MLA, the DSA indexer, MoME, a window on MLA, encoder-only attention.
    for (const auto& [extra, field] : std::vector<std::pair<std::string, std::string>>{
             {mla + R"(, "param_sink_number": 16})", "param_sink_number"},
             {mla + R"(, "index_topk": 2048})", "index_topk"},
             {mla + R"(, "use_mome": true, "router_sliding_window": 4})", "use_mome"},
             {mla + R"(, "sliding_window": 64})", "sliding_window"},
             {R"("is_causal": false})", "is_causal"},
             {R"("interleaved_sliding_window": 64})", "interleaved_sliding_window"}}) {
        auto e = kvcalc::read_model_text(head + extra);
        INFO(extra);
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == field);
    }
    // The vision wrapper: openpangu_vl.py OpenPanguVLForConditionalGeneration.__init__ builds
    // PanguEmbeddedForCausalLM on the wrapper's own hf_config, so the text fields are read at the root, as
    // openPangu-VL-7B's config.json keeps them (the fixture is written from its published fields): 34 layers
    // of 8 KV heads x 4,096 / 32, as the Embedded model.
    const std::string vl_file =
        std::string(KVCALC_SOURCE_DIR) +
        "/tests/fixtures/configs/reconstructed/FreedomIntelligence--openPangu-VL-7B-written.json";
    auto vl = kvcalc::read_model_text(read_file(vl_file));
    REQUIRE(vl.ok());
    CHECK(vl->text_path.empty());
    CHECK(vl->max_context.value == 131072);
    auto vr = kvcalc::size_model(*vl, at(131072, Accounting::vllm));
    REQUIRE(vr.ok());
    CHECK(vr->bytes_per_token == 34 * (2 * 8 * (4096 / 32) * 2));         // 139,264
    CHECK(vr->sequence_bytes_vllm == 34ull * (131072 / 16) * 16 * 4096);  // 18,253,611,008
    CHECK(kvcalc::estimate_weights(*vl).error().field == "vocab_size");   // not among the fields read
    // Fields only under a text_config are not where vLLM reads them: the missing root field is named.
    auto nested =
        kvcalc::read_model_text(R"({"architectures": ["OpenPanguVLForConditionalGeneration"], "text_config": {
        "hidden_size": 256, "num_hidden_layers": 4, "num_attention_heads": 4}})");
    REQUIRE_FALSE(nested.ok());
    CHECK(nested.error().field == "num_hidden_layers");
}

TEST_CASE("HRM-Text: one cache per recurrence step and layer, in two stacks") {
    // vLLM hrm_text.py HrmTextAttention.__init__: the L stack's 16 layers run at H_cycles x L_cycles = 6
    // steps, the H stack's 16 at H_cycles = 2, each step its own PrefillPrefixLMAttention (a
    // FullAttentionSpec) of num_attention_heads (MHA) x head_dim. The config is HRM-Text-1B's shape, written
    // (num_hidden_layers 128, the caches' count, is not read).
    const std::string file =
        std::string(KVCALC_SOURCE_DIR) +
        "/tests/fixtures/configs/reconstructed/sapientinc--HRM-Text-1B-shape-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->num_layers.value == 32);                   // 2 x num_layers_per_stack 16
    CHECK(m->count(LayerKind::full_attention) == 128);  // 16 x 2 x 3 + 16 x 2
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 128 * (2 * 12 * 128 * 2));  // 786,432
    auto pp = at(4096);
    pp.pp = 2;  // HrmTextForCausalLM raises under pipeline parallelism
    auto refused = kvcalc::size_model(*m, pp);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "pp");
    CHECK_FALSE(kvcalc::estimate_weights(*m).ok());
    // num_key_value_heads is not read (MHA); H_cycles, L_cycles and num_layers_per_stack are required.
    const std::string head = R"({"architectures": ["HrmTextForCausalLM"], "hidden_size": 256,
        "num_attention_heads": 4, "num_key_value_heads": 1, "torch_dtype": "bfloat16", )";
    auto g = kvcalc::read_model_text(head + R"("num_layers_per_stack": 2, "H_cycles": 1, "L_cycles": 2})");
    REQUIRE(g.ok());
    CHECK(kvcalc::size_model(*g, at(16))->bytes_per_token == (2 * 2 + 2 * 1) * (2 * 4 * 64 * 2));  // 6,144
    for (const auto& [extra, field] : std::vector<std::pair<std::string, std::string>>{
             {R"("num_hidden_layers": 8, "H_cycles": 1, "L_cycles": 2})", "num_layers_per_stack"},
             {R"("num_layers_per_stack": 2, "L_cycles": 2})", "H_cycles"},
             {R"("num_layers_per_stack": 2, "H_cycles": 1, "L_cycles": 0})", "L_cycles"},
             {R"("num_layers_per_stack": 2, "H_cycles": 1, "L_cycles": 2, "sliding_window": 64})",
              "sliding_window"}}) {
        auto e = kvcalc::read_model_text(head + extra);
        INFO(extra);
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == field);
    }
    // Elsewhere num_layers_per_stack is no layer count: an error naming the one that is missing.
    auto other = kvcalc::read_model_text(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 256,
        "num_attention_heads": 4, "num_layers_per_stack": 2})");
    REQUIRE_FALSE(other.ok());
    CHECK(other.error().field == "num_hidden_layers");
}

TEST_CASE("Unlimited-OCR: R-SWA attention reserved as full attention on every layer") {
    // vLLM deepseek_v2.py DeepseekV2DecoderLayer takes DeepseekAttention (use_mha: qk_nope_head_dim and
    // qk_rope_head_dim both 0): num_key_value_heads 10 of hidden_size 1280 / 10 heads = 128. With rswa_window
    // (UnlimitedOCRForCausalLMConfig's default 128) it is an RSWAAttention whose RSWASpec keeps
    // FullAttentionSpec.max_memory_usage_bytes: every layer full over the context, whatever sliding_window
    // says.
    const std::string file = std::string(KVCALC_SOURCE_DIR) +
                             "/tests/fixtures/configs/reconstructed/baidu--Unlimited-OCR-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 12);
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 12 * (2 * 10 * 128 * 2));                         // 61,440
    CHECK(r->sequence_bytes_vllm == 12 * (4096 / 16) * 16 * (2 * 10 * 128 * 2));  // 251,658,240
    bool warned = false;
    for (const auto& w : m->warnings)
        warned |= w.field == "rswa_window";
    CHECK(warned);  // at run time RSWAManager frees generated tokens' blocks behind the window
    CHECK_FALSE(kvcalc::estimate_weights(*m).ok());  // the DeepEncoder vision tower is not read
    // kv_lora_rank is not read on the MHA path; a window in the text config does not slide the cache.
    const std::string head = R"({"architectures": ["UnlimitedOCRForCausalLM"], "language_config": {
        "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2, "torch_dtype": "bfloat16", )";
    auto g = kvcalc::read_model_text(head + R"("num_key_value_heads": 2, "qk_nope_head_dim": 0,
        "qk_rope_head_dim": 0, "kv_lora_rank": 512, "sliding_window": 128}, "rswa_window": 64})");
    REQUIRE(g.ok());
    CHECK(kvcalc::size_model(*g, at(4096))->bytes_per_token == 2 * (2 * 2 * 64 * 2));  // 1,024
    for (const auto& [extra, field] : std::vector<std::pair<std::string, std::string>>{
             {R"("num_key_value_heads": 2, "qk_rope_head_dim": 0}})", "qk_nope_head_dim"},
             {R"("num_key_value_heads": 2, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64}})",
              "qk_nope_head_dim"},
             {R"("qk_nope_head_dim": 0, "qk_rope_head_dim": 0}})", "num_key_value_heads"},
             {R"("num_key_value_heads": 2, "qk_nope_head_dim": 0, "qk_rope_head_dim": 0, "head_dim": 32}})",
              "head_dim"}}) {
        auto e = kvcalc::read_model_text(head + extra);
        INFO(extra);
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field.find(field) != std::string::npos);
    }
}

TEST_CASE("MiniMax-M3: every layer's K and V, the sparse layers' bf16 indexer keys, vLLM's block of 128") {
    // vLLM minimax_m3/nvidia/model.py (0443308): MiniMaxM3SparseAttention on the layers
    // sparse_attention_freq marks, MiniMaxM3Attention on the others, both a FullAttentionSpec of
    // num_key_value_heads x head_dim; a sparse layer's MiniMaxM3IndexerCache (common/indexer.py, 0484480) an
    // MLAAttentionSpec of one head of sparse_index_dim in bf16 (indexer_kv_dtype's default). The config: the
    // text_config of nvidia/MiniMax-M3-NVFP4 (60 layers, 57 sparse, 4 KV heads x 128, sparse_index_dim 128,
    // sparse_block_size 128), written without its 3 MB quantization_config (kv_cache_quant_algo null).
    const std::string file = std::string(KVCALC_SOURCE_DIR) +
                             "/tests/fixtures/configs/reconstructed/nvidia--MiniMax-M3-NVFP4-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->text_path == "text_config");
    CHECK(m->count(LayerKind::full_attention) == 60);
    CHECK(m->block_size.value == 128);
    REQUIRE(m->groups.size() == 2);
    CHECK(m->groups[0].name == "full_attention");
    CHECK(m->groups[0].count == 3);
    CHECK(m->groups[0].indexer_bytes.value == 0);
    CHECK(m->groups[1].name == "minimax_m3_sparse");
    CHECK(m->groups[1].count == 57);
    CHECK(m->groups[1].indexer_dim.value == 128);  // sparse_index_dim
    auto r = kvcalc::size_model(*m, at(8192, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 60 * (2 * 4 * 128 * 2) + 57 * (128 * 2));  // 137,472 = 122,880 + 14,592
    CHECK(r->vllm_block_size == 128);
    CHECK(r->sequence_bytes_vllm == 8192ull / 128 * 128 * 137472);  // 1,126,170,624: 64 blocks of 128
    CHECK(r->indexer_kv_dtype == "bf16");
    CHECK(r->groups.at(1).indexer_bytes_layer == 128 * 2);  // 256: sparse_index_dim x bf16
    // --attention-config '{"indexer_kv_dtype": "fp8"}': one byte a key element.
    auto fp8 = at(8192, Accounting::vllm);
    fp8.indexer_kv_dtype = "fp8";
    auto rf = kvcalc::size_model(*m, fp8);
    REQUIRE(rf.ok());
    CHECK(rf->bytes_per_token == 60 * (2 * 4 * 128 * 2) + 57 * 128);  // 130,176 = 122,880 + 7,296
    fp8.indexer_kv_dtype = "fp4";
    auto bad_dtype = kvcalc::size_model(*m, fp8);
    REQUIRE_FALSE(bad_dtype.ok());
    CHECK(bad_dtype.error().field == "indexer_kv_dtype");
    // 1,000 tokens take 8 blocks of 128, not 63 of 16.
    auto short_ctx = kvcalc::size_model(*m, at(1000, Accounting::vllm));
    REQUIRE(short_ctx.ok());
    CHECK(short_ctx->sequence_bytes_vllm == 8ull * 128 * 137472);  // 140,771,328
    // Tensor parallelism splits the KV heads, not the indexer's one key.
    auto tp2 = at(8192, Accounting::vllm);
    tp2.tp = 2;
    auto r2 = kvcalc::size_model(*m, tp2);
    REQUIRE(r2.ok());
    CHECK(r2->bytes_per_token_per_gpu ==
          60 * (2 * 2 * 128 * 2) + 57 * (128 * 2));  // 76,032 = 61,440 + 14,592
    auto tp8 = at(8192, Accounting::vllm);
    tp8.tp = 8;  // 4 KV heads over 8 GPUs: one replicated head each
    auto r8 = kvcalc::size_model(*m, tp8);
    REQUIRE(r8.ok());
    CHECK(r8->bytes_per_token_per_gpu ==
          60 * (2 * 1 * 128 * 2) + 57 * (128 * 2));  // 45,312 = 30,720 + 14,592
    // The what-if variants of the attention keep the indexer's keys: one KV head, or DeepSeek-V3's latent.
    auto mqa = kvcalc::with_kv_heads(*m, 1);
    REQUIRE(mqa.ok());
    CHECK(kvcalc::size_model(*mqa, at(8192))->bytes_per_token ==
          60 * (2 * 1 * 128 * 2) + 57 * 256);  // 45,312
    const kvcalc::ModelSpec latent = kvcalc::with_mla(*m);
    CHECK(kvcalc::size_model(latent, at(8192))->bytes_per_token == 60 * 576 * 2 + 57 * 256);  // 83,712
    // vLLM sets the block to sparse_block_size; what it does with another --block-size was not read.
    auto b16 = at(8192, Accounting::vllm);
    b16.block_size = 16;
    auto refused = kvcalc::size_model(*m, b16);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().field == "block_size");
    CHECK(refused.error().message.find("sparse_block_size 128") != std::string::npos);
    auto b128 = at(8192, Accounting::vllm);
    b128.block_size = 128;
    CHECK(kvcalc::size_model(*m, b128).ok());
    // The causal-LM architecture reads the same fields at the root; bad input names the field.
    const std::string head = R"({"architectures": ["MiniMaxM3SparseForCausalLM"], "hidden_size": 256,
        "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
        "torch_dtype": "bfloat16")";
    auto small = kvcalc::read_model_text(head + R"(, "sparse_attention_config": {"sparse_attention_freq":
        [0, true, 1], "sparse_index_dim": 32, "sparse_block_size": 64}})");
    REQUIRE(small.ok());
    auto rs = kvcalc::size_model(*small, at(64, Accounting::vllm));
    REQUIRE(rs.ok());
    // Layers 1 and 2 sparse; layer 3, past the list, plain (vLLM's _sparse_attention_layer_ids).
    CHECK(rs->bytes_per_token == 4 * (2 * 2 * 64 * 2) + 2 * (32 * 2));  // 1,152 = 1,024 + 128
    CHECK(rs->vllm_block_size == 64);
    for (const auto& [extra, field] : std::vector<std::pair<std::string, std::string>>{
             {"}", "sparse_attention_config"},
             {R"(, "sparse_attention_config": [1]})", "sparse_attention_config"},
             {R"(, "sparse_attention_config": {"sparse_index_dim": 32, "sparse_block_size": 64}})",
              "sparse_attention_config.sparse_attention_freq"},
             {R"(, "sparse_attention_config": {"sparse_attention_freq": 1, "sparse_index_dim": 32,
                "sparse_block_size": 64}})",
              "sparse_attention_config.sparse_attention_freq"},
             {R"(, "sparse_attention_config": {"sparse_attention_freq": [0, "yes"], "sparse_index_dim": 32,
                "sparse_block_size": 64}})",
              "sparse_attention_config.sparse_attention_freq[1]"},
             {R"(, "sparse_attention_config": {"sparse_attention_freq": [1], "sparse_block_size": 64}})",
              "sparse_attention_config.sparse_index_dim"},
             {R"(, "sparse_attention_config": {"sparse_attention_freq": [1], "sparse_index_dim": 32,
                "sparse_block_size": 0}})",
              "sparse_attention_config.sparse_block_size"}}) {
        auto e = kvcalc::read_model_text(head + extra);
        INFO(extra);
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == field);
    }
}

TEST_CASE("FunASR: the Qwen3 decoder vLLM builds on the root config") {
    // vLLM funasr.py FunASRModel.__init__: Qwen3Model(vllm_config) on the root config (a Qwen3Config); the
    // SenseVoice encoder and adaptor only feed the prompt. The written config: Qwen3-0.6B's fields (the LLM
    // of Fun-ASR-Nano), 28 layers of 8 KV heads x head_dim 128, use_sliding_window false.
    const std::string file =
        std::string(KVCALC_SOURCE_DIR) +
        "/tests/fixtures/configs/reconstructed/FunAudioLLM--Fun-ASR-Nano-2512-written.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->text_path.empty());
    CHECK(m->count(LayerKind::full_attention) == 28);
    auto r = kvcalc::size_model(*m, at(32768, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 28 * (2 * 8 * 128 * 2));                           // 114,688
    CHECK(r->sequence_bytes_vllm == 28ull * (32768 / 16) * 16 * 2 * 8 * 128 * 2);  // 3,758,096,384
    // vLLM reads the root, never a text_config.
    auto nested = kvcalc::read_model_text(R"({"architectures": ["FunASRForConditionalGeneration"],
        "text_config": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4}})");
    REQUIRE_FALSE(nested.ok());
    CHECK(nested.error().field == "num_hidden_layers");
}

TEST_CASE("FireRedASR2: the Qwen2 decoder vLLM builds on the root config") {
    // vLLM fireredasr2.py FireRedASR2Model.__init__: Qwen2ForCausalLM(vllm_config) on the root config (a
    // Qwen2Config); the Conformer encoder (audio_encoder_conf) only feeds the prompt. The config vLLM's tests
    // load (allendou/FireRedASR2-LLM-vllm): 28 layers of 4 KV heads x 3,584 / 28, use_sliding_window false
    // (sliding_window 131072 not applied), float32 served in 16-bit.
    const std::string file =
        std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/allendou--FireRedASR2-LLM-vllm.json";
    auto m = kvcalc::read_model_text(read_file(file));
    REQUIRE(m.ok());
    CHECK(m->text_path.empty());
    CHECK(m->count(LayerKind::full_attention) == 28);
    CHECK(m->layer_plan_source == "use_sliding_window false");
    auto r = kvcalc::size_model(*m, at(32768, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 28 * (2 * 4 * (3584 / 28) * 2));                   // 57,344
    CHECK(r->sequence_bytes_vllm == 28ull * (32768 / 16) * 16 * 2 * 4 * 128 * 2);  // 1,879,048,192
    CHECK(has_warning(*r, "torch_dtype", "16-bit"));
    // As any Qwen2 decoder: use_sliding_window true slides every layer.
    auto slid = kvcalc::read_model_text(R"({"architectures": ["FireRedASR2ForConditionalGeneration"],
        "model_type": "qwen2", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "torch_dtype": "bfloat16", "use_sliding_window": true, "sliding_window": 64})");
    REQUIRE(slid.ok());
    CHECK(slid->count(LayerKind::sliding_window) == 2);
    // vLLM reads the root, never a text_config: fields only there leave the root's layer count missing.
    auto nested = kvcalc::read_model_text(R"({"architectures": ["FireRedASR2ForConditionalGeneration"],
        "text_config": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4}})");
    REQUIRE_FALSE(nested.ok());
    CHECK(nested.error().field == "num_hidden_layers");
}

TEST_CASE("Mllama: refused with its vLLM reason, vLLM no longer serves it") {
    // Mllama is gone from vLLM (registry.py _PREVIOUSLY_SUPPORTED_MODELS). (Cohere ASR, Nemotron Parse,
    // DiffusionGemma and Voxtral Realtime are sized: their own tests.)
    for (const auto& [arch, says] : std::vector<std::pair<std::string, std::string>>{
             {"MllamaForConditionalGeneration", "_PREVIOUSLY_SUPPORTED_MODELS"}}) {
        INFO(arch);
        const kvcalc::Family& f = kvcalc::family_of(*kvcalc::find_architecture(arch));
        CHECK(f.support == kvcalc::Support::refused);
        CHECK(std::string(f.caches).find(says) != std::string::npos);
        CHECK(std::string(f.caches) == kvcalc::family_caches(f.name));  // a refusal's reason is kept whole
        auto e = kvcalc::read_model_text(R"({"architectures": [")" + arch + R"("], "hidden_size": 256,
            "num_attention_heads": 4, "num_hidden_layers": 2})");
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == "architectures");
    }
}

TEST_CASE(
    "DiffusionGemma: the Gemma 4 text model on text_config, k_eq_v forced; its canvas changes no figure") {
    // vLLM diffusion_gemma.py (00c25c8) DiffusionGemmaForConditionalGeneration.__init__ sets
    // text_config.attention_k_eq_v and builds Gemma4Model, whose full layers (gemma4.py 001cabc
    // Gemma4DecoderLayer) then keep num_global_key_value_heads x global_head_dim. The canvas is scheduled as
    // draft tokens: config/vllm.py (000fc94) num_speculative_tokens is canvas_length, num_lookahead_tokens 0
    // without a speculative_config, and no length max_memory_usage_bytes reads changes. The config is
    // DiffusionGemma-26B-A4B's published shape, written.
    const std::string text = read_file(std::string(KVCALC_SOURCE_DIR) +
                                       "/tests/fixtures/configs/reconstructed/"
                                       "google--diffusiongemma-26B-A4B-it-written.json");
    auto m = kvcalc::read_model_text(text);
    REQUIRE(m.ok());
    CHECK(m->text_path == "text_config");
    CHECK(m->count(LayerKind::sliding_window) == 25);
    CHECK(m->count(LayerKind::full_attention) == 5);
    CHECK(m->max_context.value == 262144);  // text_config.max_position_embeddings
    auto r = kvcalc::size_model(*m, at(4096, Accounting::vllm));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token ==
          25 * (2 * 8 * 256 * 2) + 5 * (2 * 2 * 512 * 2));  // 204,800 + 20,480 = 225,280
    // Full (pages unified to the sliding ones': blocks of 32): 5 layers x cdiv(4,096, 32) = 128 blocks x 32
    // tokens x 4,096 B = 83,886,080; sliding: 25 layers x (cdiv(min(1,023 + 8,192, 4,096), 16) + 1) = 257
    // blocks x 16 x 8,192 B = 842,137,600.
    CHECK(r->sequence_bytes_vllm == 5ull * 128 * 32 * 4096 + 25ull * 257 * 16 * 8192);  // 926,023,680
    CHECK(has_warning(*r, "canvas_length", "vLLM runs at most 8 requests at once unless max_num_seqs"));
    // The same figures as Gemma 4 26B-A4B, whose backbone it is.
    CHECK(r->sequence_bytes_vllm ==
          size("google--gemma-4-26B-A4B.json", at(4096, Accounting::vllm)).sequence_bytes_vllm);
    // vLLM forces k_eq_v: a config saying false changes neither the cache nor the weights (no v_proj on the
    // full layers), where a Gemma 4 saying false has 8 K and V heads on its full layers (below).
    auto parsed = kvcalc::parse_json_text(text);
    REQUIRE(parsed.ok());
    kvcalc::json without = *parsed;
    without["text_config"]["attention_k_eq_v"] = false;
    auto m2 = kvcalc::read_model_text(kvcalc::to_text(without));
    REQUIRE(m2.ok());
    CHECK(kvcalc::size_model(*m2, at(4096))->bytes_per_token == 225280);
    auto w = kvcalc::estimate_weights(*m);
    auto w2 = kvcalc::estimate_weights(*m2);
    REQUIRE(w.ok());
    REQUIRE(w2.ok());
    CHECK(w2->param_count == w->param_count);
    bool self_conditioning = false;
    for (const auto& e : w->excluded)
        self_conditioning |= e.find("self-conditioning MLP") != std::string::npos;
    CHECK(self_conditioning);
    // As a Gemma 4 it counts the same once the two fields vLLM's DiffusionGemmaTextConfig sets are given
    // (attention_k_eq_v, enable_moe_block: the dense MLP beside the experts). Without k_eq_v a Gemma 4's full
    // layers have num_key_value_heads (8) K and V heads of 512, not 2 K heads (gemma4.py Gemma4DecoderLayer):
    // 5 x 2,816 x 512 x (2 x 8 - 2) more parameters.
    without["architectures"] = kvcalc::json::array({"Gemma4ForConditionalGeneration"});
    without["text_config"]["enable_moe_block"] = true;
    auto weights_of = [](const kvcalc::json& config) {
        auto g = kvcalc::read_model_text(kvcalc::to_text(config));
        REQUIRE(g.ok());
        auto wg = kvcalc::estimate_weights(*g);
        REQUIRE(wg.ok());
        return wg->param_count;
    };
    CHECK(weights_of(without) == w->param_count + 5ull * 2816 * 512 * (2 * 8 - 2));  // 100,925,440
    without["text_config"]["attention_k_eq_v"] = true;
    CHECK(weights_of(without) == w->param_count);
    without["text_config"]["enable_moe_block"] = false;
    CHECK(weights_of(without) == w->param_count - 30ull * 3 * 2816 * 2112);  // the dense MLPs: 535,265,280
    // The pool vLLM reports from a KV memory: Gemma 4's (test_check.cpp: 4.25 GiB, 4,992 tokens in flight,
    // 6,963 blocks of 5 pages of 131,072 B, 2.39x at 32,768).
    const kvcalc::json options = {
        {"max_context", 32768},
        {"max_num_batched_tokens", 4992},
        {"engine_log", "INFO [gpu_worker.py:227] Available KV cache memory: 4.25 GiB\n"}};
    auto checked = kvcalc::parse_json_text(kvcalc::check_json(text, kvcalc::to_text(options)));
    REQUIRE(checked.ok());
    INFO(kvcalc::to_text(*checked));
    CHECK((*checked)["pool_blocks"] == 6963);
    CHECK((*checked)["pool_bytes_per_gpu"] == 4563271680);  // 6,963 x 655,360
    CHECK((*checked)["max_concurrency_text"] == "2.39");    // 6,963 / (1,024 + 5 x 377)
    // Without layer_types there is no Gemma 4 pattern to read: an error naming the field.
    kvcalc::json bare = *parsed;
    bare["text_config"].erase("layer_types");
    auto e = kvcalc::read_model_text(kvcalc::to_text(bare));
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().field == "text_config.layer_types");
    // Nor the head sizes and heads the two config classes would fill differently.
    for (const char* name : {"head_dim", "global_head_dim", "num_global_key_value_heads", "sliding_window"}) {
        kvcalc::json less = *parsed;
        less["text_config"].erase(name);
        auto le = kvcalc::read_model_text(kvcalc::to_text(less));
        REQUIRE_FALSE(le.ok());
        CHECK(le.error().field == std::string("text_config.") + name);
    }
}

TEST_CASE("the encoder-decoders: the pool rule read, the unsettled encoder length named") {
    // Read in vLLM: the self (FullAttentionSpec) and cross (CrossAttentionSpec) caches form two groups of
    // one pool (kv_cache_utils.py _get_kv_cache_groups_uniform_page_size); a request holds
    // cdiv(max_model_len, 16) + cdiv(max_num_encoder_input_tokens, 16) blocks. That length is
    // get_encdec_max_encoder_len in releases whose VllmConfig.__post_init__ sets it, max_num_batched_tokens
    // in the newest config/vllm.py read; each model's own length is named beside it.
    for (const auto& [arch, own] : std::vector<std::pair<std::string, std::string>>{
             {"WhisperForConditionalGeneration", "max_source_positions"},
             {"CohereAsrForConditionalGeneration", "CohereASRProcessingInfo.get_num_audio_tokens"},
             {"FireRedLIDForConditionalGeneration", "get_num_audio_tokens returns 1"},
             {"NemotronParseForConditionalGeneration", "get_mm_max_tokens_per_item"}}) {
        INFO(arch);
        const kvcalc::Family& f = kvcalc::family_of(*kvcalc::find_architecture(arch));
        // Each sized under max_num_encoder_input_tokens (next tests), refused without it.
        CHECK(f.support == kvcalc::Support::exact);
        const std::string caches = kvcalc::family_caches(f.name);
        for (const std::string& says :
             {std::string("_get_kv_cache_groups_uniform_page_size"),
              std::string("get_encdec_max_encoder_len"), std::string("max_num_batched_tokens"), own})
            CHECK(caches.find(says) != std::string::npos);
    }
}

TEST_CASE("is_encoder_decoder true: read by the encoder-decoders kvcalc sizes, refused by name elsewhere") {
    // Whisper's published configs say is_encoder_decoder true (openai/whisper-small, a fixture): the
    // cross-attention it announces is what kvcalc models for Whisper and FireRedLID.
    for (const char* arch : {"WhisperForConditionalGeneration", "FireRedLIDForConditionalGeneration"}) {
        INFO(arch);
        auto m =
            kvcalc::read_model_text(std::string(R"({"architectures": [")") + arch +
                                    R"("], "is_encoder_decoder": true, "d_model": 768, "decoder_layers": 12,
            "decoder_attention_heads": 12, "n_layers_lid_dec": 6, "n_head": 12, "max_target_positions": 448})");
        INFO((m ? "" : m.error().message));
        CHECK(m.ok());
    }
    // A decoder-only family with the flag set: refused, naming the field.
    auto llama = kvcalc::read_model_text(
        R"({"architectures": ["LlamaForCausalLM"], "is_encoder_decoder": true, "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8})");
    REQUIRE_FALSE(llama.ok());
    CHECK(llama.error().field == "is_encoder_decoder");
}

TEST_CASE("Whisper: self-attention per token, cross-attention over max_num_encoder_input_tokens") {
    // Written from openai/whisper-large-v3's published fields (not a verbatim file): 32 decoder layers of 20
    // heads, d_model 1280 (head 64), 448 target positions, float16; the encoder's fields are not the cache's.
    const std::string config =
        R"({"architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper",
        "d_model": 1280, "decoder_layers": 32, "decoder_attention_heads": 20, "encoder_layers": 32,
        "encoder_attention_heads": 20, "num_hidden_layers": 32, "max_source_positions": 1500,
        "max_target_positions": 448, "torch_dtype": "float16"})";
    auto m = kvcalc::read_model_text(config);
    REQUIRE(m.ok());
    CHECK(m->num_layers.value == 32);
    CHECK(m->max_context.value == 448);  // max_target_positions
    REQUIRE(m->groups.size() == 2);
    CHECK_FALSE(m->groups[0].cross_attention);
    CHECK(m->groups[1].cross_attention);
    CHECK(m->groups[1].count == 32);
    CHECK(m->groups[1].kv_heads.value == 20);
    CHECK(m->groups[1].k_head_dim.value == 64);

    kvcalc::SizeOptions o;
    o.accounting = kvcalc::Accounting::vllm;
    // Without the encoder length: refused by name, never a figure.
    auto none = kvcalc::size_model(*m, o);
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().field == "max_num_encoder_input_tokens");
    CHECK(none.error().message.find("max_num_batched_tokens") != std::string::npos);

    o.encoder_tokens = 1500;  // what get_encdec_max_encoder_len gives: max_source_positions
    auto r = kvcalc::size_model(*m, o);
    REQUIRE(r.ok());
    // Per token, the self-attention only: 32 x 2 x 20 x 64 x 2 = 163,840 B.
    CHECK(r->bytes_per_token == 163840);
    CHECK(r->encoder_tokens == 1500);
    // A request at 448 tokens, pages of 2 x 16 x 20 x 64 x 2 = 81,920 B: self cdiv(448, 16) = 28 blocks,
    // cross cdiv(1500, 16) = 94 blocks, each in 32 layers: (28 + 94) x 81,920 x 32 = 319,815,680 B.
    CHECK(r->sequence_bytes_vllm == 319815680);
    CHECK(r->groups[1].vllm_blocks == 94);
    CHECK(r->groups[1].resident_tokens == 1500);
    // Every token unrounded: (448 + 1500) x 163,840 = 319,160,320 B.
    CHECK(r->sequence_bytes_naive == 319160320);
    CHECK(r->sequence_bytes_resident == 319160320);
    // The cross reservation does not grow with the context: 64 tokens, cdiv(64, 16) = 4 blocks of self.
    o.context = 64;
    auto shortr = kvcalc::size_model(*m, o);
    REQUIRE(shortr.ok());
    CHECK(shortr->sequence_bytes_vllm == (4 + 94) * 81920ull * 32);
    // tp 4: 5 heads a GPU, a quarter of every page.
    o.context.reset();
    o.tp = 4;
    auto tp = kvcalc::size_model(*m, o);
    REQUIRE(tp.ok());
    CHECK(tp->kv_bytes_per_gpu == 319815680 / 4);
    // SchedulerConfig's max_num_batched_tokens (8192) as the length: cdiv(8192, 16) = 512 cross blocks.
    o.tp = 1;
    o.encoder_tokens = 8192;
    auto batched = kvcalc::size_model(*m, o);
    REQUIRE(batched.ok());
    CHECK(batched->sequence_bytes_vllm == (28 + 512) * 81920ull * 32);
    o.encoder_tokens = 0;
    auto zero = kvcalc::size_model(*m, o);
    REQUIRE_FALSE(zero.ok());
    CHECK(zero.error().field == "max_num_encoder_input_tokens");

    // Through the options table and the JSON report.
    auto parse = [](const std::string& text) {
        auto j = kvcalc::parse_json_text(text);
        REQUIRE(j.ok());
        return j.value();
    };
    const kvcalc::json rep =
        parse(kvcalc::size_json(config, R"({"max_num_encoder_input_tokens": 1500, "accounting": "vllm"})"));
    CHECK(rep.at("sequence_bytes_vllm") == 319815680);
    CHECK(rep.at("max_num_encoder_input_tokens") == 1500);
    const kvcalc::json bad = parse(kvcalc::size_json(config, R"({"max_num_encoder_input_tokens": "many"})"));
    CHECK(bad.at("error").at("field") == "max_num_encoder_input_tokens");
    // check refuses the pool of an encoder-decoder by name.
    const kvcalc::json chk =
        parse(kvcalc::check_json(config, R"({"max_num_encoder_input_tokens": 1500, "pool_tokens": 100000})"));
    CHECK(chk.at("error").at("field") == "max_num_encoder_input_tokens");

    // Whisper's published configs say is_encoder_decoder true: read, not refused as an unmodelled field.
    kvcalc::json flagged = parse(config);
    flagged["is_encoder_decoder"] = true;
    auto f = kvcalc::read_model_text(flagged.dump());
    REQUIRE(f.ok());
    CHECK(f->groups.size() == 2);
    // The decoder's fields are required: num_hidden_layers (the encoder's copy) is not read for them.
    for (const char* field : {"decoder_layers", "decoder_attention_heads", "d_model"}) {
        INFO(field);
        kvcalc::json c = parse(config);
        c.erase(field);
        auto e = kvcalc::read_model_text(c.dump());
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == field);
    }
    // The weights estimate does not read the encoder: refused, not a decoder-only figure.
    auto w = kvcalc::estimate_weights(*m);
    REQUIRE_FALSE(w.ok());
    CHECK(w.error().field == "architectures");
}

TEST_CASE("FireRedLID: its decoder's fields or vLLM's defaults, the cross-attention as Whisper's") {
    // vLLM fireredlid.py FireRedLIDDecoder: getattr(config, "n_layers_lid_dec", 6) layers of n_head (20)
    // heads of d_model (1280) / n_head, a self-attention and a CrossAttention each. A config written with
    // none of the three (vLLM's defaults apply) and a context given: 6 x 2 x 20 x 64 x 2 = 30,720 B a token.
    auto m = kvcalc::read_model_text(R"({"architectures": ["FireRedLIDForConditionalGeneration"],
        "torch_dtype": "float16"})");
    REQUIRE(m.ok());
    CHECK(m->num_layers.value == 6);
    CHECK(m->num_layers.source.find("default") != std::string::npos);
    REQUIRE(m->groups.size() == 2);
    CHECK(m->groups[1].cross_attention);
    kvcalc::SizeOptions o;
    o.context = 16;
    o.accounting = kvcalc::Accounting::vllm;
    auto none = kvcalc::size_model(*m, o);
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().field == "max_num_encoder_input_tokens");
    o.encoder_tokens = 100;
    auto r = kvcalc::size_model(*m, o);
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 30720);
    // Pages of 2 x 16 x 20 x 64 x 2 = 81,920 B: self cdiv(16, 16) = 1 block, cross cdiv(100, 16) = 7, in 6
    // layers: (1 + 7) x 81,920 x 6 = 3,932,160 B.
    CHECK(r->sequence_bytes_vllm == 3932160);
    // Its own fields when written: 2 layers of 4 heads of 256 / 4 = 64: 2 x 2 x 4 x 64 x 2 = 2,048 B a token.
    auto own = kvcalc::read_model_text(R"({"architectures": ["FireRedLIDForConditionalGeneration"],
        "n_layers_lid_dec": 2, "n_head": 4, "d_model": 256, "torch_dtype": "float16"})");
    REQUIRE(own.ok());
    auto ro = kvcalc::size_model(*own, o);
    REQUIRE(ro.ok());
    CHECK(ro->bytes_per_token == 2048);
    auto bad = kvcalc::read_model_text(R"({"architectures": ["FireRedLIDForConditionalGeneration"],
        "n_head": 3, "d_model": 256})");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "d_model");
}

TEST_CASE(
    "Cohere ASR: the decoder's fields on transf_decoder.config_dict, the cross-attention as Whisper's") {
    // vLLM cohere_asr.py CohereASRDecoder: config_dict.get("num_layers") CohereASRDecoderLayers, each a
    // CohereASRAttention and a CohereASRCrossAttention of num_attention_heads KV heads of hidden_size //
    // num_attention_heads. The config is written from Cohere Transcribe's published decoder shape
    // (SOURCES.md): 8 layers of 8 heads of 1024 / 8 = 128, 1024 positions.
    const std::string path =
        std::string(KVCALC_SOURCE_DIR) +
        "/tests/fixtures/configs/reconstructed/CohereLabs--cohere-transcribe-03-2026-shape-written.json";
    const std::string config = kvtest::read_file(path);
    auto m = kvcalc::read_model_text(config);
    REQUIRE(m.ok());
    CHECK(m->num_layers.value == 8);
    CHECK(m->num_layers.source == "transf_decoder.config_dict.num_layers");
    // No default context: vLLM looks for the max length on the root of its bare CohereASRConfig, which this
    // config does not give (config_dict.max_sequence_length, 1024, sizes only the decoder's position table).
    CHECK_FALSE(m->max_context.value);
    {
        auto j = kvcalc::parse_json_text(config);
        REQUIRE(j.ok());
        kvcalc::json c = j.value();
        c["max_seq_len"] = 4096;
        auto rooted = kvcalc::read_model_text(c.dump());
        REQUIRE(rooted.ok());
        CHECK(rooted->max_context.value == 4096);
        CHECK(rooted->max_context.source == "max_seq_len");
        // The key config_dict also has: the root's value, not the decoder's 1,024.
        c.erase("max_seq_len");
        c["max_sequence_length"] = 4096;
        auto same_key = kvcalc::read_model_text(c.dump());
        REQUIRE(same_key.ok());
        CHECK(same_key->max_context.value == 4096);
        CHECK(same_key->max_context.source == "max_sequence_length");
    }
    // Sizing without a context says where kvcalc looked: every key vLLM reads, on the root.
    auto no_context = kvcalc::size_model(*m, kvcalc::SizeOptions{});
    REQUIRE_FALSE(no_context.ok());
    CHECK(no_context.error().field == "context");
    CHECK(no_context.error().message ==
          "no max context in the config (looked for max_position_embeddings, n_positions, seq_length, "
          "max_sequence_length, model_max_length, max_seq_len, max_seq_length, max_target_positions, seq_len "
          "at the config's root; vLLM would assume 2048 tokens unless --max-model-len is given): give a "
          "context");
    REQUIRE(m->groups.size() == 2);
    CHECK_FALSE(m->groups[0].cross_attention);
    CHECK(m->groups[1].cross_attention);
    CHECK(m->groups[1].count == 8);
    CHECK(m->groups[1].kv_heads.value == 8);
    CHECK(m->groups[1].k_head_dim.value == 128);

    kvcalc::SizeOptions o;
    o.accounting = kvcalc::Accounting::vllm;
    o.context = 1000;
    auto none = kvcalc::size_model(*m, o);
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().field == "max_num_encoder_input_tokens");
    o.encoder_tokens = 8192;  // SchedulerConfig's max_num_batched_tokens, the length in the newest vLLM read
    auto r = kvcalc::size_model(*m, o);
    REQUIRE(r.ok());
    // Per token, the self-attention only: 8 x 2 x 8 x 128 x 2 = 32,768 B.
    CHECK(r->bytes_per_token == 8ull * 2 * 8 * 128 * 2);
    // Pages of 2 x 16 x 8 x 128 x 2 = 65,536 B: self cdiv(1000, 16) = 63 blocks, cross cdiv(8192, 16) = 512,
    // in 8 layers: (63 + 512) x 65,536 x 8 = 301,465,600 B.
    CHECK(r->sequence_bytes_vllm == (63ull + 512) * (2 * 16 * 8 * 128 * 2) * 8);
    CHECK(r->sequence_bytes_vllm == 301465600);
    // Every token unrounded: (1000 + 8192) x 32,768 = 301,203,456 B.
    CHECK(r->sequence_bytes_naive == (1000ull + 8192) * 32768);

    auto parse = [](const std::string& text) {
        auto j = kvcalc::parse_json_text(text);
        REQUIRE(j.ok());
        return j.value();
    };
    // Each decoder field is required (config_dict.get gives None, no default), named by its full path.
    for (const char* field : {"num_layers", "num_attention_heads", "hidden_size"}) {
        INFO(field);
        kvcalc::json c = parse(config);
        c["transf_decoder"]["config_dict"].erase(field);
        auto e = kvcalc::read_model_text(c.dump());
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == std::string("transf_decoder.config_dict.") + field);
    }
    // Heads that do not divide hidden_size: CohereASRAttention raises.
    kvcalc::json odd = parse(config);
    odd["transf_decoder"]["config_dict"]["num_attention_heads"] = 3;
    auto bad = kvcalc::read_model_text(odd.dump());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "transf_decoder.config_dict.hidden_size");
    // The decoder's fields at the root are not vLLM's: without transf_decoder (or its config_dict), an error.
    auto root = kvcalc::read_model_text(R"({"architectures": ["CohereAsrForConditionalGeneration"],
        "num_layers": 8, "num_attention_heads": 8, "hidden_size": 1024})");
    REQUIRE_FALSE(root.ok());
    CHECK(root.error().field == "transf_decoder");
    auto no_dict = kvcalc::read_model_text(R"({"architectures": ["CohereAsrForConditionalGeneration"],
        "transf_decoder": {"num_layers": 8}})");
    REQUIRE_FALSE(no_dict.ok());
    CHECK(no_dict.error().field == "transf_decoder.config_dict");
    auto not_object = kvcalc::read_model_text(R"({"architectures": ["CohereAsrForConditionalGeneration"],
        "transf_decoder": {"config_dict": [8]}})");
    REQUIRE_FALSE(not_object.ok());
    CHECK(not_object.error().field == "transf_decoder.config_dict");
    CHECK(not_object.error().code == kvcalc::code::invalid_value);
}

TEST_CASE("Nemotron Parse: the mBART decoder on the decoder sub-config, the cross-attention as Whisper's") {
    // nvidia/NVIDIA-Nemotron-Parse-v1.1's published config (SOURCES.md). vLLM nemotron_parse.py
    // MBartDecoderNoPos(config.decoder): decoder_layers 10 MBartDecoderLayers (its num_hidden_layers 12 is
    // not read), each a WhisperAttention and a WhisperCrossAttention of decoder_attention_heads 16 KV heads
    // of d_model 1024 / 16 = 64.
    const std::string config = kvtest::read_file(
        std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/nvidia--NVIDIA-Nemotron-Parse-v1.1.json");
    auto m = kvcalc::read_model_text(config);
    REQUIRE(m.ok());
    CHECK(m->text_path == "decoder");
    CHECK(m->num_layers.value == 10);
    CHECK(m->num_layers.source == "decoder.decoder_layers");
    // The root's max_sequence_length 9000: NemotronParseConfig (the model's hf_nemotron_parse_config.py)
    // copies it into decoder.max_sequence_length, the key vLLM's search finds there.
    CHECK(m->max_context.value == 9000);
    CHECK(m->max_context.source == "max_sequence_length");
    {
        auto j = kvcalc::parse_json_text(config);
        REQUIRE(j.ok());
        kvcalc::json c = j.value();
        // A key the search tries first, in the decoder: it wins.
        c["decoder"]["max_position_embeddings"] = 1024;
        auto first = kvcalc::read_model_text(c.dump());
        REQUIRE(first.ok());
        CHECK(first->max_context.value == 1024);
        CHECK(first->max_context.source == "decoder.max_position_embeddings");
        // The decoder's own max_sequence_length is replaced by the root's: not read.
        c["decoder"].erase("max_position_embeddings");
        c["decoder"]["max_sequence_length"] = 2048;
        c.erase("max_sequence_length");
        auto none = kvcalc::read_model_text(c.dump());
        REQUIRE(none.ok());
        CHECK(none->max_context.value == 0);  // the class's default 9000 is not taken
        CHECK(
            none->max_context.source ==
            "looked for max_position_embeddings, n_positions, seq_length in decoder, and max_sequence_length "
            "at the config's root; vLLM would assume 2048 tokens unless --max-model-len is given");
    }
    REQUIRE(m->groups.size() == 2);
    CHECK(m->groups[1].cross_attention);
    CHECK(m->groups[1].count == 10);
    CHECK(m->groups[1].kv_heads.value == 16);
    CHECK(m->groups[1].k_head_dim.value == 64);

    kvcalc::SizeOptions o;
    o.accounting = kvcalc::Accounting::vllm;
    o.context = 4096;
    // NemotronParseProcessingInfo.get_mm_max_tokens_per_item of this config: (image_size[0] 2048 //
    // patch_size 16) x ((image_size[1] 1648 // 16) // 4) + 1 = 128 x 25 + 1 = 3,201 encoder tokens.
    o.encoder_tokens = (2048 / 16) * ((1648 / 16) / 4) + 1;
    CHECK(*o.encoder_tokens == 3201);
    auto r = kvcalc::size_model(*m, o);
    REQUIRE(r.ok());
    // Per token: 10 x 2 x 16 x 64 x 2 = 40,960 B.
    CHECK(r->bytes_per_token == 10ull * 2 * 16 * 64 * 2);
    // Pages of 2 x 16 x 16 x 64 x 2 = 65,536 B: self cdiv(4096, 16) = 256, cross cdiv(3201, 16) = 201, in 10
    // layers: (256 + 201) x 65,536 x 10 = 299,499,520 B.
    CHECK(r->sequence_bytes_vllm == (256ull + 201) * (2 * 16 * 16 * 64 * 2) * 10);
    CHECK(r->sequence_bytes_vllm == 299499520);

    auto parse = [](const std::string& text) {
        auto j = kvcalc::parse_json_text(text);
        REQUIRE(j.ok());
        return j.value();
    };
    // The decoder sub-config's fields are required (its class's defaults are not taken), named by their path.
    for (const char* field : {"decoder_layers", "decoder_attention_heads", "d_model"}) {
        INFO(field);
        kvcalc::json c = parse(config);
        c["decoder"].erase(field);
        auto e = kvcalc::read_model_text(c.dump());
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == std::string("decoder.") + field);
    }
    kvcalc::json odd = parse(config);
    odd["decoder"]["decoder_attention_heads"] = 3;
    auto bad = kvcalc::read_model_text(odd.dump());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().field == "decoder.d_model");
    kvcalc::json none = parse(config);
    none.erase("decoder");
    auto missing = kvcalc::read_model_text(none.dump());
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().field == "decoder");
    CHECK(missing.error().code == kvcalc::code::missing_field);
}

TEST_CASE("the inventory: every architecture exact or refused with a reason; unknown ones warned") {
    const auto& rows = kvcalc::architecture_table();
    CHECK(rows.size() == 273);
    std::size_t exact = 0;
    for (const auto& a : rows) {
        INFO(a.name);
        const kvcalc::Family& f = kvcalc::family_of(a);
        CHECK(std::string(f.name) == a.family);  // every architecture's family is listed
        CHECK(std::string(kvcalc::family_caches(f.name)).size() > 10);
        // The reader keeps a refused family's reason, for the message (the inventory's text, or its
        // first part when the sources follow: DeepSeek-V4); an exact family's text is the inventory's
        // alone.
        if (f.support == kvcalc::Support::refused)
            CHECK(kvcalc::family_caches(f.name).rfind(f.caches, 0) == 0);
        else
            CHECK(std::string(f.caches).empty());
        exact += f.support == kvcalc::Support::exact;
        CHECK(kvcalc::find_architecture(a.name) == &a);
    }
    CHECK(exact == 270);
    CHECK(kvcalc::family_of(*kvcalc::find_architecture("JambaForCausalLM")).support ==
          kvcalc::Support::exact);
    CHECK(kvcalc::family_of(*kvcalc::find_architecture("MllamaForConditionalGeneration")).support ==
          kvcalc::Support::refused);
    auto m = kvcalc::read_model_text(R"({"architectures": ["SomethingNewForCausalLM"], "model_type": "new",
        "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "torch_dtype": "bfloat16"})");
    REQUIRE(m.ok());
    REQUIRE(m->warnings.size() == 1);
    CHECK(m->warnings[0].field == "architectures");
    CHECK(
        m->warnings[0].message ==
        "SomethingNewForCausalLM is not an architecture kvcalc knows from vLLM's registry: it was read as a "
        "standard decoder (the fields it has, the defaults of none)");
}

TEST_CASE("Voxtral Realtime: the text model's sliding cache and the causal encoder's, in one hybrid pool") {
    // vLLM's config of mistralai/Voxtral-Mini-4B-Realtime-2602, as mistral.py adapt_config_dict builds it
    // from params.json (written: no file holds it). Text: 26 layers sliding over 8192, 8 KV heads of 128.
    // Encoder (whisper_causal.py): 32 layers, each a SlidingWindowSpec of block_pool_size 4 x 32 KV heads
    // of 64 per text token, window 750 counted in text tokens by the KV cache manager.
    const std::string file = std::string(KVCALC_SOURCE_DIR) +
                             "/tests/fixtures/configs/reconstructed/"
                             "mistralai--Voxtral-Mini-4B-Realtime-2602-vllm-written.json";
    const std::string text = read_file(file);
    auto m = kvcalc::read_model_text(text);
    INFO((m ? "" : m.error().message));
    REQUIRE(m.ok());
    CHECK(m->family == "voxtral_realtime");
    CHECK(m->num_layers.value == 26);  // the text model's; the encoder's layers are a group beside them
    CHECK(m->max_context.value == 131072);
    REQUIRE(m->groups.size() == 2);
    const kvcalc::LayerGroup &txt = m->groups[0], &enc = m->groups[1];
    CHECK(txt.kind == LayerKind::sliding_window);
    CHECK(txt.count == 26);
    CHECK(txt.kv_heads.value == 8);
    CHECK(txt.window.value == 8192);
    CHECK(enc.kind == LayerKind::sliding_window);
    CHECK(enc.encoder);
    CHECK(enc.count == 32);
    CHECK(enc.kv_heads.value == 4 * 32);  // block_pool_size x encoder_attention_heads
    CHECK(enc.k_head_dim.value == 64);
    CHECK(enc.window.value == 750);
    CHECK(enc.query_heads.value == 32);

    auto r = kvcalc::size_model(*m, at(131072, Accounting::vllm));
    INFO((r ? "" : r.error().message));
    REQUIRE(r.ok());
    // Per text token: 26 x 2 x 8 x 128 x 2 + 32 x 2 x (4 x 32) x 64 x 2 = 106,496 + 1,048,576 = 1,155,072 B.
    CHECK(r->bytes_per_token == 26 * (2 * 8 * 128 * 2) + 32 * (2 * (4 * 32) * 64 * 2));
    CHECK(r->bytes_per_token == 1155072);
    CHECK(r->sequence_bytes_naive == 1155072ull * 131072);  // 151,397,597,184
    // Resident: the text layers keep 8,192 tokens, the encoder's 750 (text tokens of 4 frames each).
    CHECK(r->sequence_bytes_resident == 26ull * 4096 * 8192 + 32ull * 32768 * 750);  // 1,658,847,232
    // vLLM: two sliding windows are two types (UniformTypeKVCacheSpecs.is_uniform_type), so the pages are
    // unified: the encoder's page 16 x 32,768 = 524,288 B, the text block grows 8 times to 128 tokens
    // (unify_kv_cache_spec_page_size). Groups of 32 layers (26 < 32 < 1.5 x 26): 26 text layers + 6
    // padding, 32 encoder layers. Blocks a request holds with max_num_batched_tokens 8192: text
    // cdiv(8192 - 1 + 8192, 128) + 1 = 129, encoder cdiv(750 - 1 + 8192, 16) + 1 = 560.
    REQUIRE(r->groups.size() == 2);
    CHECK(r->groups[0].vllm_block_size == 128);
    CHECK(r->groups[1].vllm_block_size == 16);
    CHECK(r->groups[0].vllm_blocks == 129);
    CHECK(r->groups[1].vllm_blocks == 560);
    CHECK(r->sequence_bytes_vllm == 32ull * 524288 * (129 + 560));  // 11,559,501,824
    CHECK(r->sequence_bytes_vllm == 11559501824ull);
    // The pool: 2 groups of 32 layers, 6 padding, a block of 32 pages of 524,288 B.
    auto L = kvcalc::vllm_layout(*m, *r);
    REQUIRE(L.ok());
    CHECK(L->hybrid);
    CHECK(L->groups == 2);
    CHECK(L->group_size == 32);
    CHECK(L->padding_layers == 6);
    CHECK(L->block_bytes == 32ull * 524288);
    CHECK(L->min_block == 16);
    // A short request: text cdiv(1000, 128) + 1 = 9 blocks, encoder cdiv(1000, 16) + 1 = 64.
    auto shortr = kvcalc::size_model(*m, at(1000, Accounting::vllm));
    REQUIRE(shortr.ok());
    CHECK(shortr->sequence_bytes_vllm == 32ull * 524288 * (9 + 64));  // 1,224,736,768
    // tp 2: 4 text and 64 encoder KV heads a GPU, every page halved, the same blocks.
    kvcalc::SizeOptions two = at(131072, Accounting::vllm);
    two.tp = 2;
    auto tp = kvcalc::size_model(*m, two);
    REQUIRE(tp.ok());
    CHECK(tp->kv_bytes_per_gpu == 11559501824ull / 2);
    CHECK(tp->bytes_per_token_per_gpu == 1155072 / 2);

    // One window for both (text sliding_window 750): one type, one group of per-layer pages, no block
    // unified and no padding: (26 x 65,536 + 32 x 524,288) x 560 blocks.
    auto parse = [](const std::string& t) {
        auto j = kvcalc::parse_json_text(t);
        REQUIRE(j.ok());
        return j.value();
    };
    kvcalc::json same = parse(text);
    same["text_config"]["sliding_window"] = 750;
    auto ms = kvcalc::read_model_text(same.dump());
    REQUIRE(ms.ok());
    auto rs = kvcalc::size_model(*ms, at(131072, Accounting::vllm));
    REQUIRE(rs.ok());
    CHECK(rs->groups[0].vllm_block_size == 16);
    CHECK(rs->sequence_bytes_vllm == (26ull * 65536 + 32ull * 524288) * 560);  // 10,349,445,120

    // Not modelled, refused by name: pp (the encoder's layers over stages), tp not dividing the encoder's 32
    // heads (WhisperCausalAttention asserts it), the weights (the encoder is not read).
    kvcalc::SizeOptions pp = at(4096);
    pp.pp = 2;
    auto rp = kvcalc::size_model(*m, pp);
    REQUIRE_FALSE(rp.ok());
    CHECK(rp.error().field == "pp");
    kvcalc::json wide = parse(text);
    wide["text_config"]["num_attention_heads"] = 64;
    wide["text_config"]["num_key_value_heads"] = 64;
    auto mw = kvcalc::read_model_text(wide.dump());
    REQUIRE(mw.ok());
    kvcalc::SizeOptions t64 = at(4096);
    t64.tp = 64;
    auto rw = kvcalc::size_model(*mw, t64);
    REQUIRE_FALSE(rw.ok());
    CHECK(rw.error().field == "tp");
    CHECK(rw.error().message.find("encoder_attention_heads") != std::string::npos);
    CHECK_FALSE(kvcalc::estimate_weights(*m).ok());

    // audio_config's five fields are required (no class default taken), is_causal must be true, and
    // block_pool_size above 1.
    for (const char* field : {"encoder_layers", "encoder_attention_heads", "encoder_head_dim",
                              "sliding_window", "block_pool_size"}) {
        INFO(field);
        kvcalc::json c = parse(text);
        c["audio_config"].erase(field);
        auto e = kvcalc::read_model_text(c.dump());
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == std::string("audio_config.") + field);
    }
    for (const auto& [field, value] :
         std::vector<std::pair<std::string, kvcalc::json>>{{"is_causal", false},
                                                           {"block_pool_size", 1},
                                                           {"sliding_window", 0},
                                                           {"encoder_head_dim", "64"}}) {
        INFO(field);
        kvcalc::json c = parse(text);
        c["audio_config"][field] = value;
        auto e = kvcalc::read_model_text(c.dump());
        REQUIRE_FALSE(e.ok());
        CHECK(e.error().field == "audio_config." + field);
    }
    // As many encoder layers as no real model has: named by their own field, at the text model's bound.
    kvcalc::json deep = parse(text);
    deep["audio_config"]["encoder_layers"] = 100001;
    auto ed = kvcalc::read_model_text(deep.dump());
    REQUIRE_FALSE(ed.ok());
    CHECK(ed.error().field == "audio_config.encoder_layers");
    CHECK(ed.error().message ==
          "audio_config.encoder_layers: 100001 layers is beyond any real model (at most 100000)");
    kvcalc::json none = parse(text);
    none.erase("audio_config");
    auto en = kvcalc::read_model_text(none.dump());
    REQUIRE_FALSE(en.ok());
    CHECK(en.error().field == "audio_config");

    // transformers' config.json of the checkpoint is not what vLLM reads (it reads params.json): refused,
    // never sized as a decoder without the encoder.
    auto hf = kvcalc::read_model_text(R"({"architectures": ["VoxtralRealtimeForConditionalGeneration"],
        "model_type": "voxtral_realtime", "downsample_factor": 4,
        "audio_config": {"model_type": "voxtral_realtime_encoder", "hidden_size": 1280, "num_hidden_layers": 32,
            "num_attention_heads": 32, "num_key_value_heads": 32, "head_dim": 64, "sliding_window": 750},
        "text_config": {"model_type": "voxtral_realtime_text", "hidden_size": 3072, "num_hidden_layers": 26,
            "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "sliding_window": 8192}})");
    REQUIRE_FALSE(hf.ok());
    CHECK(hf.error().field == "architectures");
    CHECK(hf.error().message.find("params.json") != std::string::npos);
}
