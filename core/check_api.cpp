#include "check_api.hpp"

#include <optional>

#include "api.hpp"
#include "check.hpp"
#include "checked.hpp"
#include "config_fields.hpp"
#include "engine_log.hpp"
#include "gpu_presets.hpp"
#include "pool.hpp"
#include "report.hpp"
#include "sizing.hpp"
#include "units.hpp"
#include "weights.hpp"

namespace kvcalc {
namespace {

Result<std::uint64_t> option_int(const json& v, const std::string& key, bool zero_ok = false) {
    auto r = checked_integer(v, key, zero_ok);
    if (!r) return recode(r.forward_error(), code::bad_option);
    return *r;
}

Result<std::string> option_text(const json& v, const std::string& key) {
    if (!v.is_string()) return field_error(code::bad_option, key, "must be a string, got {}", described(v));
    return v.get<std::string>();
}

// A size: a whole number of bytes, or text like "1.5GiB".
Result<std::uint64_t> option_size(const json& v, const std::string& key) {
    if (v.is_string()) return parse_byte_size(v.get_ref<const std::string&>(), key);
    return option_int(v, key, true);
}

// A fraction: a JSON number (read back as the decimal it was written as) or text.
Result<Fraction> option_fraction(const json& v, const std::string& key) {
    if (v.is_string()) return parse_fraction(v.get_ref<const std::string&>(), key);
    if (v.is_number()) return parse_fraction(to_text(v), key);
    return field_error(code::bad_option, key, "must be a decimal like 0.9, got {}", described(v));
}

struct CheckOptions {
    std::optional<std::uint64_t> max_context, pool_tokens, concurrency, block_size, gpu_count, tp, pp,
        max_num_batched_tokens, gpu_memory, activation_peak, non_torch;
    std::optional<std::string> engine_log, gpu, kv_dtype, weight_dtype, accounting;
    std::optional<Fraction> utilization, mem_fraction;
    std::optional<Engine> engine;
};

Result<CheckOptions> read_check_options(const json& o) {
    CheckOptions c;
    // The options by kind: integers (only pool_tokens may be 0), sizes, texts, fractions, engine.
    static const char* const keys[] = {"max_context",
                                       "pool_tokens",
                                       "concurrency",
                                       "block_size",
                                       "gpu_count",
                                       "tp",
                                       "pp",
                                       "max_num_batched_tokens",
                                       "gpu_memory",
                                       "activation_peak",
                                       "non_torch",
                                       "engine_log",
                                       "gpu",
                                       "kv_dtype",
                                       "weight_dtype",
                                       "accounting",
                                       "gpu_memory_utilization",
                                       "mem_fraction_static",
                                       "engine"};
    std::optional<std::uint64_t>* const integers[] = {&c.max_context, &c.pool_tokens,
                                                      &c.concurrency, &c.block_size,
                                                      &c.gpu_count,   &c.tp,
                                                      &c.pp,          &c.max_num_batched_tokens,
                                                      &c.gpu_memory,  &c.activation_peak,
                                                      &c.non_torch};
    std::optional<std::string>* const texts[] = {&c.engine_log, &c.gpu, &c.kv_dtype, &c.weight_dtype,
                                                 &c.accounting};
    std::optional<Fraction>* const fractions[] = {&c.utilization, &c.mem_fraction};
    for (const auto& it : o.items()) {
        const std::string& k = it.key();
        const json& v = it.value();
        if (v.is_null()) continue;
        std::size_t i = 0;
        while (i < 19 && k != keys[i])
            ++i;
        if (i < 11) {
            auto r = i < 8 ? option_int(v, k, i == 1) : option_size(v, k);
            if (!r) return r.forward_error();
            *integers[i] = *r;
        } else if (i < 16) {
            auto r = option_text(v, k);
            if (!r) return r.forward_error();
            *texts[i - 11] = std::move(r.value());
        } else if (i < 18) {
            auto r = option_fraction(v, k);
            if (!r) return r.forward_error();
            *fractions[i - 16] = std::move(r.value());
        } else if (i == 18) {
            auto t = option_text(v, k);
            if (!t) return t.forward_error();
            auto e = parse_engine(*t);
            if (!e) return e.forward_error();
            c.engine = *e;
        } else {
            return fail(code::bad_option, k, "unknown option \"{}\"", k);
        }
    }
    return c;
}

json log_json(const EngineLog& log) {
    json understood = json::array();
    for (const auto& f : log.understood) {
        json u;
        u["line"] = f.line;
        u["what"] = f.what;
        u["text"] = f.text;
        understood.push_back(std::move(u));
    }
    json j;
    j["engine"] = log.engine;
    j["pool_tokens"] = or_null(log.pool_tokens);
    j["gpu_blocks"] = or_null(log.gpu_blocks);
    j["kv_memory_bytes"] = or_null(log.kv_memory_bytes);
    j["kv_memory_text"] = log.kv_memory_text;
    j["max_model_len"] = or_null(log.max_model_len);
    j["max_concurrency_text"] =
        log.concurrency_hundredths ? json(hundredths_text(*log.concurrency_hundredths)) : json(nullptr);
    j["full_layer_tokens"] = or_null(log.full_layer_tokens);
    j["swa_layer_tokens"] = or_null(log.swa_layer_tokens);
    j["mamba_cache_size"] = or_null(log.mamba_cache_size);
    j["understood"] = std::move(understood);
    return j;
}

bool has_window_or_state(const ModelSpec& m) {
    return m.has(LayerKind::sliding_window) || m.has(LayerKind::chunked_local) ||
           m.has(LayerKind::linear_state);
}

}  // namespace

Result<json> check_report(const ModelSpec& m, const json& options) {
    auto opts = read_check_options(options.is_null() ? json::object() : options);
    if (!opts) return opts.forward_error();
    CheckOptions& o = opts.value();
    std::vector<Warning> warnings;

    // The pool's source: exactly one.
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
        for (auto [set, key] : {std::pair{o.utilization.has_value(), "gpu_memory_utilization"},
                                std::pair{o.mem_fraction.has_value(), "mem_fraction_static"},
                                std::pair{o.activation_peak.has_value(), "activation_peak"},
                                std::pair{o.non_torch.has_value(), "non_torch"},
                                std::pair{o.gpu_count.has_value(), "gpu_count"}})
            if (set)
                return field_error(code::bad_option, key,
                                   "applies only when the pool is derived from a GPU (gpu or gpu_memory)");
    }

