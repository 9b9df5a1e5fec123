// The config-class defaults (architectures_table.inc's class_default_rows), every one exercised: for each
// model_type with class defaults, a config of that type with every field the table defaults removed is
// sized, and must give the figures the class's defaults give (the arithmetic beside each). A default
// missing from the table leaves the field missing (an error) or takes the reader's fallback (a different
// figure); a wrong one gives a different figure; a model_type of the table without a case here fails.
#include <set>

#include "config/architectures.hpp"
#include "config/json.hpp"
#include "format.hpp"
#include "support.hpp"

using kvcalc::json;
using kvcalc::LayerKind;
using kvtest::at;
using kvtest::read_file;

namespace {

// Where a case's config comes from: a real file (tests/fixtures/configs or ../shared/configs), or a written
// one (the shape of a published model; labelled so in the case), with model_type / architectures replaced
// where the case says so (a real config of another type of the same family, as no published config of
// this type is stored).
struct Case {
    const char* model_type;
    const char* file;     // "shared:NAME", "fixture:PATH", or "" for `written`
    const char* written;  // the written config's JSON, when file is ""
    const char* text;     // where the text model is: "" the root, else the sub-config's key
    const char* as_arch;  // an architecture to set on the config (a donor of another type), or nullptr
    std::uint64_t layers;
    std::uint64_t bytes_per_token;  // at the default dtype of the config
    std::uint64_t state_bytes;      // one sequence's fixed state, 0 for none
    std::uint64_t max_context;      // 0: the case does not check it (the class has no length default)
    const char* arithmetic;
};

// Falcon-7B-Instruct, GPT-BigCode and the like keep MQA through the class default of multi_query; MLA
// configs are sized per latent: (kv_lora_rank + qk_rope_head_dim) x 2 B a layer.
const Case cases[] = {
    {"llama", "shared:meta-llama--Llama-3.1-8B.json", "", "", nullptr, 32, 524288, 0, 2048,
     "32 layers x 2 x 32 KV heads (= 32 query heads) x (4096 / 32) x 2 B; max 2048"},
    {"mistral", "shared:mistralai--Mistral-7B-v0.1.json", "", "", nullptr, 32, 131072, 0, 131072,
     "32 x 2 x 8 x (4096 / 32) x 2 B, every layer sliding (4096); max 4096 x 32"},
    {"mixtral", "shared:mistralai--Mixtral-8x7B-v0.1.json", "", "", nullptr, 32, 131072, 0, 131072,
     "32 x 2 x 8 x (4096 / 32) x 2 B, no window; max 4096 x 32"},
    {"ministral", "shared:mistralai--Mistral-7B-v0.1.json", "", "", nullptr, 32, 131072, 0, 0,
     "Mistral-7B's config as model_type ministral: 32 x 2 x 8 x 128 x 2 B, every layer sliding (4096)"},
    {"qwen2", "shared:Qwen--Qwen2.5-7B-Instruct.json", "", "", nullptr, 32, 524288, 0, 32768,
     "32 x 2 x 32 KV heads x (4096 / 32) x 2 B, no window (use_sliding_window false); max 32768"},
    {"qwen3", "shared:Qwen--Qwen3-8B.json", "", "", nullptr, 32, 524288, 0, 32768,
     "32 x 2 x 32 x head_dim 128 x 2 B; max 32768"},
    {"qwen3_moe", "shared:Qwen--Qwen3-30B-A3B.json", "", "", nullptr, 24, 49152, 0, 32768,
     "24 x 2 x 4 x head_dim 128 (the config's: the class has none) x 2 B; max 32768"},
    {"qwen3_next", "shared:Qwen--Qwen3-Next-80B-A3B-Instruct.json", "", "", nullptr, 48, 24576,
     36ull * ((4 - 1) * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128) * 2, 0,
     "full_attention_interval 4: 12 of 48 layers full, 12 x 2 x 2 x 256 x 2 B; 36 gated-delta-net states of "
     "conv (4 - 1) x (2 x 16 x 128 + 32 x 128) + 32 x 128 x 128, 2 B each"},
    {"gemma", "fixture:google--gemma-2b-it.json", "", "", nullptr, 28, 458752, 0, 8192,
     "28 x 2 x 16 x 256 x 2 B; max 8192"},
    {"gemma2", "fixture:google--gemma-2-9b-it.json", "", "", nullptr, 26, 106496, 0, 8192,
     "26 x 2 x 4 x 256 x 2 B, 13 sliding (4096) and 13 full; max 8192"},
    {"gemma3_text", "fixture:google--gemma-3-1b-it.json", "", "", nullptr, 26, 106496, 0, 131072,
     "26 x 2 x 4 x 256 x 2 B: 22 sliding (4096), 4 full (layers 6, 12, 18, 24); max 131072"},
    {"gemma3n_text", "",
     R"({"architectures": ["Gemma3nForCausalLM"], "model_type": "gemma3n_text", "torch_dtype": "bfloat16"})",
     "", nullptr, 35, 40960, 0, 32768,
     "written, every field left to Gemma3nTextConfig: 35 layers, full every 5th (7), the last 15 reuse "
     "caches: 20 x 2 x 2 KV heads x 256 x 2 B; max 32768"},
    {"deepseek_v2", "shared:deepseek-ai--DeepSeek-V2-Lite.json", "", "", nullptr, 32, 36864, 0, 2048,
     "32 MLA layers x (512 + 64) x 2 B; max 2048"},
    {"deepseek_v3", "shared:deepseek-ai--DeepSeek-V3.json", "", "", nullptr, 61, 70272, 0, 4096,
     "61 MLA layers x (512 + 64) x 2 B; max 4096"},
    {"gpt_oss", "shared:openai--gpt-oss-20b.json", "", "", nullptr, 36, 73728, 0, 131072,
     "36 x 2 x 8 x 64 x 2 B, 18 sliding (128) and 18 full; max 131072"},
    {"phi3", "fixture:microsoft--Phi-3.5-mini-instruct.json", "", "", nullptr, 32, 393216, 0, 4096,
     "32 x 2 x 32 KV heads (= query heads) x (3072 / 32) x 2 B, no window; max 4096"},
    {"cohere2", "",
     R"({"architectures": ["Cohere2ForCausalLM"], "model_type": "cohere2", "torch_dtype": "bfloat16"})", "",
     nullptr, 40, 1310720, 0, 8192,
     "written, every field left to Cohere2Config: 40 x 2 x 64 KV heads (= query heads) x (8192 / 64) x 2 B, "
     "30 sliding (4096), 10 full; max 8192"},
    {"exaone4", "",
     R"({"architectures": ["Exaone4ForCausalLM"], "model_type": "exaone4", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 524288, 0, 2048,
     "written, every field left to Exaone4Config: 32 x 2 x 32 x (4096 / 32) x 2 B, 24 sliding (4096), 8 "
     "full; max 2048"},
    {"exaone_moe", "",
     R"({"architectures": ["ExaoneMoEForCausalLM"], "model_type": "exaone_moe", "head_dim": 128, "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 2048,
     "written, head_dim 128 given, the rest left to ExaoneMoeConfig: 32 x 2 x 32 x 128 x 2 B, 24 sliding "
     "(4096), 8 full; max 2048"},
    {"olmo3", "",
     R"({"architectures": ["Olmo3ForCausalLM"], "model_type": "olmo3", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 524288, 0, 2048,
     "written, every field left to Olmo3Config: 32 x 2 x 32 KV heads (= query heads) x (4096 / 32) x 2 B, 24 "
     "sliding (4096), 8 full; max 2048"},
    {"afmoe", "",
     R"({"architectures": ["AfmoeForCausalLM"], "model_type": "afmoe", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 262144, 0, 131072,
     "written, every field left to vLLM's AfmoeConfig: 32 x 2 x 16 KV heads (= query heads) x 128 x 2 B, 24 "
     "sliding "
     "(2048), 8 full; max 131072"},
    {"falcon", "shared:reconstructed/tiiuae--falcon-7b-instruct.json", "", "", nullptr, 32, 8192, 0, 0,
     "multi_query true: 32 x 2 x 1 KV head x (4544 / 71) x 2 B"},
    {"RefinedWeb", "fixture:tiiuae--falcon-40b.json", "", "", nullptr, 60, 122880, 0, 0,
     "hidden_size 8192 and no new_decoder_architecture: vLLM's RWConfig sets it, so n_head_kv 8: "
     "60 x 2 x 8 x (8192 / 128) x 2 B"},
    {"RefinedWebModel", "shared:reconstructed/tiiuae--falcon-7b-instruct.json", "", "", "RWForCausalLM", 32,
     8192, 0, 0, "Falcon-7B-Instruct's config as model_type RefinedWebModel: 32 x 2 x 1 x 64 x 2 B"},
    {"gpt_bigcode", "fixture:TheBloke--WizardCoder-15B-1.0-GPTQ.json", "", "", nullptr, 12, 3072, 0, 1024,
     "WizardCoder's config without n_layer, n_head, n_embd and n_positions: GPTBigCodeConfig's 12 x 2 x 1 KV "
     "head (multi_query) x (768 / 12) x 2 B; max 1024"},
    {"dbrx", "", R"({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx", "torch_dtype": "bfloat16"})",
     "", nullptr, 24, 12288, 0, 2048,
     "written, no attn_config: DbrxConfig builds DbrxAttentionConfig(), kv_n_heads 1: 24 x 2 x 1 x (2048 / "
     "16) x 2 B; max 2048"},
    {"jamba", "", R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 262144,
        "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 16384, 28ull * ((4 - 1) * 8192 * 2 + 8192 * 16 * 2), 0,
     "written, Jamba-v0.1's shape: attention on layers 4, 12, 20, 28: 4 x 2 x 8 x 128 x 2 B; 28 Mamba "
     "layers of conv (4 - 1) x 8192 + ssm 8192 x 16 (I = 2 x 4096), 2 B each"},
    {"mamba", "",
     R"({"architectures": ["MambaForCausalLM"], "model_type": "mamba", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 0, 32ull * ((4 - 1) * 1536 * 2 + 1536 * 16 * 2), 0,
     "written, every field left to MambaConfig: 32 layers of conv (4 - 1) x I + ssm I x 16, I = 2 x 768, 2 B "
     "each"},
    {"falcon_mamba", "", R"({"architectures": ["FalconMambaForCausalLM"], "model_type": "falcon_mamba",
        "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 0, 32ull * ((4 - 1) * 1536 * 2 + 1536 * 16 * 2), 0,
     "written, every field left to FalconMambaConfig: as mamba"},
    {"mamba2", "",
     R"({"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "torch_dtype": "bfloat16"})", "",
     nullptr, 64, 0, 64ull * ((4 - 1) * (8192 + 2 * 8 * 128) * 2 + 128 * 64 * 128 * 2), 0,
     "written, every field left to Mamba2Config (64 layers of hidden_size 4096): conv (4 - 1) x (2 x 4096 + "
     "2 "
     "x 8 groups x 128) + ssm 128 heads x 64 x 128, 2 B each"},
    {"bamba", "",
     R"({"architectures": ["BambaForCausalLM"], "model_type": "bamba", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 0, 32ull * ((4 - 1) * (8192 + 2 * 256) * 2 + 128 * 64 * 256 * 2), 262144,
     "written, every field left to BambaConfig: attn_layer_indices None, so all 32 layers are Mamba-2 "
     "(layers_block_type): conv (4 - 1) x (2 x 4096 + 2 x 1 x 256) + ssm 128 x (mamba_d_head \"auto\": 8192 "
     "/ "
     "128) x 256, 2 B each; max 262144"},
    {"granitemoehybrid", "",
     R"({"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "layer_types": ["mamba", "attention", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba"], "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 16384, 31ull * ((4 - 1) * (8192 + 2 * 256) * 2 + 128 * 64 * 256 * 2), 2048,
     "written, 32 layer_types given (attention on layer 1; GraniteMoeHybridConfig leaves it None, which vLLM "
     "cannot load): 2 x 32 KV heads (= query heads) x 128 x 2 B; 31 Mamba-2 layers as bamba; max 2048"},
    {"nemotron_h", "",
     R"({"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "num_hidden_layers": 4,
        "hybrid_override_pattern": "M*M-", "torch_dtype": "bfloat16"})",
     "", nullptr, 4, 4096, 2ull * ((4 - 1) * (128 * 64 + 2 * 8 * 128) * 2 + 128 * 64 * 128 * 4), 4096,
     "written, the layer count and pattern given (the classes disagree on both), the rest left to "
     "NemotronHConfig: 1 attention layer of 2 x 8 x 128 x 2 B; 2 Mamba-2 layers of conv (4 - 1) x (128 heads "
     "x "
     "64 + 2 x 8 groups x 128) in 2 B + ssm 128 x 64 x 128 in float32 (mamba_ssm_cache_dtype); max 4096"},
    {"falcon_h1", "fixture:reconstructed/tiiuae--Falcon-H1-7B-Instruct.json", "", "", nullptr, 32, 0, 0, 0,
     "the Mamba-2 shape from FalconH1Config's defaults (checked in the case)"},
    {"zamba2", "fixture:reconstructed/transformers--Zamba2Config-defaults.json", "", "", nullptr, 54, 0, 0, 0,
     "the file is Zamba2Config's defaults: the same figures (checked in the case)"},
    {"lfm2", "",
     R"({"architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "full_attn_idxs": [2, 5, 8, 10, 12, 14],
        "conv_dim": 2560, "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 15360, 26ull * (3 - 1) * 2560 * 2, 128000,
     "written, full_attn_idxs and conv_dim given (Lfm2Config has no conv_dim), the rest left to Lfm2Config: "
     "6 "
     "attention layers of 2 x 8 x (2560 / 32) x 2 B; 26 short-convolution states of (3 - 1) x 2560, 2 B "
     "each; "
     "max 128000"},
    {"lfm2_moe", "fixture:LiquidAI--LFM2.5-VL-1.6B.json", "", "text_config", nullptr, 16, 0, 0, 0,
     "LFM2.5's text model as model_type lfm2_moe: conv_L_cache 3 (checked in the case)"},
    {"llama4_text", "shared:meta-llama--Llama-4-Scout-17B-16E-Instruct.json", "", "text_config", nullptr, 48,
     0, 0, 0, "attention_chunk_size 8192 as published: the same figures (checked in the case)"},
    {"gpt2", "", R"({"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "torch_dtype": "bfloat16"})",
     "", nullptr, 12, 36864, 0, 1024,
     "written, every field left to its class: 12 x 2 x 12 x (768 / 12) x 2 B; max 1024"},
    {"gptj", "", R"({"architectures": ["GPTJForCausalLM"], "model_type": "gptj", "torch_dtype": "bfloat16"})",
     "", nullptr, 28, 458752, 0, 2048,
     "written, every field left to its class: 28 x 2 x 16 x (4096 / 16) x 2 B; max 2048"},
    {"gpt_neox", "",
     R"({"architectures": ["GPTNeoXForCausalLM"], "model_type": "gpt_neox", "torch_dtype": "bfloat16"})", "",
     nullptr, 44, 1081344, 0, 2048,
     "written, every field left to its class: 44 x 2 x 64 x (6144 / 64) x 2 B; max 2048"},
    {"opt", "", R"({"architectures": ["OPTForCausalLM"], "model_type": "opt", "torch_dtype": "bfloat16"})",
     "", nullptr, 12, 36864, 0, 2048,
     "written, every field left to its class: 12 x 2 x 12 x (768 / 12) x 2 B; max 2048"},
    {"bloom", "fixture:bigscience--bloom-3b.json", "", "", nullptr, 2, 20480, 0, 0,
     "Bloom-3B's config without n_layer and n_head (hidden_size kept: BloomConfig maps it to n_embed, which "
     "kvcalc does not read): 2 x 2 x 8 x (2560 / 8) x 2 B"},
    {"mpt", "", R"({"architectures": ["MptForCausalLM"], "model_type": "mpt", "torch_dtype": "bfloat16"})",
     "", nullptr, 24, 196608, 0, 2048,
     "written, every field left to its class: no attn_config: 24 x 2 x 16 KV heads (one per query head) x "
     "(2048 / 16) x 2 B; max 2048"},
    {"phi", "", R"({"architectures": ["PhiForCausalLM"], "model_type": "phi", "torch_dtype": "bfloat16"})",
     "", nullptr, 24, 196608, 0, 2048,
     "written, every field left to its class: 24 x 2 x 32 KV heads (= query heads) x (2048 / 32) x 2 B; max "
     "2048"},
    {"persimmon", "",
     R"({"architectures": ["PersimmonForCausalLM"], "model_type": "persimmon", "torch_dtype": "bfloat16"})",
     "", nullptr, 36, 589824, 0, 16384,
     "written, every field left to its class: 36 x 2 x 64 x (4096 / 64) x 2 B; max 16384"},
    {"granite", "",
     R"({"architectures": ["GraniteForCausalLM"], "model_type": "granite", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 524288, 0, 2048,
     "written, every field left to its class: 32 x 2 x 32 KV heads (= query heads) x (4096 / 32) x 2 B; max "
     "2048"},
    {"granitemoe", "",
     R"({"architectures": ["GraniteMoeForCausalLM"], "model_type": "granitemoe", "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 2048,
     "written, every field left to its class: 32 x 2 x 32 x 128 x 2 B; max 2048"},
    {"smollm3", "",
     R"({"architectures": ["SmolLM3ForCausalLM"], "model_type": "smollm3", "torch_dtype": "bfloat16"})", "",
     nullptr, 36, 73728, 0, 32768,
     "written, every field left to its class: 36 x 2 x 4 x (2048 / 16) x 2 B; max 32768"},
    {"glm", "", R"({"architectures": ["GlmForCausalLM"], "model_type": "glm", "torch_dtype": "bfloat16"})",
     "", nullptr, 40, 40960, 0, 131072,
     "written, every field left to its class: 40 x 2 x 2 x head_dim 128 x 2 B; max 131072"},
    {"glm4", "", R"({"architectures": ["Glm4ForCausalLM"], "model_type": "glm4", "torch_dtype": "bfloat16"})",
     "", nullptr, 40, 40960, 0, 131072,
     "written, every field left to its class: 40 x 2 x 2 x head_dim 128 x 2 B; max 131072"},
    {"glm4_moe", "",
     R"({"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe", "head_dim": 128, "torch_dtype": "bfloat16"})",
     "", nullptr, 46, 188416, 0, 131072,
     "written, every field left to its class: head_dim 128 given (Glm4MoeConfig has none, and 4096 / 96 does "
     "not divide): 46 x 2 x 8 x 128 x 2 B; max 131072"},
    {"olmo", "", R"({"architectures": ["OlmoForCausalLM"], "model_type": "olmo", "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 2048,
     "written, every field left to its class: 32 x 2 x 32 x 128 x 2 B; max 2048"},
    {"olmo2", "",
     R"({"architectures": ["Olmo2ForCausalLM"], "model_type": "olmo2", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 524288, 0, 2048,
     "written, every field left to its class: 32 x 2 x 32 x 128 x 2 B; max 2048"},
    {"olmoe", "",
     R"({"architectures": ["OlmoeForCausalLM"], "model_type": "olmoe", "torch_dtype": "bfloat16"})", "",
     nullptr, 16, 131072, 0, 4096,
     "written, every field left to its class: 16 x 2 x 16 x (2048 / 16) x 2 B; max 4096"},
    {"starcoder2", "",
     R"({"architectures": ["Starcoder2ForCausalLM"], "model_type": "starcoder2", "torch_dtype": "bfloat16"})",
     "", nullptr, 30, 30720, 0, 4096,
     "written, every field left to its class: 30 x 2 x 2 x (3072 / 24) x 2 B; max 4096"},
    {"stablelm", "",
     R"({"architectures": ["StableLmForCausalLM"], "model_type": "stablelm", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 327680, 0, 4096,
     "written, every field left to its class: 32 x 2 x 32 x (2560 / 32) x 2 B; max 4096"},
    {"cohere", "",
     R"({"architectures": ["CohereForCausalLM"], "model_type": "cohere", "torch_dtype": "bfloat16"})", "",
     nullptr, 40, 1310720, 0, 8192,
     "written, every field left to its class: 40 x 2 x 64 x (8192 / 64) x 2 B; max 8192"},
    {"nemotron", "",
     R"({"architectures": ["NemotronForCausalLM"], "model_type": "nemotron", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 786432, 0, 4096,
     "written, every field left to its class: 32 x 2 x 48 KV heads (no KV-head field: one per query head) x "
     "(6144 / 48) x 2 B; max 4096"},
    {"ernie4_5", "",
     R"({"architectures": ["Ernie4_5ForCausalLM"], "model_type": "ernie4_5", "torch_dtype": "bfloat16"})", "",
     nullptr, 18, 18432, 0, 131072,
     "written, every field left to its class: 18 x 2 x 2 x head_dim 128 x 2 B; max 131072"},
    {"ernie4_5_moe", "",
     R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "torch_dtype": "bfloat16"})",
     "", nullptr, 28, 57344, 0, 131072,
     "written, every field left to its class: 28 x 2 x 4 x (2560 / 20) x 2 B; max 131072"},
    {"hunyuan_v1_dense", "",
     R"({"architectures": ["HunYuanDenseV1ForCausalLM"], "model_type": "hunyuan_v1_dense", "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 2048,
     "written, every field left to its class: 32 x 2 x 32 x (4096 / 32) x 2 B; max 2048"},
    {"hunyuan_v1_moe", "",
     R"({"architectures": ["HunYuanMoEV1ForCausalLM"], "model_type": "hunyuan_v1_moe", "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 2048,
     "written, every field left to its class: 32 x 2 x 32 x (4096 / 32) x 2 B; max 2048"},
    {"minimax", "",
     R"({"architectures": ["MiniMaxText01ForCausalLM"], "model_type": "minimax", "head_dim": 128, "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 65536, 16ull * 32 * 128 * 128 * 2, 131072,
     "written, head_dim 128 given (vLLM's lightning state reads it), the rest left to MiniMaxConfig, whose "
     "layer_types is full where (i + 1) % 2: 16 full layers x 2 x 8 x (4096 / 32) x 2 B; 16 lightning states "
     "of 32 heads x 128 x 128, 2 B each; max 4096 x 32"},
    {"qwen3_5_text", "",
     R"({"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 32, 32768, 24ull * ((4 - 1) * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128) * 2,
     32768,
     "written, every text field left to Qwen3_5TextConfig: full_attention_interval 4, 8 of 32 layers full, 8 "
     "x 2 x 4 x 256 x 2 B; 24 gated-delta-net states of conv (4 - 1) x (2 x 16 x 128 + 32 x 128) + 32 x 128 "
     "x 128, 2 B each; max 32768"},
    {"qwen3_5_moe_text", "",
     R"({"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 40, 20480, 30ull * ((4 - 1) * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128) * 2,
     32768,
     "written, every text field left to Qwen3_5MoeTextConfig: 10 of 40 layers full, 10 x 2 x 2 x 256 x 2 B; "
     "30 gated-delta-net states as qwen3_5_text; max 32768"},
    {"gemma4_text", "",
     R"({"architectures": ["Gemma4ForCausalLM"], "model_type": "gemma4_text", "global_head_dim": 512, "torch_dtype": "bfloat16"})",
     "", nullptr, 30, 143360, 0, 131072,
     "written, global_head_dim 512 given (the class's versions differ on it), the rest left to "
     "Gemma4TextConfig, whose layer_types is full every 6th layer and on the last: 25 sliding (512) x 2 x 4 "
     "x "
     "256 x 2 B + 5 full x 2 x 4 x 512 x 2 B; max 131072"},
    {"kimi_linear", "",
     R"({"architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear", "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "mla_use_nope": true, "linear_attn_config": {"full_attn_layers": [4, 8, 12, 16, 20, 24, 28, 32], "kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26, 27, 29, 30, 31], "head_dim": 128, "num_heads": 32, "short_conv_kernel_size": 4}, "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 36864, 0, 0,
     "written, Kimi-Linear's MLA fields over KimiLinearConfig's 32 layers, linear_attn_config left to the "
     "class (None: no KDA layer): 32 MLA layers x (512 + 64) x 2 B"},
    {"seed_oss", "",
     R"({"architectures": ["SeedOssForCausalLM"], "model_type": "seed_oss", "torch_dtype": "bfloat16"})", "",
     nullptr, 64, 262144, 0, 524288,
     "written, every field left to its class: 64 x 2 x 8 x 128 x 2 B; max 524288"},
    {"apertus", "",
     R"({"architectures": ["ApertusForCausalLM"], "model_type": "apertus", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 524288, 0, 65536,
     "written, every field left to its class: 32 x 2 x 32 KV heads (= query heads) x (4096 / 32) x 2 B; max "
     "65536"},
    {"arcee", "",
     R"({"architectures": ["ArceeForCausalLM"], "model_type": "arcee", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 327680, 0, 4096,
     "written, every field left to its class: 32 x 2 x 32 x (2560 / 32) x 2 B; max 4096"},
    {"dots1", "",
     R"({"architectures": ["Dots1ForCausalLM"], "model_type": "dots1", "torch_dtype": "bfloat16"})", "",
     nullptr, 62, 1142784, 0, 2048,
     "written, every field left to Dots1Config: sliding_window 4096 and layer_types all full "
     "(max_window_layers "
     "62 of 62), one kind, so vLLM slides every layer: 62 x 2 x 32 x (4608 / 32) x 2 B; max 2048"},
    {"flex_olmo", "",
     R"({"architectures": ["FlexOlmoForCausalLM"], "model_type": "flex_olmo", "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 4096,
     "written, every field left to vLLM's FlexOlmoConfig: 32 x 2 x 32 x (4096 / 32) x 2 B; max 4096"},
    {"phimoe", "",
     R"({"architectures": ["PhiMoEForCausalLM"], "model_type": "phimoe", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 131072, 0, 131072,
     "written, every field left to its class: 32 x 2 x 8 x (4096 / 32) x 2 B, no window; max 4096 x 32"},
    {"qwen2_moe", "",
     R"({"architectures": ["Qwen2MoeForCausalLM"], "model_type": "qwen2_moe", "torch_dtype": "bfloat16"})",
     "", nullptr, 24, 196608, 0, 32768,
     "written, every field left to its class: use_sliding_window false, 24 x 2 x 16 x (2048 / 16) x 2 B; max "
     "32768"},
    {"chameleon", "",
     R"({"architectures": ["ChameleonForConditionalGeneration"], "model_type": "chameleon", "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 4096,
     "written, every field left to its class: 32 x 2 x 32 x 128 x 2 B; max 4096"},
    {"qwen2_vl_text", "",
     R"({"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 80, 327680, 0, 32768,
     "written, every text field left to Qwen2VLTextConfig: 80 x 2 x 8 x (8192 / 64) x 2 B, no window; max "
     "32768"},
    {"qwen2_5_vl_text", "",
     R"({"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 80, 327680, 0, 32768,
     "written, every text field left to Qwen2_5_VLTextConfig: as qwen2_vl_text"},
    {"qwen3_vl_text", "",
     R"({"architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 32, 524288, 0, 128000,
     "written, every text field left to Qwen3VLTextConfig: 32 x 2 x 32 x head_dim 128 x 2 B; max 128000"},
    {"qwen3_vl_moe_text", "",
     R"({"architectures": ["Qwen3VLMoeForConditionalGeneration"], "model_type": "qwen3_vl_moe", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 24, 196608, 0, 128000,
     "written, every text field left to Qwen3VLMoeTextConfig: 24 x 2 x 16 x (2048 / 16) x 2 B; max 128000"},
    {"glm4v_text", "",
     R"({"architectures": ["Glm4vForConditionalGeneration"], "model_type": "glm4v", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 40, 40960, 0, 32768,
     "written, every text field left to Glm4vTextConfig: 40 x 2 x 2 x (4096 / 32) x 2 B; max 32768"},
    {"glm4v_moe_text", "",
     R"({"architectures": ["Glm4vMoeForConditionalGeneration"], "model_type": "glm4v_moe", "text_config": {"head_dim": 128}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 46, 188416, 0, 65536,
     "written, head_dim 128 given (Glm4vMoeTextConfig has none, and 4096 / 96 does not divide), the rest "
     "left "
     "to the class: 46 x 2 x 8 x 128 x 2 B; max 65536"},
    {"glm4_moe_lite", "",
     R"({"architectures": ["Glm4MoeLiteForCausalLM"], "model_type": "glm4_moe_lite", "torch_dtype": "bfloat16"})",
     "", nullptr, 47, 54144, 0, 202752,
     "written, every field left to its class: 47 MLA layers x (512 + 64) x 2 B; max 202752"},
    {"minimax_m2", "",
     R"({"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2", "torch_dtype": "bfloat16"})",
     "", nullptr, 62, 253952, 0, 196608,
     "written, every field left to its class: 62 x 2 x 8 x 128 x 2 B; max 196608"},
    {"jais2", "",
     R"({"architectures": ["Jais2ForCausalLM"], "model_type": "jais2", "torch_dtype": "bfloat16"})", "",
     nullptr, 32, 425984, 0, 8192,
     "written, every field left to its class: 32 x 2 x 26 KV heads (= query heads) x (3328 / 26) x 2 B; max "
     "8192"},
    {"aria_text", "",
     R"({"architectures": ["AriaForConditionalGeneration"], "model_type": "aria", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 32, 524288, 0, 2048,
     "written, every text field left to AriaTextConfig: 32 x 2 x 32 x (4096 / 32) x 2 B; max 2048"},
    {"ernie4_5_vl_moe_text", "",
     R"({"architectures": ["Ernie4_5_VLMoeForConditionalGeneration"], "model_type": "ernie4_5_vl_moe", "text_config": {}, "torch_dtype": "bfloat16"})",
     "text_config", nullptr, 28, 57344, 0, 131072,
     "written, every text field left to Ernie4_5_VL_MoeTextConfig: 28 x 2 x 4 x (2560 / 20) x 2 B; max "
     "131072"},
    {"granitemoeshared", "",
     R"({"architectures": ["GraniteMoeSharedForCausalLM"], "model_type": "granitemoeshared", "torch_dtype": "bfloat16"})",
     "", nullptr, 32, 524288, 0, 2048,
     "written, every field left to its class: 32 x 2 x 32 KV heads (= query heads) x (4096 / 32) x 2 B; max "
     "2048"},
    {"ministral3", "",
     R"({"architectures": ["Ministral3ForCausalLM"], "model_type": "ministral3", "torch_dtype": "bfloat16"})",
     "", nullptr, 34, 139264, 0, 262144,
     "written, every field left to its class: 34 x 2 x 8 x 128 x 2 B, no window; max 262144"},
};

