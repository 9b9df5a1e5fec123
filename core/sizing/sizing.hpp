// KV-cache sizing of a ModelSpec: per token, per sequence (three accountings), per batch,
// per GPU under tensor and pipeline parallelism. Exact uint64 arithmetic throughout.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/model.hpp"
#include "engines/engine.hpp"
#include "engines/llamacpp/llamacpp_cache.hpp"
#include "engines/vllm/vllm_blocks.hpp"

namespace kvcalc {

// llamacpp: what llama.cpp allocates (engine llamacpp only, and its default there).
enum class Accounting { naive, resident, vllm, llamacpp };
const char* accounting_name(Accounting a);

struct KvDtype {
    std::string name;     // "bf16", "fp8", "int4", "fp8_ds_mla", ...
    unsigned bits = 16;   // per element
    bool ds_mla = false;  // fp8_ds_mla: 656 B per token per MLA layer
    std::string source;   // "auto: torch_dtype bfloat16", "--kv-dtype fp8"
};

// `requested` is auto|fp32|fp16|bf16|fp8|fp8_e4m3|fp8_e5m2|int8|int4|fp8_ds_mla (and the
// long spellings float32, float16, bfloat16).
Result<KvDtype> resolve_kv_dtype(const std::string& requested, const ModelSpec& m);

inline constexpr std::uint64_t ds_mla_bytes_per_token = 656;
inline constexpr std::uint64_t default_block_size = 16;  // vLLM's CacheConfig default
inline constexpr std::uint64_t default_max_num_batched_tokens = 8192;

struct SizeOptions {
    std::optional<std::uint64_t> context;  // default: the model's max context
    std::uint64_t batch = 1;
    std::string kv_dtype = "auto";
    // vLLM's attention_config.indexer_kv_dtype (bf16 or fp8): MiniMax-M3's indexer keys.
    std::string indexer_kv_dtype = "bf16";
    std::uint64_t tp = 1;
    std::uint64_t pp = 1;
    std::optional<std::uint64_t> block_size;  // rounds resident tokens; vllm default 16
    Accounting accounting = Accounting::resident;
    std::uint64_t max_num_batched_tokens = default_max_num_batched_tokens;
    std::uint64_t shared_prefix = 0;
    // vLLM's speculative tokens: each Mamba-like layer keeps one state block per draft token
    // besides its own. The model must be the served one (with_speculative_tokens), which has
    // the draft's layers and the longer conv states.
    std::uint64_t speculative_tokens = 0;
    // vLLM's mamba_cache_mode "align" (prefix caching on a hybrid model): one more state block.
    bool mamba_align = false;
    // vLLM's scheduler_config.max_num_encoder_input_tokens: the tokens an encoder-decoder's cross-attention
    // layers hold a request. Required for a model with cross-attention.
    std::optional<std::uint64_t> encoder_tokens;
    // The engine whose allocation is sized: with llamacpp, context is llama.cpp's -c (Ollama's num_ctx),
    // the model must be llama.cpp's view of it (as_served), and batch, tp, pp and vLLM's options do not
    // apply.
    Engine engine = Engine::vllm;
    LlamacppOptions llamacpp;
};

// Figures for one layer group, whole model (tp 1) unless named _per_gpu.
struct GroupFigures {
    std::uint32_t group = 0;                  // index into ModelSpec::groups
    std::uint64_t bytes_per_token_layer = 0;  // one layer, one token
    std::uint64_t bytes_per_token_layer_per_gpu = 0;
    std::uint64_t indexer_bytes_layer = 0;  // of those, an indexer's keys (DeepSeek-V3.2, MiniMax-M3), else 0
    std::uint64_t kv_heads_per_gpu = 0;     // attention kinds
    std::uint64_t resident_tokens = 0;      // per layer, one sequence
    std::uint64_t vllm_block_size = 0;      // after vLLM's page-size alignment, on one GPU (tp)
    std::uint64_t vllm_blocks = 0;          // per layer, one request, at that block size
    std::uint64_t state_bytes_layer = 0;    // linear_state: one layer, one sequence
    std::uint64_t state_bytes_layer_per_gpu = 0;
    std::uint64_t sequence_bytes_naive = 0;  // all layers of the group, one sequence
    std::uint64_t sequence_bytes_resident = 0;
    std::uint64_t sequence_bytes_vllm = 0;
    std::uint64_t sequence_bytes_llamacpp = 0;  // engine llamacpp: what the group's layers allocate
};

struct StageFigures {
    std::uint32_t first_layer = 0;
    std::uint32_t layers = 0;
    std::uint64_t bytes_per_token_per_gpu = 0;
    std::uint64_t kv_bytes_per_gpu = 0;
};

struct SizeResult {
    std::uint64_t context = 0;
    std::string context_source;  // "--context", "max_position_embeddings"
    std::uint64_t batch = 1;
    KvDtype kv_dtype;
    Accounting accounting = Accounting::resident;
    std::uint64_t tp = 1, pp = 1;
    std::uint64_t block_size = 0;       // 0: resident figures not block-rounded
    std::uint64_t vllm_block_size = 0;  // on each GPU: with tp, hybrids align to the per-GPU pages
    std::uint64_t max_num_batched_tokens = 0;
    std::uint64_t shared_prefix = 0;
    std::uint64_t speculative_tokens = 0;
    bool mamba_align = false;
    std::string indexer_kv_dtype;      // a model with indexer keys in that dtype (MiniMax-M3): bf16 or fp8
    std::uint64_t encoder_tokens = 0;  // an encoder-decoder's cross-attention tokens, else 0
    std::uint64_t bytes_per_token = 0;
    std::uint64_t bytes_per_token_per_gpu = 0;  // heaviest pipeline stage, one GPU
    std::uint64_t sequence_bytes_naive = 0;
    std::uint64_t sequence_bytes_resident = 0;  // includes state_bytes
    std::uint64_t sequence_bytes_vllm = 0;      // includes the state pages
    std::uint64_t state_bytes = 0;              // fixed per-sequence state (linear layers)
    std::uint64_t kv_bytes = 0;                 // batch, chosen accounting, whole model
    std::uint64_t kv_bytes_per_gpu = 0;         // heaviest stage, one GPU
    std::uint64_t kv_bytes_deployment = 0;      // summed over all tp x pp GPUs (replicas counted)
    std::vector<GroupFigures> groups;
    std::vector<StageFigures> stages;
    std::vector<Warning> warnings;  // the model's and the sizing's
    // Engine llamacpp: what it allocates, and the settings and rows it was sized with.
    Engine engine = Engine::vllm;
    std::uint64_t sequence_bytes_llamacpp = 0;
    std::optional<LlamacppAllocation> llamacpp;
    std::shared_ptr<const LlamacppPlan> llamacpp_plan;