    // Parallelism: gpu_count stands for tp x pp.
    std::uint64_t pp = o.pp.value_or(1), tp = o.tp.value_or(1);
    if (o.gpu_count) {
        if (o.tp && mul(*o.tp, pp) != opt_u64(*o.gpu_count))
            return fail(code::bad_option, "gpu_count", "gpu_count {} is not tp {} x pp {}",
                        grouped(*o.gpu_count), grouped(*o.tp), grouped(pp));
        if (!o.tp) {
            if (*o.gpu_count % pp != 0)
                return fail(code::bad_option, "gpu_count", "gpu_count {} is not a multiple of pp {}",
                            grouped(*o.gpu_count), grouped(pp));
            tp = *o.gpu_count / pp;
        }
    }

    EngineLog log;
    if (o.engine_log) {
        auto parsed = parse_engine_log(*o.engine_log);
        if (!parsed) return parsed.forward_error();
        log = std::move(parsed.value());
    }
    Engine engine = o.engine ? *o.engine : log.engine == "sglang" ? Engine::sglang : Engine::vllm;
    if (o.mem_fraction && !o.engine) engine = Engine::sglang;
    if (o.utilization && engine == Engine::sglang)
        return fail(code::bad_option, "gpu_memory_utilization",
                    "gpu_memory_utilization is vLLM's; SGLang's is mem_fraction_static");
    if (o.mem_fraction && engine == Engine::vllm)
        return fail(code::bad_option, "mem_fraction_static",
                    "mem_fraction_static is SGLang's; vLLM's is gpu_memory_utilization");

    // The advertised context: given, else the one the engine logged.
    std::uint64_t C = 0;
    std::string c_source;
    if (o.max_context) {
        C = *o.max_context;
        c_source = "max_context";
    } else if (log.max_model_len) {
        C = *log.max_model_len;
        c_source = format("the engine log: {}", log.max_model_len_source);
    } else {
        return field_error(code::missing_field, "max_context",
                           "missing (the context the deployment advertises, e.g. vLLM's --max-model-len; an "
                           "engine log can give it too)");
    }