json load(const Case& c) {
    std::string text = c.written;
    const std::string file = c.file;
    if (file.rfind("shared:", 0) == 0) text = kvtest::shared_config(file.substr(7));
    if (file.rfind("fixture:", 0) == 0)
        text = read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/configs/" + file.substr(8));
    auto j = kvcalc::parse_json_text(text);
    REQUIRE(j.ok());
    return std::move(j.value());
}

// The config as the case means it: its text model carries the case's model_type, every field the table
// defaults for it is removed.
json stripped(const Case& c, std::vector<std::string>& removed) {
    json root = load(c);
    json& text = c.text[0] ? root[c.text] : root;
    text["model_type"] = c.model_type;
    if (c.as_arch) root["architectures"] = json::array({c.as_arch});
    for (const kvcalc::ClassDefault& row : kvcalc::class_default_table()) {
        if (std::string(row.model_type) != c.model_type) continue;
        const kvcalc::ClassDefault* d = &row;
        const std::string field = d->field;
        const std::size_t dot = field.find('.');
        json& holder = dot == std::string::npos ? text : text[field.substr(0, dot)];
        const std::string key = dot == std::string::npos ? field : field.substr(dot + 1);
        if (holder.is_object() && holder.erase(key)) removed.push_back(field);
    }
    return root;
}

}  // namespace

