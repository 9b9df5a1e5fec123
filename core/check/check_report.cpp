// The check, decision by decision: which pool, which engine, which context and block, the
// pool in tokens (and bytes), how vLLM admits a request, then the verdict and its report.
#include "check/check_report.hpp"

#include <algorithm>

#include "check/check.hpp"
#include "check/check_log.hpp"
#include "check/engine_log.hpp"
#include "check/gpu_presets.hpp"
#include "engines/llamacpp/llamacpp_check.hpp"
#include "engines/sglang/sglang_pool.hpp"
#include "report.hpp"
#include "sizing/checked.hpp"
#include "sizing/speculative.hpp"
#include "sizing/units.hpp"

namespace kvcalc {
namespace {

enum class PoolSource { tokens, log, gpu };

// Exactly one source of the pool; the GPU's memory options only with a GPU.
Result<PoolSource> choose_pool_source(const Options& o) {
    const bool by_gpu = o.gpu || o.gpu_memory;
    int sources = (o.pool_tokens ? 1 : 0) + (o.engine_log ? 1 : 0) + (by_gpu ? 1 : 0);
    if (sources == 0)
        return fail(
            code::bad_option, "pool_tokens",
            "no pool: give pool_tokens, engine_log (the engine's startup log), or gpu (a GPU preset, or "
            "gpu_memory) to derive it");
    if (sources > 1)
        return fail(code::bad_option, o.pool_tokens ? "pool_tokens" : "engine_log",
                    "give one pool source: pool_tokens, engine_log or gpu/gpu_memory, not several");
    if (!by_gpu) {
        for (auto [set, key] : {std::pair{o.gpu_memory_utilization.has_value(), "gpu_memory_utilization"},
                                std::pair{o.mem_fraction_static.has_value(), "mem_fraction_static"},
                                std::pair{o.activation_peak.has_value(), "activation_peak"},
                                std::pair{o.non_torch.has_value(), "non_torch"},
                                std::pair{o.gpu_count.has_value(), "gpu_count"}})
            if (set)
                return field_error(code::bad_option, key,
                                   "applies only when the pool is derived from a GPU (gpu or gpu_memory)");
    }
    return o.pool_tokens ? PoolSource::tokens : o.engine_log ? PoolSource::log : PoolSource::gpu;
}

struct Parallelism {
    std::uint64_t tp = 1, pp = 1;
};

// tp and pp as given, else as the engine log states them; gpu_count stands for tp x pp.
Result<Parallelism> read_parallelism(const Options& o, const EngineLog& log, std::vector<Warning>& warnings) {
    Parallelism p{o.tp.value_or(1), o.pp.value_or(1)};
    auto from_log = [&](const char* name, const std::optional<std::uint64_t>& given,
                        const std::optional<LogCount>& said, const std::string& what, std::uint64_t& value) {
        if (!said) return;
        if (!given && !o.gpu_count) {
            value = said->value;
        } else if (given && *given != said->value) {
            warnings.push_back(
                {name, format("the engine log states {} {} (line {}, {}); checked with {} {} as given", name,
                              grouped(said->value), said->line, what, name, grouped(*given))});
        }
    };
    from_log("tp", o.tp, log.tp, log.tp_what, p.tp);
    from_log("pp", o.pp, log.pp, log.pp_what, p.pp);
    if (!o.tp && !o.gpu_count && !log.tp && log.tp_ranks_seen > 1) {
        p.tp = log.tp_ranks_seen;
        warnings.push_back(
            {"tp", format("tp {} read from the log's rank prefixes (TP0 to TP{}), which state no tensor "
                          "parallel size: give tp if the deployment has more ranks",
                          grouped(p.tp), grouped(p.tp - 1))});
    } else if (!o.tp && !o.gpu_count && !log.tp && log.tp_rank_max > 1) {
        warnings.push_back(
            {"tp", format("the log shows rank TP{} (so tp is at least {}) but states no tensor parallel "
                          "size: tp 1 assumed; give tp as deployed",
                          grouped(log.tp_rank_max - 1), grouped(log.tp_rank_max))});
    }
    if (o.gpu_count) {
        if (o.tp && mul(*o.tp, p.pp) != opt_u64(*o.gpu_count))
            return fail(code::bad_option, "gpu_count", "gpu_count {} is not tp {} x pp {}",
                        grouped(*o.gpu_count), grouped(*o.tp), grouped(p.pp));
        if (!o.tp) {
            if (*o.gpu_count % p.pp != 0)
                return fail(code::bad_option, "gpu_count", "gpu_count {} is not a multiple of pp {}",
                            grouped(*o.gpu_count), grouped(p.pp));
            p.tp = *o.gpu_count / p.pp;
        }
    }
    return p;
}

// Given, else the log's, else vLLM (SGLang when only its mem_fraction_static is given).
Result<Engine> choose_engine(const Options& o, const EngineLog& log) {
    if (o.engine && !log.engine.empty() && log.engine != *o.engine)
        return fail(code::bad_option, "engine", "engine {} given, but the engine log is {}'s", *o.engine,
                    log.engine);
    Engine engine = o.engine                 ? *parse_engine(*o.engine)
                    : log.engine == "sglang" ? Engine::sglang
                    : o.mem_fraction_static  ? Engine::sglang
                                             : Engine::vllm;
    if (o.gpu_memory_utilization && engine == Engine::sglang)
        return fail(code::bad_option, "gpu_memory_utilization",
                    "gpu_memory_utilization is vLLM's; SGLang's is mem_fraction_static");
    if (o.mem_fraction_static && engine == Engine::vllm)
        return fail(code::bad_option, "mem_fraction_static",
                    "mem_fraction_static is SGLang's; vLLM's is gpu_memory_utilization");
    return engine;
}

// The advertised context: given, else the one the engine logged.
Result<Sourced> advertised_context(const Options& o, const EngineLog& log) {
    if (o.max_context) return Sourced{*o.max_context, "max_context"};
    if (log.max_model_len)
        return Sourced{log.max_model_len->value, format("the engine log: {} (line {})",
                                                        log.max_model_len_what, log.max_model_len->line)};
    return field_error(code::missing_field, "max_context",
                       "missing (the context the deployment advertises, e.g. vLLM's --max-model-len; an "
                       "engine log can give it too)");
}

// The KV dtype the engine log states: its kv_cache_dtype, or for "auto" a float32 model's
// (vLLM keeps the cache in the model's dtype; kvcalc's own auto serves float32 in 16-bit).
std::optional<Sourced> log_kv_dtype(const EngineLog& log, std::string& name) {
    if (!log.kv_cache_dtype.empty() && log.kv_cache_dtype != "auto") {
        name = log.kv_cache_dtype == "fp8_e4m3" || log.kv_cache_dtype == "fp8_e5m2" ||
                       log.kv_cache_dtype == "fp8"
                   ? log.kv_cache_dtype
               : log.kv_cache_dtype == "bfloat16" ? "bf16"
               : log.kv_cache_dtype == "float16"  ? "fp16"
                                                  : log.kv_cache_dtype;
        return Sourced{0, format("the engine log: kv_cache_dtype {} (line {})", log.kv_cache_dtype,
                                 log.kv_cache_dtype_line)};
    }
    if (log.engine == "vllm" && log.model_dtype == "float32") {
        name = "fp32";
        return Sourced{0, format("the engine log: dtype float32 with kv_cache_dtype auto (line {})",
                                 log.model_dtype_line)};
    }
    return std::nullopt;
}

// The speculative tokens: given, else the engine log's arguments'.
std::uint64_t speculative_tokens(const Options& o, const EngineLog& log) {
    if (o.num_speculative_tokens) return *o.num_speculative_tokens;
    return log.num_speculative_tokens ? log.num_speculative_tokens->value : 0;
}

// vLLM's Mamba cache mode as the check applies it: given, else the engine log's. Mode "all" is
// refused (kvcalc does not model a state block per block_size tokens); prefix caching with no
// mode stated is said, since vLLM then picks align or all by model.
Result<bool> check_mamba_mode(const Options& o, const EngineLog& log, const ModelSpec& m,
                              std::vector<Warning>& warnings) {
    if (o.mamba_cache_mode || !m.has(LayerKind::linear_state)) return true;
    if (log.mamba_cache_mode == "all")
        return fail(code::invalid_value, "mamba_cache_mode",
                    "the engine log says mamba_cache_mode all (line {}): kvcalc does not model its state "
                    "blocks (one per block of tokens) or its block rounding",
                    log.mamba_cache_mode_line);
    if (log.prefix_caching_line && log.mamba_cache_mode.empty())
        warnings.push_back(
            {"mamba_cache_mode",
             format(
                 "the engine log has prefix caching on (line {}): vLLM then keeps this hybrid model's Mamba "
                 "state in mode align (two state blocks a request, as for gated-delta-net models) or all, "
                 "and the log does not say which; none (one block) is assumed: give mamba_cache_mode",
                 log.prefix_caching_line)});
    return true;
}

// One request of the advertised context, as the engine reserves it (vLLM's accounting unless
// another is asked for). Settings not given come from the engine log where it states them.
SizeOptions request_options(const Options& o, std::uint64_t context, const Parallelism& par,
                            const EngineLog& log) {
    SizeOptions so;
    so.context = context;
    so.tp = par.tp;
    so.pp = par.pp;
    std::string logged;
    if (o.kv_dtype)
        so.kv_dtype = *o.kv_dtype;
    else if (log_kv_dtype(log, logged))
        so.kv_dtype = logged;
    if (o.indexer_kv_dtype)
        so.indexer_kv_dtype = *o.indexer_kv_dtype;
    else if (!log.indexer_kv_dtype.empty())
        so.indexer_kv_dtype = log.indexer_kv_dtype == "bf16" ? "bf16" : "fp8";
    if (o.block_size)
        so.block_size = *o.block_size;
    else if (log.engine == "vllm" && log.block_size)
        so.block_size = log.block_size->value;
    if (o.max_num_batched_tokens)
        so.max_num_batched_tokens = *o.max_num_batched_tokens;
    else if (log.max_num_batched_tokens)
        so.max_num_batched_tokens = log.max_num_batched_tokens->value;
    if (log.engine != "sglang") {  // vLLM's settings (an SGLang check refuses them: check_report)
        so.speculative_tokens = speculative_tokens(o, log);
        so.mamba_align =
            o.mamba_cache_mode ? *o.mamba_cache_mode == "align" : log.mamba_cache_mode == "align";
    }
    so.accounting = !o.accounting                 ? Accounting::vllm
                    : *o.accounting == "naive"    ? Accounting::naive
                    : *o.accounting == "resident" ? Accounting::resident
                                                  : Accounting::vllm;
    return so;
}

// Given, else the engine log's, else the engine's: SGLang's page of 1, vLLM's block (larger
// for hybrid models).
Sourced block_size(const Options& o, Engine engine, const SizeResult& sr, const EngineLog& log,
                   const ModelSpec& m) {
    if (o.block_size) return {*o.block_size, "block_size"};
    if (engine == Engine::sglang && log.page_size)
        return {log.page_size->value,
                format("the engine log: SGLang's page_size (line {})", log.page_size->line)};
    if (engine == Engine::sglang) return {1, "SGLang's default page size 1"};
    if (log.block_size)
        return {sr.vllm_block_size, format("the engine log: block size {} (line {})",
                                           grouped(log.block_size->value), log.block_size->line)};
    if (m.block_size.value) return {sr.vllm_block_size, m.block_size.source};
    return {sr.vllm_block_size, sr.vllm_block_size == default_block_size
                                    ? "vLLM's default block size 16"
                                    : "vLLM's block for this hybrid model (attention page >= state page)"};
}

// The pool on one GPU: tokens, and bytes where they are known.
struct Pool {
    std::uint64_t tokens = 0;
    std::string source;
    std::optional<std::uint64_t> bytes;
    json derivation = nullptr;  // the GPU derivation's steps and inputs
    bool sglang_split = false;  // SGLang's own pool for a hybrid model, derived from a GPU
    std::vector<Warning> warnings;
    std::optional<LogPool> log;  // the pool an engine log states, read against the model
};

// What the check knows about the deployment when it sizes the pool.
struct Deployment {
    const ModelSpec& m;
    const Options& o;
    Parallelism par;
    Engine engine;
    Sourced block;
    const SizeResult& request;  // one request of the advertised context
};

Result<Pool> pool_from_log(const Deployment& d, const EngineLog& log, const SizeOptions& so) {
    LogInputs in{
        d.m, log, so, d.block.value, d.request.context, d.o.verdict_from && *d.o.verdict_from == "kvcalc"};
    auto read = read_log_pool(in);
    if (!read) return read.forward_error();
    Pool p;
    p.tokens = read->tokens;
    p.bytes = read->bytes;
    p.source = read->source;
    p.warnings = read->warnings;
    const bool memory_only = log.kv_memory && !log.pool_tokens && !log.gpu_blocks && !log.concurrency &&
                             !log.refusal && !log.v0_refusal_tokens;
    if (memory_only && !d.o.tp && !d.o.gpu_count && !d.o.pp && !log.tp && log.tp_ranks_seen < 2 &&
        log.tp_rank_max < 2)
        p.warnings.push_back(
            {"tp", "the logged KV memory is per GPU: give tp (and pp) as deployed; tp 1 assumed"});
    p.log = std::move(read.value());
    return p;
}

Result<Pool> pool_from_gpu(const Deployment& d, const WeightEstimate& weights,
                           std::uint64_t weights_per_gpu) {
    const Options& o = d.o;
    PoolInputs in;
    in.engine = d.engine;
    if (o.gpu) {
        const GpuPreset* g = find_gpu_preset(*o.gpu);
        if (!g) {
            std::string ids;
            for (std::size_t i = 0; i < gpu_preset_count(); ++i)
                format_to(ids, i ? ", {}" : "{}", gpu_preset_at(i).id);
            return field_error(code::bad_option, "gpu", "unknown \"{}\" (known: {})",
                               std::string_view(*o.gpu).substr(0, 40), ids);
        }
        in.gpu_memory_bytes = gpu_memory_bytes(*g);
        in.gpu_source = format("gpu {}, {} GiB as CUDA reports it{}", g->id,
                               fixed_point(g->memory_gib_hundredths, 2), g->measured ? "" : ", estimated");
        if (o.gpu_memory) {
            in.gpu_memory_bytes = *o.gpu_memory;
            in.gpu_source = format("gpu_memory (instead of the {} preset)", g->id);
        }
    } else {
        in.gpu_memory_bytes = *o.gpu_memory;
        in.gpu_source = "gpu_memory";
    }
    const bool vllm = d.engine == Engine::vllm;
    in.fraction = vllm ? (o.gpu_memory_utilization ? *o.gpu_memory_utilization
                                                   : *parse_fraction(default_vllm_utilization, "x"))
                       : (o.mem_fraction_static ? *o.mem_fraction_static
                                                : *parse_fraction(default_sglang_fraction, "x"));
    in.fraction_source = vllm ? (o.gpu_memory_utilization ? "gpu_memory_utilization" : "vLLM's default 0.9")
                              : (o.mem_fraction_static ? "mem_fraction_static" : "SGLang's fallback 0.88");
    if (o.activation_peak) {
        in.activation_peak_bytes = *o.activation_peak;
        in.activation_source = "activation_peak";
    }
    if (o.non_torch) {
        in.non_torch_bytes = *o.non_torch;
        in.non_torch_source = "non_torch";
    }
    const Parallelism& par = d.par;
    in.weight_bytes_per_gpu = weights_per_gpu;
    in.weight_source =
        format(par.tp > 1 || par.pp > 1 ? "{} parameters, {}, the busiest of tp {} x pp {} GPUs"
                                        : "{} parameters, {}",
               format_param_count(weights.param_count), weights.dtype.name, grouped(par.tp), grouped(par.pp));
    const std::uint64_t per_token = d.request.bytes_per_token_per_gpu;
    in.bytes_per_token_per_gpu = per_token;
    in.block_size = d.block.value;
    Pool p;
    if (d.engine == Engine::sglang && par.pp == 1) {
        // SGLang's hybrid pools: the sliding layers' share of the per-token bytes, or a state.
        in.sglang_state = d.m.has(LayerKind::linear_state);
        if (!in.sglang_state)
            for (const auto& g : d.request.groups)
                if (d.m.groups[g.group].kind == LayerKind::sliding_window)
                    in.sglang_sliding_bytes_per_token +=
                        g.bytes_per_token_layer_per_gpu * d.m.groups[g.group].count;
        p.sglang_split = in.sglang_state || in.sglang_sliding_bytes_per_token > 0;
    }
    auto derived = derive_pool(in);
    if (!derived) return derived.forward_error();
    p.tokens = derived->pool_tokens;
    p.bytes = derived->pool_bytes_per_gpu;
    p.source = format("derived from {} (see pool.steps)", in.gpu_source);
    json& j = p.derivation;
    set_member(j, "engine", engine_name(d.engine));
    set_member(j, "gpu_memory_bytes", in.gpu_memory_bytes);
    set_member(j, "gpu_source", in.gpu_source);
    set_member(j, "fraction", in.fraction.text);
    set_member(j, "fraction_source", in.fraction_source);
    set_member(j, "requested_bytes", derived->requested_bytes);
    set_member(j, "weight_bytes_per_gpu", in.weight_bytes_per_gpu);
    set_member(j, "activation_peak_bytes", vllm ? json(in.activation_peak_bytes) : json(nullptr));
    set_member(j, "activation_peak_source", vllm ? json(in.activation_source) : json(nullptr));
    set_member(j, "non_torch_bytes", in.non_torch_bytes);
    set_member(j, "non_torch_source", in.non_torch_source);
    set_member(j, "pool_bytes_per_gpu", derived->pool_bytes_per_gpu);
    set_member(j, "memory_left", derived->memory_left);
    set_member(j, "bytes_per_token_per_gpu", per_token);
    set_member(j, "block_size", d.block.value);
    set_member(j, "pool_blocks", derived->pool_blocks);
    set_member(j, "pool_tokens", derived->pool_tokens);
    set_member(j, "steps", derived->steps);
    if (!vllm && !o.mem_fraction_static) {
        // SGLang sizes the fraction itself: (memory - reserved) / memory, to 3 decimals, with
        // at least 10 GB reserved on a GPU over 60 GB. 0.88 is its fallback when it cannot.
        const std::uint64_t mib = in.gpu_memory_bytes >> 20, floor_mib = std::uint64_t{10} << 10;
        std::string bound;
        if (mib > (std::uint64_t{60} << 10))
            bound = format(" (on this GPU's {} MiB, at most {} by that floor)", grouped(mib),
                           fixed_point(((mib - floor_mib) * 2000 / mib + 1) / 2, 3));
        p.warnings.push_back({"mem_fraction_static",
                              format("SGLang sets mem_fraction_static from the GPU's memory less its "
                                     "reservations (activations, CUDA graphs, parallelism), with at least "
                                     "10 GB reserved on GPUs over 60 GB{}; 0.88 is its fallback: give the "
                                     "value your server logs",
                                     bound)});
    }
    if (!weights.excluded.empty()) {
        std::string left_out;
        for (const auto& e : weights.excluded)
            format_to(left_out, left_out.empty() ? "{}" : "; {}", e);
        p.warnings.push_back(
            {"gpu", format("the weights leave out {}: an engine that loads them has less memory "
                           "for the KV cache than derived here",
                           left_out)});
    }
    if (!derived->memory_left)
        p.warnings.push_back({"gpu",
                              "the weights and reservations leave no memory for the KV cache on one GPU: "
                              "vLLM refuses to start (\"No available memory for the cache blocks\")"});
    return p;
}

bool has_window_or_state(const ModelSpec& m) {
    return m.has(LayerKind::sliding_window) || m.has(LayerKind::chunked_local) ||
           m.has(LayerKind::linear_state);
}

// vLLM admits a request when its blocks fit the pool's bytes: where layers keep different
// numbers of tokens, the bytes decide, and a search finds the longest context that fits (n
// requests of it at once), never above the model's own max.
PoolBytes admission_by_bytes(const ModelSpec& m, const SizePlan& plan, std::uint64_t pool,
                             std::uint64_t request, std::optional<std::uint64_t> concurrency) {
    PoolBytes pb;
    pb.pool = pool;
    pb.request = request;
    const std::uint64_t cap = m.max_context.value;
    pb.max_context = longest_fitting(plan, pool, cap);
    pb.max_context_source =
        cap && pb.max_context == cap
            ? format("the model's own max context ({})", m.max_context.source)
            : format("the longest request whose bytes per GPU fit the pool's {} B", grouped(pool));
    if (concurrency) pb.at_concurrency = longest_fitting(plan, pool, cap, *concurrency);
    return pb;
}

json log_json(const EngineLog& log, const Pool& p) {
    auto count = [](const std::optional<LogCount>& c) { return c ? json(c->value) : json(nullptr); };
    json j;
    set_member(j, "engine", log.engine);
    set_member(j, "version", log.version);
    set_member(j, "disaggregation_mode",
               log.disaggregation_mode.empty() ? json(nullptr) : json(log.disaggregation_mode));
    set_member(j, "pool_tokens",
               count(log.pool_tokens            ? log.pool_tokens
                     : log.max_total_num_tokens ? log.max_total_num_tokens
                                                : log.sglang_tokens));
    set_member(j, "gpu_blocks", count(log.gpu_blocks));
    set_member(j, "kv_memory_bytes", log.kv_memory ? json(log.kv_memory->bytes) : json(nullptr));
    set_member(j, "kv_memory_text", log.kv_memory ? log.kv_memory->text : std::string());
    set_member(j, "max_model_len", count(log.max_model_len));
    set_member(j, "max_concurrency_text",
               log.concurrency && log.concurrency->hundredths
                   ? json(hundredths_text(*log.concurrency->hundredths))
                   : json(nullptr));
    json refusal = nullptr;
    if (log.refusal) {
        refusal = json::object();
        set_member(refusal, "max_model_len", or_null(log.refusal->max_model_len));
        set_member(refusal, "needed_text",
                   log.refusal->needed ? json(log.refusal->needed->text) : json(nullptr));
        refusal["available_text"] =
            log.refusal->available ? json(log.refusal->available->text) : json(nullptr);
        set_member(refusal, "estimated_max_model_len", or_null(log.refusal->estimated_max_len));
        set_member(refusal, "line", log.refusal->line);
    }
    set_member(j, "refusal", std::move(refusal));
    set_member(j, "padding_layers", count(log.padding_layers));
    set_member(j, "tp", count(log.tp));
    set_member(j, "pp", count(log.pp));
    set_member(j, "full_layer_tokens", count(log.full_layer_tokens));
    set_member(j, "swa_layer_tokens", count(log.swa_layer_tokens));
    set_member(j, "mamba_cache_size", count(log.mamba_cache_size));
    set_member(j, "understood", findings_json(log.understood));
    json notes = log.notes;
    if (p.log)
        for (const auto& n : p.log->notes)
            notes.push_back(n);
    set_member(j, "notes", std::move(notes));
    return j;
}

json cross_checks_json(const Pool& p) {
    return p.log ? cross_checks_json(p.log->checks) : json::array();
}

// The engine log read by its engine's reader: llama.cpp's (llamacpp, ollama, lmstudio), or vLLM's and
// SGLang's. Without engine the log's own lines say which; a log of another engine than the one given
// is an error naming both.
Result<json> check_llamacpp_log(const Model& model, const Options& o) {
    const bool llama_engine = is_llamacpp_engine(o.engine);
    auto llama = parse_llamacpp_log(*o.engine_log);
    if (!llama) {
        if (!llama_engine) return llama.forward_error();  // vLLM's or SGLang's, perhaps: the caller reads it
        auto other = parse_engine_log(*o.engine_log);
        if (other && !other->engine.empty())
            return fail(code::bad_option, "engine", "engine {} given, but the engine log is {}'s", *o.engine,
                        other->engine);
        return llama.forward_error();
    }
    if (o.engine && !llama_engine)
        return fail(code::bad_option, "engine", "engine {} given, but the engine log is {}'s", *o.engine,
                    llama->engine);
    // llama.cpp's own lines, which Ollama and LM Studio print too, read as the host given says; the
    // lines of one host are not another's.
    if (o.engine && llama->engine != "llamacpp" && llama->engine != *o.engine)
        return fail(code::bad_option, "engine", "engine {} given, but the engine log is {}'s", *o.engine,
                    llama->engine);
    LlamaLog log = std::move(llama.value());
    if (o.engine) log.engine = *o.engine;
    return llamacpp_check_report(model, o, &log);
}

}  // namespace

Result<json> check_report(const Model& model, const Options& o) {
    if (o.engine_log && (is_llamacpp_engine(o.engine) || !o.engine)) {
        auto r = check_llamacpp_log(model, o);
        if (r || is_llamacpp_engine(o.engine) || r.error().code != code::unrecognised_log) return r;
        // Not llama.cpp's: vLLM's or SGLang's, read below.
    }
    if (is_llamacpp_engine(o.engine)) return llamacpp_check_report(model, o, nullptr);
    if (o.context)
        return fail(
            code::bad_option, "context",
            "context is llama.cpp's -c (engine llamacpp, ollama or lmstudio); the context a vLLM or SGLang "
            "deployment advertises is max_context");
    auto source = choose_pool_source(o);
    if (!source) return source.forward_error();
    EngineLog log;
    if (o.engine_log) {
        auto parsed = parse_engine_log(*o.engine_log, o.engine ? *o.engine : std::string());
        if (!parsed && o.engine && parsed.error().code == code::unrecognised_log) {
            auto llama = parse_llamacpp_log(*o.engine_log);  // another engine's?
            if (llama)
                return fail(code::bad_option, "engine", "engine {} given, but the engine log is {}'s",
                            *o.engine, llama->engine);
        }
        if (!parsed) return parsed.forward_error();
        log = std::move(parsed.value());
    }
    std::vector<Warning> warnings;
    auto par = read_parallelism(o, log, warnings);
    if (!par) return par.forward_error();
    auto engine = choose_engine(o, log);
    if (!engine) return engine.forward_error();
    if (*engine == Engine::sglang && (o.num_speculative_tokens || o.mamba_cache_mode))
        return fail(code::bad_option,
                    o.num_speculative_tokens ? "num_speculative_tokens" : "mamba_cache_mode",
                    "{} is vLLM's: kvcalc does not model SGLang's draft pool or its Mamba cache",
                    o.num_speculative_tokens ? "num_speculative_tokens" : "mamba_cache_mode");
    // MiniMax-M3's indexer keys and block are read from vLLM (sizing.cpp); how SGLang pools them was not
    // read.
    for (const LayerGroup& g : model.spec.groups)
        if (*engine == Engine::sglang && g.indexer_dim.value)
            return fail(
                code::bad_option, "engine",
                "engine sglang: how SGLang pools the {} layers' indexer keys beside K and V was not read "
                "(kvcalc sizes them as vLLM does)",
                g.name);
    // The model as served: with a speculative draft's layers and longer states, if any.
    auto served = with_speculative_tokens(model.spec,
                                          *engine == Engine::vllm ? speculative_tokens(o, log) : 0, par->pp);
    if (!served) return served.forward_error();
    const ModelSpec& m = *served;
    // An encoder-decoder: the log's "GPU KV cache size" tokens meant different things across vLLM releases,
    // and its per-request cross-attention blocks depend on max_num_encoder_input_tokens; not checked.
    for (const LayerGroup& g : m.groups)
        if (g.cross_attention)
            return fail(
                code::unsupported, "max_num_encoder_input_tokens",
                "check does not size an encoder-decoder's pool: its {} layers hold a request's "
                "encoder tokens (vLLM's CrossAttentionSpec, max_num_encoder_input_tokens), and what an "
                "engine log's pool tokens count for such a model differs across vLLM releases; use "
                "size with max_num_encoder_input_tokens",
                g.name);
    if (*engine == Engine::vllm) {
        auto mode = check_mamba_mode(o, log, m, warnings);
        if (!mode) return mode.forward_error();
    }
    auto context = advertised_context(o, log);
    if (!context) return context.forward_error();
    const std::uint64_t C = context->value;

    const SizeOptions so = request_options(o, C, *par, log);
    auto plan = SizePlan::make(m, so);
    if (!plan) return plan.forward_error();
    auto sized = plan->result(C);
    if (!sized && sized.error().field == "context" && o.max_context) {
        // The context sized is the one advertised: an error about it (too large to size exactly)
        // names the option that gave it, not size's context.
        std::string message = sized.error().message;
        const std::string said = "check context";
        if (message.size() >= said.size() &&
            message.compare(message.size() - said.size(), said.size(), said) == 0)
            message.replace(message.size() - said.size(), said.size(), "check max_context");
        return fail(sized.error().code.c_str(), "max_context", "{}", message);
    }
    if (!sized) return sized.forward_error();
    const SizeResult& sr = *sized;
    const Sourced block = block_size(o, *engine, sr, log, m);

    // The weights on the busiest GPU: what a pool derived from a GPU's memory leaves out.
    std::optional<Result<WeightEstimate>> other;  // at another dtype than the model's own
    if (o.weight_dtype && *o.weight_dtype != "auto") other = estimate_weights(model.spec, *o.weight_dtype);
    const Result<WeightEstimate>& weights = other ? *other : model.weights;
    std::optional<std::uint64_t> weights_per_gpu;
    if (weights) {
        auto g = weight_bytes_per_gpu(*weights, sr.stages, par->tp);
        if (!g) return g.forward_error();
        weights_per_gpu = *g;
    } else if (*source == PoolSource::gpu) {
        return weights.error();
    }

    const Deployment d{m, o, *par, *engine, block, sr};
    Pool given;  // pool_tokens
    given.tokens = o.pool_tokens.value_or(0);
    given.source = "pool_tokens";
    Result<Pool> pool = *source == PoolSource::tokens ? Result<Pool>(std::move(given))
                        : *source == PoolSource::log  ? pool_from_log(d, log, so)
                                                      : pool_from_gpu(d, *weights, *weights_per_gpu);
    if (!pool) return pool.forward_error();
    const Pool& p = *pool;

    CheckInputs ci;
    ci.pool_tokens = p.tokens;
    ci.pool_source = p.source;
    ci.max_context = C;
    ci.max_context_source = context->source;
    ci.concurrency = o.concurrency;
    ci.block_size = block.value;
    ci.block_size_source = block.source;
    ci.model_max_context = m.max_context.value;
    ci.model_max_context_source = m.max_context.source;
    ci.engine = *engine;
    const bool by_bytes =
        p.log ? p.log->by_bytes : p.bytes && *engine == Engine::vllm && has_window_or_state(m);
    if (by_bytes) ci.bytes = admission_by_bytes(m, *plan, *p.bytes, sr.kv_bytes_per_gpu, o.concurrency);
    const bool follow_kvcalc = o.verdict_from && *o.verdict_from == "kvcalc";
    if (p.log) {
        ci.concurrency_in_blocks = p.log->concurrency_in_blocks;
        ci.max_requests = p.log->max_requests;
        ci.max_requests_source = p.log->max_requests_source;
        const auto& v = p.log->engine_verdict;
        if (v && v->context == C && !follow_kvcalc)
            ci.engine_said = EngineSaid{v->fits, v->hundredths, v->estimated_max_context, v->said};
    }
    auto checked = check_pool(ci);
    if (!checked) return checked.forward_error();
    CheckResult& cr = checked.value();
    if (*engine == Engine::sglang && !cr.fits) {
        // What SGLang does with a prompt the pool cannot hold, after the advice to set the context.
        std::vector<std::string> said;
        sglang_short_pool_advice(log, said, warnings);
        auto at = std::find_if(cr.advice.begin(), cr.advice.end(),
                               [](const std::string& a) { return a.rfind("Test it", 0) == 0; });
        cr.advice.insert(at == cr.advice.end() ? at : at + 1, said.begin(), said.end());
    }

    for (const auto& w : p.warnings)
        warnings.push_back(w);
    if (p.log) {
        const LogPool& lp = *p.log;
        std::size_t disagree = 0;
        for (const CrossCheck& c : lp.checks)
            disagree += c.agree ? 0 : 1;
        if (disagree)
            warnings.push_back(
                {"verdict_from",
                 format("{} of the engine's printed figures disagree{} with kvcalc's derivation (see "
                        "cross_checks); the "
                        "verdict follows {}",
                        grouped(disagree), disagree == 1 ? "s" : "",
                        follow_kvcalc
                            ? "kvcalc's derivation from the logged memory, as verdict_from kvcalc asks"
                            : "the engine's figures (verdict_from kvcalc follows kvcalc's derivation)")});
        if (lp.layout && lp.layout->hybrid && log.pool_tokens)
            warnings.push_back(
                {"pool_tokens",
                 format("vLLM's \"GPU KV cache size: {} tokens\" (line {}) is not how many tokens of one "
                        "context the pool "
                        "holds for this model: its layers are in {} KV cache groups that share the pool's "
                        "blocks. The "
                        "verdict goes by blocks and the engine's own concurrency line",
                        grouped(log.pool_tokens->value), log.pool_tokens->line, grouped(lp.layout->groups))});
        if (lp.engine_verdict && lp.engine_verdict->context != C)
            warnings.push_back({"max_context", format("the engine's own verdict ({}) is for its max model "
                                                      "length {}; at {} tokens kvcalc computes "
                                                      "from the engine's pool",
                                                      lp.engine_verdict->said,
                                                      grouped(lp.engine_verdict->context), grouped(C))});
    }
    for (const auto& w : cr.warnings)
        warnings.push_back(w);
    if (log.max_model_len && o.max_context && log.max_model_len->value != *o.max_context)
        warnings.push_back(
            {"max_context", format("the engine logged a max context of {} ({}, line {}), not the {} checked "
                                   "here",
                                   grouped(log.max_model_len->value), log.max_model_len_what,
                                   log.max_model_len->line, grouped(*o.max_context))});
    if (!o.block_size && !log.block_size && *engine == Engine::vllm && m.has(LayerKind::mla))
        warnings.push_back({"block_size",
                            "vLLM on CUDA forces the block size of MLA models to 64 (FlashMLA, "
                            "FlashInfer MLA) or 128 (CUTLASS MLA): give block_size as your engine logs it"});
    if (by_bytes)
        warnings.push_back({"pool_tokens",
                            "the model has sliding-window, chunked or linear-state layers: fits, "
                            "max_concurrency and max_safe_context compare one request's bytes "
                            "(request_bytes_per_gpu, vLLM's blocks for what each layer keeps) with the "
                            "pool's (pool_bytes_per_gpu), as vLLM admits requests; pool_tokens charges "
                            "every cached layer for every token"});
    else if (p.sglang_split)
        warnings.push_back(
            {"pool_tokens",
             "SGLang splits the pool of a hybrid model (its sliding layers hold 0.8 of the full "
             "layers' tokens, or a Mamba / linear-attention state takes 0.9 / 1.9 of it first): "
             "pool_tokens is what its full-attention layers hold, which caps every request"});
    else if (has_window_or_state(m))
        warnings.push_back({"pool_tokens",
                            "the model has sliding-window, chunked or linear-state layers: the pool in "
                            "tokens charges every cached layer for every token, and newer vLLM logs a "
                            "concurrency-weighted token figure; compare request_bytes_per_gpu with "
                            "pool_bytes_per_gpu where the pool's bytes are known"});
    for (const auto& w : sr.warnings)
        if (w.field != std::string_view("context"))
            warnings.push_back(w);  // the check's max_context warning says it
    if (!weights)
        warnings.push_back(
            {weights.error().field, format("no weights estimate: {}", weights.error().message)});

    json j;
    set_member(j, "model", m.name);
    set_member(j, "engine", engine_name(*engine));
    set_member(j, "pool_tokens", p.tokens);
    set_member(j, "pool_source", p.source);
    set_member(j, "max_context", C);
    set_member(j, "max_context_source", context->source);
    set_member(j, "model_max_context", m.max_context.value ? json(m.max_context.value) : json(nullptr));
    set_member(j, "block_size", block.value);
    set_member(j, "block_size_source", block.source);
    set_member(j, "fits", cr.fits);
    set_member(j, "fits_by", cr.fits_by);
    set_member(j, "verdict_source", cr.verdict_source);
    set_member(j, "blocks_needed", cr.blocks_needed);
    set_member(j, "blocks_available", cr.blocks_available);
    set_member(j, "max_concurrency",
               hundredths_json(cr.max_concurrency_hundredths));  // prints as its 2 decimals
    set_member(j, "max_concurrency_text", cr.max_concurrency_text);
    set_member(j, "max_concurrency_hundredths", cr.max_concurrency_hundredths);
    set_member(j, "max_safe_context", cr.max_safe_context);
    set_member(j, "max_safe_context_source", cr.max_safe_context_source);
    set_member(j, "concurrency", or_null(o.concurrency));
    set_member(j, "concurrency_fits", cr.concurrency_fits ? json(*cr.concurrency_fits) : json(nullptr));
    set_member(j, "max_context_at_concurrency", or_null(cr.max_context_at_concurrency));
    set_member(j, "advice", cr.advice);
    set_member(j, "tp", par->tp);
    set_member(j, "pp", par->pp);
    set_member(j, "kv_dtype", sr.kv_dtype.name);
    set_member(j, "bytes_per_token_per_gpu", sr.bytes_per_token_per_gpu);
    set_member(j, "accounting", accounting_name(so.accounting));
    set_member(j, "request_bytes_per_gpu", sr.kv_bytes_per_gpu);
    set_member(j, "pool_bytes_per_gpu", or_null(p.bytes));
    set_member(j, "param_count", weights ? json(weights->param_count) : json(nullptr));
    set_member(j, "weight_bytes", weights ? json(weights->weight_bytes) : json(nullptr));
    set_member(j, "weight_bytes_per_gpu", or_null(weights_per_gpu));
    set_member(j, "weight_dtype", weights ? json(weights->dtype.name) : json(nullptr));
    set_member(j, "pool", p.derivation);
    set_member(j, "pool_blocks", p.log && p.log->blocks ? json(*p.log->blocks) : json(nullptr));
    set_member(j, "log", o.engine_log ? log_json(log, p) : json(nullptr));
    set_member(j, "cross_checks", cross_checks_json(p));
    json lp = nullptr;
    if (p.log && p.log->layout) {
        const LogPool& l = *p.log;
        lp = json::object();
        set_member(lp, "layout", l.layout->text);
        set_member(lp, "groups", l.layout->groups);
        set_member(lp, "group_size", l.layout->hybrid ? json(l.layout->group_size) : json(nullptr));
        set_member(lp, "padding_layers", l.layout->padding_layers);
        set_member(lp, "block_bytes_per_gpu", l.layout->block_bytes);
        set_member(lp, "blocks_per_request", or_null(l.blocks_per_request));
        set_member(lp, "engine_blocks_low", or_null(l.engine_low));
        set_member(lp, "engine_blocks_high", or_null(l.engine_high));
        set_member(lp, "memory_blocks_low", or_null(l.memory_low));
        set_member(lp, "memory_blocks_high", or_null(l.memory_high));
    }
    set_member(j, "log_blocks", std::move(lp));
    set_member(j, "verdict_from", p.log ? json(follow_kvcalc ? "kvcalc" : "engine") : json(nullptr));
    json ev = nullptr;
    if (p.log && p.log->engine_verdict) {
        const EngineVerdict& v = *p.log->engine_verdict;
        ev = json::object();
        set_member(ev, "fits", v.fits);
        set_member(ev, "max_context", v.context);
        set_member(ev, "max_concurrency_text",
                   v.hundredths ? json(hundredths_text(*v.hundredths)) : json(nullptr));
        set_member(ev, "estimated_max_context", or_null(v.estimated_max_context));
        set_member(ev, "said", v.said);
    }
    set_member(j, "engine_verdict", std::move(ev));
    set_member(j, "warnings", warnings_json(warnings));
    return j;
}

}  // namespace kvcalc