    SizeOptions so;
    so.context = C;
    so.tp = tp;
    so.pp = pp;
    if (o.kv_dtype) so.kv_dtype = *o.kv_dtype;
    if (o.block_size) so.block_size = *o.block_size;
    if (o.max_num_batched_tokens) so.max_num_batched_tokens = *o.max_num_batched_tokens;
    so.accounting = Accounting::vllm;  // what the engine reserves for one request
    if (o.accounting) {
        if (*o.accounting == "naive")
            so.accounting = Accounting::naive;
        else if (*o.accounting == "resident")
            so.accounting = Accounting::resident;
        else if (*o.accounting != "vllm")
            return field_error(code::bad_option, "accounting", "must be naive, resident or vllm, got \"{}\"",
                               *o.accounting);
    }
    auto sized = size_model(m, so);
    if (!sized) return sized.forward_error();
    const SizeResult& sr = *sized;

    // Block size: given, else the engine's.
    std::uint64_t block = 0;
    std::string block_source;
    if (o.block_size) {
        block = *o.block_size;
        block_source = "block_size";
    } else if (engine == Engine::sglang) {
        block = 1;
        block_source = "SGLang's default page size 1";
    } else {
        block = sr.vllm_block_size;
        block_source = block == default_block_size
                           ? "vLLM's default block size 16"
                           : "vLLM's block for this hybrid model (attention page >= state page)";
    }

    auto weights = estimate_weights(m, o.weight_dtype.value_or("auto"));
    std::optional<std::uint64_t> weights_per_gpu;
    if (weights) {
        auto g = weight_bytes_per_gpu(*weights, sr.stages, tp);
        if (!g) return g.forward_error();
        weights_per_gpu = *g;
    } else if (by_gpu) {
        return weights.forward_error();
    }

    // The pool in tokens.
    std::uint64_t P = 0;
    std::string p_source;
    std::optional<std::uint64_t> pool_bytes;
    json pool = nullptr;
    bool sglang_split = false;  // SGLang's own pool for a hybrid model, derived from a GPU
    const std::uint64_t per_token = sr.bytes_per_token_per_gpu;