TEST_CASE("every config-class default: a config without the fields sizes as the class's defaults give") {
    std::set<std::string> covered;
    for (const Case& c : cases) {
        INFO(c.model_type << " (" << (c.file[0] ? c.file : "written") << "): " << c.arithmetic);
        covered.insert(c.model_type);
        std::vector<std::string> removed;
        auto m = kvcalc::read_model(stripped(c, removed));
        INFO((m ? "" : m.error().message));
        REQUIRE(m.ok());
        CHECK(m->model_type == c.model_type);
        CHECK(m->num_layers.value == c.layers);
        auto r = kvcalc::size_model(*m, at(4096));
        INFO((r ? "" : r.error().message));
        REQUIRE(r.ok());
        if (c.bytes_per_token || c.state_bytes) {
            CHECK(r->bytes_per_token == c.bytes_per_token);
            CHECK(r->state_bytes == c.state_bytes);
        }
        if (c.max_context) {
            CHECK(m->max_context.value == c.max_context);
            CHECK(m->max_context.source.find("(default of ") != std::string::npos);
        }
        // The layer count, KV heads and head size of a literal default are read from the table, and say so
        // (a head_dim default equal to hidden_size / heads would not show in the figures).
        const auto said = [&](const kvcalc::ClassDefault* d) {
            return kvcalc::format("{}{}{} {} (default of {}: {})", c.text, c.text[0] ? "." : "", d->field,
                                  d->value, d->config_class, d->meaning);
        };
        for (const kvcalc::ClassDefault& row : kvcalc::class_defaults(c.model_type)) {
            const kvcalc::ClassDefault* d = &row;
            if (!d->value) continue;
            const std::string f = d->field;
            if (f == "num_hidden_layers") CHECK(m->num_layers.source == said(d));
            for (const auto& g : m->groups) {
                if (g.kind != LayerKind::full_attention && g.kind != LayerKind::sliding_window) continue;
                if (f == "num_key_value_heads") CHECK(g.kv_heads.source == said(d));
                // Gemma 4's full layers take their own size, global_head_dim (given in the case).
                if (f == "head_dim" && g.k_head_dim.source != "global_head_dim")
                    CHECK(g.k_head_dim.source == said(d));
            }
        }
    }
    // Every model_type of the table has a case.
    for (const kvcalc::ClassDefault& d : kvcalc::class_default_table()) {
        INFO(d.model_type << " " << d.field);
        CHECK(covered.count(d.model_type) == 1);
    }
}