    std::uint64_t sequence_bytes(Accounting a) const;
};

// The headline figures of one context: what a chart, a table or a search for the longest
// context that fits evaluates many times (SizePlan::figures allocates nothing).
struct SizeFigures {
    std::uint64_t sequence_bytes_naive = 0;
    std::uint64_t sequence_bytes_resident = 0;
    std::uint64_t sequence_bytes_vllm = 0;
    std::uint64_t sequence_bytes_llamacpp = 0;  // engine llamacpp: the whole cache llama.cpp allocates
    std::uint64_t kv_bytes = 0;                 // batch, chosen accounting, whole model
    std::uint64_t kv_bytes_per_gpu = 0;         // heaviest stage, one GPU
    std::uint64_t kv_bytes_deployment = 0;      // all tp x pp GPUs
};

// Everything about sizing one model with one set of options that does not depend on the
// context: the options checked, the KV dtype resolved, each layer group's bytes per token and
// state, vLLM's block layout and padding layers, the pipeline stages. Then any number of
// contexts are evaluated against it. The plan refers to the model: it must outlive the plan.
class SizePlan {
public:
    static Result<SizePlan> make(const ModelSpec& m, const SizeOptions& o);

    // The context the options give, else the model's max context (an error when neither).
    Result<std::uint64_t> default_context() const;
    Result<SizeFigures> figures(std::uint64_t context) const;
    Result<SizeResult> result(std::uint64_t context) const;

    const KvDtype& kv_dtype() const { return dtype_; }
    std::uint64_t bytes_per_token() const { return bytes_per_token_; }
    const LlamacppPlan* llamacpp() const { return llama_.get(); }
    std::uint64_t bytes_per_token_per_gpu() const { return bytes_per_token_per_gpu_; }
    std::uint64_t state_bytes_per_sequence() const { return state_bytes_; }  // fixed (linear layers)

private:
    struct Group {
        std::uint64_t token = 0, token_gpu = 0;  // one layer, one token
        std::uint64_t state = 0, state_gpu = 0;  // one layer, one sequence (linear state)
        std::uint64_t heads_gpu = 0;
        std::uint64_t indexer = 0;  // of token and token_gpu: an indexer's keys
        std::uint64_t padding = 0;  // vLLM's padding layers of this group's kind, whole model
    };
    struct Stage {
        std::uint32_t first_layer = 0, layers = 0;
        std::vector<std::uint64_t> count, padding;  // per group
        std::uint64_t bytes_per_token_per_gpu = 0;
    };
    const ModelSpec* m_ = nullptr;
    SizeOptions o_;
    KvDtype dtype_;
    std::vector<Group> groups_;
    std::vector<Stage> stages_;
    VllmBlockLayout whole_, per_gpu_;
    std::uint64_t bytes_per_token_ = 0, bytes_per_token_per_gpu_ = 0, state_bytes_ = 0;
    std::vector<Warning> warnings_;  // the model's and the options'
    // Engine llamacpp (engines/llamacpp/llamacpp_sizing.cpp): its plan, and the context llama.cpp is asked
    // for when none is given.
    std::shared_ptr<const LlamacppPlan> llama_;
    Sourced llama_default_context_;
    static Result<SizePlan> make_llamacpp(const ModelSpec& m, const SizeOptions& o);
    Result<SizeFigures> evaluate_llamacpp(std::uint64_t context, SizeResult* detail) const;

    struct LayerBytes;
    LayerBytes layer_bytes(std::size_t group, bool per_gpu, std::uint64_t context, std::uint64_t n,
                           std::uint64_t prefix) const;
    // Fills `detail` (groups, stages) when given.
    Result<SizeFigures> evaluate(std::uint64_t context, SizeResult* detail) const;
};

// The context size_model sizes at: the options' (a positive integer up to 2^53 - 1), else
// the model's max context; an error when neither. size_model checks it first: its error is
// the one reported when several options are wrong.
Result<std::uint64_t> size_context(const ModelSpec& m, const SizeOptions& o);

// SizePlan::make and result() at size_context().
Result<SizeResult> size_model(const ModelSpec& m, const SizeOptions& o);

// The model as the options' engine serves it: with vLLM's speculative draft layers, or llama.cpp's view
// of it (engines/llamacpp/llamacpp_model.hpp). What SizePlan::make is given.
Result<ModelSpec> as_served(const ModelSpec& m, const SizeOptions& o);

}  // namespace kvcalc