    if (o.pool_tokens) {
        P = *o.pool_tokens;
        p_source = "pool_tokens";
    } else if (o.engine_log) {
        if (log.pool_tokens) {
            P = *log.pool_tokens;
            p_source = format("the engine log: {}", log.pool_tokens_source);
        } else if (log.gpu_blocks) {
            auto t = mul(*log.gpu_blocks, block);
            if (!t)
                return fail(code::overflow, "engine_log",
                            "the logged block count x block size exceeds 2^53 - 1");
            P = *t;
            p_source = format("the engine log: {} x {}-token blocks", log.gpu_blocks_source, grouped(block));
        } else {
            if (per_token == 0)
                return fail(code::invalid_value, "engine_log",
                            "the model keeps no per-token cache, so a pool in bytes has no token count");
            pool_bytes = *log.kv_memory_bytes;
            P = tokens_in_bytes(*log.kv_memory_bytes, per_token, block);
            std::string per_gpu = format("{} B per token per GPU (tp {}", grouped(per_token), grouped(tp));
            if (pp > 1) format_to(per_gpu, ", pp {}", grouped(pp));
            p_source = format("the engine log: {}, {} = {} B per GPU / ({} x {}, kv {})), in whole blocks",
                              log.kv_memory_source, log.kv_memory_text, grouped(*log.kv_memory_bytes),
                              grouped(block), per_gpu, sr.kv_dtype.name);
            if (!o.tp && !o.gpu_count && !o.pp)
                warnings.push_back(
                    {"tp", "the logged KV memory is per GPU: give tp (and pp) as deployed; tp 1 assumed"});
        }
    } else {
        PoolInputs in;
        in.engine = engine;
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
            in.gpu_source =
                format("gpu {}, {} GiB as CUDA reports it{}", g->id, fixed_point(g->memory_gib_hundredths, 2),
                       g->measured ? "" : ", estimated");
            if (o.gpu_memory) {
                in.gpu_memory_bytes = *o.gpu_memory;
                in.gpu_source = format("gpu_memory (instead of the {} preset)", g->id);
            }
        } else {
            in.gpu_memory_bytes = *o.gpu_memory;
            in.gpu_source = "gpu_memory";
        }
        const bool vllm = engine == Engine::vllm;
        auto f = vllm ? (o.utilization ? *o.utilization : *parse_fraction(default_vllm_utilization, "x"))
                      : (o.mem_fraction ? *o.mem_fraction : *parse_fraction(default_sglang_fraction, "x"));
        in.fraction = f;
        in.fraction_source = vllm ? (o.utilization ? "gpu_memory_utilization" : "vLLM's default 0.9")
                                  : (o.mem_fraction ? "mem_fraction_static" : "SGLang's fallback 0.88");
        if (o.activation_peak) {
            in.activation_peak_bytes = *o.activation_peak;
            in.activation_source = "activation_peak";
        }
        if (o.non_torch) {
            in.non_torch_bytes = *o.non_torch;
            in.non_torch_source = "non_torch";
        }
        in.weight_bytes_per_gpu = *weights_per_gpu;
        in.weight_source = format(
            tp > 1 || pp > 1 ? "{} parameters, {}, the busiest of tp {} x pp {} GPUs" : "{} parameters, {}",
            format_param_count(weights->param_count), weights->dtype.name, grouped(tp), grouped(pp));
        in.bytes_per_token_per_gpu = per_token;
        in.block_size = block;
        if (engine == Engine::sglang && pp == 1) {
            // SGLang's hybrid pools: the sliding layers' share of the per-token bytes, or a state.
            in.sglang_state = m.has(LayerKind::linear_state);
            if (!in.sglang_state)
                for (const auto& g : sr.groups)
                    if (m.groups[g.group].kind == LayerKind::sliding_window)
                        in.sglang_sliding_bytes_per_token +=
                            g.bytes_per_token_layer_per_gpu * m.groups[g.group].count;
            sglang_split = in.sglang_state || in.sglang_sliding_bytes_per_token > 0;
        }
        auto derived = derive_pool(in);
        if (!derived) return derived.forward_error();
        P = derived->pool_tokens;
        pool_bytes = derived->pool_bytes_per_gpu;
        p_source = format("derived from {} (see pool.steps)", in.gpu_source);
        pool["engine"] = engine_name(engine);
        pool["gpu_memory_bytes"] = in.gpu_memory_bytes;
        pool["gpu_source"] = in.gpu_source;
        pool["fraction"] = in.fraction.text;
        pool["fraction_source"] = in.fraction_source;
        pool["requested_bytes"] = derived->requested_bytes;
        pool["weight_bytes_per_gpu"] = in.weight_bytes_per_gpu;
        pool["activation_peak_bytes"] = vllm ? json(in.activation_peak_bytes) : json(nullptr);
        pool["activation_peak_source"] = vllm ? json(in.activation_source) : json(nullptr);
        pool["non_torch_bytes"] = in.non_torch_bytes;
        pool["non_torch_source"] = in.non_torch_source;
        pool["pool_bytes_per_gpu"] = derived->pool_bytes_per_gpu;
        pool["memory_left"] = derived->memory_left;
        pool["bytes_per_token_per_gpu"] = per_token;
        pool["block_size"] = block;
        pool["pool_blocks"] = derived->pool_blocks;
        pool["pool_tokens"] = derived->pool_tokens;
        pool["steps"] = json(derived->steps);
        if (!vllm && !o.mem_fraction) {
            // SGLang sizes the fraction itself: (memory - reserved) / memory, to 3 decimals, with
            // at least 10 GB reserved on a GPU over 60 GB. 0.88 is its fallback when it cannot.
            const std::uint64_t mib = in.gpu_memory_bytes >> 20, floor_mib = std::uint64_t{10} << 10;
            std::string bound;
            if (mib > (std::uint64_t{60} << 10))
                bound = format(" (on this GPU's {} MiB, at most {} by that floor)", grouped(mib),
                               fixed_point(((mib - floor_mib) * 2000 / mib + 1) / 2, 3));
            warnings.push_back({"mem_fraction_static",
                                format("SGLang sets mem_fraction_static from the GPU's memory less its "
                                       "reservations (activations, CUDA graphs, parallelism), with at least "
                                       "10 GB reserved on GPUs over 60 GB{}; 0.88 is its fallback: give the "
                                       "value your server logs",
                                       bound)});
        }
        if (!weights->excluded.empty()) {
            std::string left_out;
            for (const auto& e : weights->excluded)
                format_to(left_out, left_out.empty() ? "{}" : "; {}", e);
            warnings.push_back(
                {"gpu", format("the weights leave out {}: an engine that loads them has less memory "
                               "for the KV cache than derived here",
                               left_out)});
        }
        if (!derived->memory_left)
            warnings.push_back({"gpu",
                                "the weights and reservations leave no memory for the KV cache on one GPU: "
                                "vLLM refuses to start (\"No available memory for the cache blocks\")"});
    }

    CheckInputs ci;
    ci.pool_tokens = P;
    ci.pool_source = p_source;
    ci.max_context = C;
    ci.max_context_source = c_source;
    ci.concurrency = o.concurrency;
    ci.block_size = block;
    ci.block_size_source = block_source;
    ci.model_max_context = m.max_context.value;
    ci.model_max_context_source = m.max_context.source;
    ci.engine = engine;
    // vLLM admits a request when its blocks fit the pool's bytes. Where layers keep different
    // numbers of tokens, the pool in tokens charges each for every token: go by the bytes.
    const bool by_bytes = pool_bytes && engine == Engine::vllm && has_window_or_state(m);
    if (by_bytes) {
        PoolBytes pb;
        pb.pool = *pool_bytes;
        pb.request = sr.kv_bytes_per_gpu;
        // One request of c tokens (n of them at once) fits: the bytes only grow with c.
        auto fit = [&](std::uint64_t c, std::uint64_t n) {
            SizeOptions at = so;
            at.context = c;
            auto s = size_model(m, at);
            if (!s) return false;
            auto need = mul(s->kv_bytes_per_gpu, n);
            return need && *need <= pb.pool;
        };
        const std::uint64_t cap = m.max_context.value;
        // The longest context at which n requests fit; never above the model's own max.
        auto longest = [&](std::uint64_t n) -> std::uint64_t {
            if (!fit(1, n)) return 0;
            std::uint64_t lo = 1, hi = cap;  // lo fits, hi does not
            if (cap) {
                if (fit(cap, n)) return cap;
            } else {
                for (hi = 2; fit(hi, n); hi *= 2) {
                    lo = hi;
                    if (hi > max_exact / 2) return hi;
                }
            }
            while (hi - lo > 1) {
                std::uint64_t mid = lo + (hi - lo) / 2;
                (fit(mid, n) ? lo : hi) = mid;
            }
            return lo;
        };
        pb.max_context = longest(1);
        pb.max_context_source =
            cap && pb.max_context == cap
                ? format("the model's own max context ({})", m.max_context.source)
                : format("the longest request whose bytes per GPU fit the pool's {} B", grouped(pb.pool));
        if (o.concurrency) pb.at_concurrency = longest(*o.concurrency);
        ci.bytes = pb;
    }
    auto checked = check_pool(ci);
    if (!checked) return checked.forward_error();
    const CheckResult& cr = *checked;
    for (const auto& w : cr.warnings)
        warnings.push_back(w);
    if (log.max_model_len && o.max_context && *log.max_model_len != *o.max_context)
        warnings.push_back(
            {"max_context",
             format("the engine logged a max context of {} ({}), not the {} checked "
                    "here",
                    grouped(*log.max_model_len), log.max_model_len_source, grouped(*o.max_context))});
    if (!o.block_size && engine == Engine::vllm && m.has(LayerKind::mla))
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
    else if (sglang_split)
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

    json j;
    j["model"] = m.name;
    j["engine"] = engine_name(engine);
    j["pool_tokens"] = P;
    j["pool_source"] = p_source;
    j["max_context"] = C;
    j["max_context_source"] = c_source;
    j["model_max_context"] = m.max_context.value ? json(m.max_context.value) : json(nullptr);
    j["block_size"] = block;
    j["block_size_source"] = block_source;
    j["fits"] = cr.fits;
    j["fits_by"] = cr.fits_by;
    j["blocks_needed"] = cr.blocks_needed;
    j["blocks_available"] = cr.blocks_available;
    j["max_concurrency"] = hundredths_json(cr.max_concurrency_hundredths);
    // prints as its 2 decimals
    j["max_concurrency_text"] = cr.max_concurrency_text;
    j["max_concurrency_hundredths"] = cr.max_concurrency_hundredths;
    j["max_safe_context"] = cr.max_safe_context;
    j["max_safe_context_source"] = cr.max_safe_context_source;
    j["concurrency"] = or_null(o.concurrency);
    j["concurrency_fits"] = cr.concurrency_fits ? json(*cr.concurrency_fits) : json(nullptr);
    j["max_context_at_concurrency"] = or_null(cr.max_context_at_concurrency);
    j["advice"] = cr.advice;
    j["tp"] = tp;
    j["pp"] = pp;
    j["kv_dtype"] = sr.kv_dtype.name;
    j["bytes_per_token_per_gpu"] = per_token;
    j["accounting"] = accounting_name(so.accounting);
    j["request_bytes_per_gpu"] = sr.kv_bytes_per_gpu;
    j["pool_bytes_per_gpu"] = or_null(pool_bytes);
    j["param_count"] = weights ? json(weights->param_count) : json(nullptr);
    j["weight_bytes"] = weights ? json(weights->weight_bytes) : json(nullptr);
    j["weight_bytes_per_gpu"] = or_null(weights_per_gpu);
    j["weight_dtype"] = weights ? json(weights->dtype.name) : json(nullptr);
    j["pool"] = std::move(pool);
    j["log"] = o.engine_log ? log_json(log) : json(nullptr);
    for (const auto& w : sr.warnings)
        if (w.field != std::string_view("context"))  // the check's max_context warning says it
            warnings.push_back(w);
    if (!weights)
        warnings.push_back(
            {weights.error().field, format("no weights estimate: {}", weights.error().message)});
    j["warnings"] = warnings_json(warnings);
    return j;
}