TEST_CASE("Qwen2Config's and Qwen3Config's window defaults: sliding_window 4096 from max_window_layers 28") {
    // With use_sliding_window true and the rest left to the class, layers 28 to 31 of 32 would slide: vLLM
    // refuses a window on only some layers of these, and kvcalc with it, naming the class's numbers.
    for (const char* type : {"qwen2", "qwen3"}) {
        auto m = kvcalc::read_model_text(
            std::string(R"({"architectures": ["Qwen2ForCausalLM"], "model_type": ")") + type +
            R"(", "use_sliding_window": true})");
        INFO(type);
        REQUIRE(!m.ok());
        CHECK(m.error().message.find("max_window_layers 28 of 32 layers") != std::string::npos);
    }
}

TEST_CASE("the state-size defaults give the class's state shapes") {
    // Cases whose figures depend on several defaults at once: the state shapes, checked field by field.
    const auto spec = [](const char* model_type) {
        for (const Case& c : cases)
            if (std::string(c.model_type) == model_type) {
                std::vector<std::string> removed;
                auto m = kvcalc::read_model(stripped(c, removed));
                INFO(model_type << ": " << (m ? "" : m.error().message));
                REQUIRE(m.ok());
                return std::move(m.value());
            }
        FAIL(model_type);
        return kvcalc::ModelSpec{};
    };
    const auto state = [](const kvcalc::ModelSpec& m) {
        for (const auto& g : m.groups)
            if (g.kind == LayerKind::linear_state) return g.state;
        return kvcalc::StateShape{};
    };
    SECTION(
        "Falcon-H1: FalconH1Config's mamba_d_ssm 1024, 128 heads of 'auto' (1024 / 128 = 8), d_state 256") {
        auto s = state(spec("falcon_h1"));
        CHECK(s.conv_rows == 4 - 1);
        CHECK(s.conv_channels == 1024 + 2 * 1 * 256);
        CHECK(s.ssm_heads == 128);
        CHECK(s.ssm_head_elements == 8 * 256);
    }
    SECTION("Zamba2: d_state 64, d_conv 4, I = 2 x 2560, 1 group, 8 heads of 5120 / 8") {
        auto s = state(spec("zamba2"));
        CHECK(s.conv_rows == 4 - 1);
        CHECK(s.conv_channels == 2 * 2560 + 2 * 1 * 64);
        CHECK(s.ssm_heads == 8);
        CHECK(s.ssm_head_elements == (2 * 2560 / 8) * 64);
    }
    SECTION("Nemotron-H: vLLM's NemotronHConfig keeps the SSM state in float32") {
        CHECK(state(spec("nemotron_h")).ssm_bits == 32);
    }
    SECTION("LFM2 and LFM2-MoE: conv_L_cache 3 keeps 2 columns of hidden_size") {
        for (const char* t : {"lfm2", "lfm2_moe"}) {
            auto s = state(spec(t));
            CHECK(s.conv_rows == 3 - 1);
        }
    }
    SECTION("Llama 4: attention_chunk_size 8192 on the RoPE layers") {
        auto m = spec("llama4_text");
        for (const auto& g : m.groups)
            if (g.kind == LayerKind::chunked_local)
                CHECK(g.window.source ==
                      "text_config.attention_chunk_size 8192 (default of Llama4TextConfig: the "
                      "chunk of local attention)");
        CHECK(m.count(LayerKind::chunked_local) == 36);  // 48 layers, every 4th global
    }
}

TEST_CASE("a derived default is the reader's own derivation, and a null field takes it too") {
    // LlamaConfig: num_key_value_heads None -> num_attention_heads; head_dim None -> hidden_size // heads.
    for (const char* text : {R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                 "num_attention_heads": 40, "hidden_size": 5120, "num_hidden_layers": 2})",
                             R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                                 "num_attention_heads": 40, "hidden_size": 5120, "num_hidden_layers": 2,
                                 "num_key_value_heads": null, "head_dim": null})"}) {
        auto m = kvcalc::read_model_text(text);
        REQUIRE(m.ok());
        auto r = kvcalc::size_model(*m, at(4096));
        REQUIRE(r.ok());
        CHECK(r->bytes_per_token == 2 * 2 * 40 * (5120 / 40) * 2);  // 40,960: MHA of 128
        CHECK(m->max_context.source ==
              "max_position_embeddings 2048 (default of LlamaConfig: the max length)");
    }
    // Qwen2Config's num_key_value_heads is 32 when absent, num_attention_heads when null.
    auto absent = kvcalc::read_model_text(R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
        "num_attention_heads": 64, "hidden_size": 8192, "num_hidden_layers": 2})");
    REQUIRE(absent.ok());
    CHECK(absent->groups[0].kv_heads.value == 32);
    auto null = kvcalc::read_model_text(R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
        "num_attention_heads": 64, "hidden_size": 8192, "num_hidden_layers": 2, "num_key_value_heads": null})");
    REQUIRE(null.ok());
    CHECK(null->groups[0].kv_heads.value == 64);
    // Every derived row is one of the two derivations the reader makes.
    for (const kvcalc::ClassDefault& d : kvcalc::class_default_table())
        if (!d.value) {
            INFO(d.model_type << " " << d.field);
            const std::string f = d.field;
            CHECK((f == "num_key_value_heads" || f == "head_dim" || f == "layer_types" ||
                   f == "attn_layer_indices"));
        }
}