std::string check_json(std::string_view config, std::string_view options_json) {
    auto m = load_config(config);
    if (!m) return error_text(m.error());
    auto o = parse_options_text(options_json);
    if (!o) return error_text(o.error());
    auto r = check_report(*m, *o);
    if (!r) return error_text(r.error());
    return to_text(*r);
}

std::string table_json(std::string_view configs_json, std::string_view options_json) {
    auto configs = parse_json_text(configs_json);
    if (!configs) {
        Failure f = configs.forward_error();
        f.error->message.insert(0, "configs: ");
        f.error->field = "configs";
        return error_text(f);
    }
    if (!configs->is_array())
        return error_text(field_error(code::bad_option, "configs",
                                      "must be a list of preset ids or configs, got {}",
                                      described(*configs)));
    std::vector<ModelSpec> models;
    for (std::size_t i = 0; i < configs->size(); ++i) {
        const json& c = (*configs)[i];
        Result<ModelSpec> m =
            c.is_string() ? load_config(c.get_ref<const std::string&>())
            : c.is_object()
                ? read_model(c)
                : Result<ModelSpec>(fail(code::bad_option, "", "must be a preset id or a config object"));
        if (!m) {
            Failure f = m.forward_error();
            std::string at = format("configs[{}]", i);
            f.error->message.insert(0, format("{}: ", at));
            if (f.error->field.empty()) f.error->field = at;
            return error_text(f);
        }
        models.push_back(std::move(m.value()));
    }
    auto o = parse_options_text(options_json);
    if (!o) return error_text(o.error());
    auto t = table_report(models, *o);
    if (!t) return error_text(t.error());
    json& out = t.value();  // rendered below before it gains format and text
    if (o->contains("format")) {
        const json& f = (*o)["format"];
        if (!f.is_string())
            return error_text(field_error(code::bad_option, "format", "must be md, html, csv or json, got {}",
                                          described(f)));
        auto text = render_table(*t, f.get<std::string>());
        if (!text) return error_text(text.error());
        out["format"] = f;
        out["text"] = *text;
    }
    return to_text(out);
}

std::string gpu_presets_json() {
    json list = json::array();
    for (std::size_t i = 0; i < gpu_preset_count(); ++i) {
        const GpuPreset& g = gpu_preset_at(i);
        json o;
        o["id"] = g.id;
        o["name"] = g.name;
        o["nominal"] = g.nominal;
        o["memory_bytes"] = gpu_memory_bytes(g);
        o["memory_gib"] = fixed_point(g.memory_gib_hundredths, 2);
        o["measured"] = g.measured;
        o["source"] = g.source;
        list.push_back(std::move(o));
    }
    return to_text(list);
}

}  // namespace kvcalc