TEST_CASE("Gemma 3 4B's config, whose text_config leaves its heads to Gemma3TextConfig, is sized") {
    // google/gemma-3-4b-it's text_config names hidden_size, num_hidden_layers and sliding_window only
    // (tests/fixtures/configs/SOURCES.md); kvcalc refused it for num_attention_heads before the class's
    // defaults were read: 8 heads, 4 KV heads of head_dim 256.
    auto m = kvcalc::read_model_text(
        read_file(std::string(KVCALC_SOURCE_DIR) +
                  "/tests/fixtures/configs/reconstructed/google--gemma-3-4b-it-written.json"));
    INFO((m ? "" : m.error().message));
    REQUIRE(m.ok());
    CHECK(m->count(LayerKind::full_attention) == 5);   // layers 6, 12, 18, 24, 30 of 34
    CHECK(m->count(LayerKind::sliding_window) == 29);  // of 1,024 tokens
    CHECK(m->max_context.value == 131072);             // Gemma3TextConfig's max_position_embeddings
    auto r = kvcalc::size_model(*m, at(4096));
    REQUIRE(r.ok());
    CHECK(r->bytes_per_token == 34 * 2 * 4 * 256 * 2);                              // 139,264
    CHECK(r->sequence_bytes_resident == 5ull * 4096 * 4096 + 29ull * 1024 * 4096);  // 205,520,896
    for (const auto& g : m->groups) {
        CHECK(g.kv_heads.source ==
              "text_config.num_key_value_heads 4 (default of Gemma3TextConfig: the KV heads)");
        CHECK(g.k_head_dim.source == "text_config.head_dim 256 (default of Gemma3TextConfig: the head size)");
    }
}

TEST_CASE("DBRX's KV heads come from the table's DbrxAttentionConfig row, with attn_config or without") {
    // DbrxConfig builds DbrxAttentionConfig() when attn_config is absent and
    // DbrxAttentionConfig(**attn_config) when given: kv_n_heads 1 either way unless the config says
    // otherwise.
    for (const char* attn : {"", R"(, "attn_config": {})", R"(, "attn_config": {"clip_qkv": 8})"}) {
        auto m = kvcalc::read_model_text(
            std::string(R"({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx",
            "d_model": 6144, "n_heads": 48, "n_layers": 40)") +
            attn + "}");
        INFO(attn);
        REQUIRE(m.ok());
        CHECK(m->groups[0].kv_heads.value == 1);
        CHECK(m->groups[0].kv_heads.source ==
              "attn_config.kv_n_heads 1 (default of DbrxAttentionConfig: the KV heads)");
    }
    auto eight = kvcalc::read_model_text(R"({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx",
        "d_model": 6144, "n_heads": 48, "n_layers": 40, "attn_config": {"kv_n_heads": 8}})");
    REQUIRE(eight.ok());
    CHECK(eight->groups[0].kv_heads.value == 8);
    CHECK(eight->groups[0].kv_heads.source == "attn_config.kv_n_heads");
}
