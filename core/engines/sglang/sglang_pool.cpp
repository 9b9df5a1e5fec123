// SGLang's pool as its startup log states it: in tokens (its scheduler's, a split pool's full
// layers', or the allocation line's), its limits on requests at once, and its K / V sizes
// against kvcalc's bytes per token.
#include "engines/sglang/sglang_pool.hpp"
#include "check/check_log.hpp"
#include "sizing/checked.hpp"
#include "sizing/units.hpp"

namespace kvcalc {

Result<SglangPoolSplit> sglang_split_pool(const PoolInputs& in, std::uint64_t pool_bytes) {
    SglangPoolSplit s;
    // What the attention layers' tokens get: all of the pool, less the state's share
    // (mamba_full_memory_ratio 0.9: 0.9 / 1.9 of it).
    s.state_share = in.sglang_state ? pool_bytes * 9 / 19 : 0;  // < 2^53 x 9
    s.kv_bytes = pool_bytes - s.state_share;
    if (in.sglang_sliding_bytes_per_token > 0) {
        // full_tokens = pool / (F + 0.8 x S) = 5 x pool / (5F + 4S), in whole pages
        const std::uint64_t sl = in.sglang_sliding_bytes_per_token, f = in.bytes_per_token_per_gpu - sl;
        auto den = add(mul(5, f), mul(4, sl));
        auto tokens = mul(s.kv_bytes, 5);
        if (!den || !tokens)
            return fail(code::overflow, "gpu_memory", "the pool's arithmetic exceeds 2^53 - 1");
        // derive_pool checked the block and the bytes a token: neither is 0 here.
        s.pool_blocks = *den && in.block_size ? *tokens / *den / in.block_size : 0;
    } else {
        auto page = mul(in.block_size, in.bytes_per_token_per_gpu);
        s.pool_blocks = page && *page ? s.kv_bytes / *page : 0;
    }
    return s;
}

void sglang_split_steps(const PoolInputs& in, const SglangPoolSplit& s, PoolResult& r) {
    auto bytes = [](std::uint64_t b) { return format("{} B ({})", grouped(b), format_bytes(b)); };
    if (in.sglang_state)
        r.steps.push_back(
            format("- 0.9 / 1.9 of it for the Mamba / linear-attention state "
                   "(SGLang's mamba_full_memory_ratio 0.9) {} = {} for the attention layers",
                   bytes(s.state_share), bytes(s.kv_bytes)));
    if (in.sglang_sliding_bytes_per_token > 0)
        r.steps.push_back(
            format("/ ({} B per token for the full layers + 0.8 x {} B for the sliding ones, "
                   "SGLang's swa_full_tokens_ratio 0.8) = {} pages of {} = {} full-layer tokens "
                   "(the sliding layers hold 0.8 of that)",
                   grouped(in.bytes_per_token_per_gpu - in.sglang_sliding_bytes_per_token),
                   grouped(in.sglang_sliding_bytes_per_token), grouped(r.pool_blocks), grouped(in.block_size),
                   grouped(r.pool_tokens)));
    else
        r.steps.push_back(format("/ ({} tokens x {} B per token per GPU) = {} whole blocks = {} tokens",
                                 grouped(in.block_size), grouped(in.bytes_per_token_per_gpu),
                                 grouped(r.pool_blocks), grouped(r.pool_tokens)));
}

// SGLang's pool in tokens, and its K / V sizes against kvcalc's bytes per token.
void read_sglang_log_pool(const LogInputs& in, const SizeResult& r, LogPool& out) {
    const EngineLog& log = in.log;
    // The scheduler's max_total_num_tokens, else the full layers' pool of a split one, else the
    // allocation line (the reader refuses a log with none of them).
    const char* said = "max_total_num_tokens";
    std::optional<LogCount> pool = log.max_total_num_tokens;
    if (!pool && log.full_layer_tokens) {
        pool = log.full_layer_tokens;
        said = "full_layer_tokens (its full-attention layers' pool)";
    } else if (!pool) {
        pool = log.sglang_tokens;
        said = "\"KV Cache is allocated. #tokens\"";
    }
    if (!pool) return;
    out.tokens = pool->value;
    out.source = format("the engine log: SGLang's {} (line {})", said, pool->line);
    // Requests at once: its scheduler's cap, and a Mamba state each.
    if (log.max_running_requests) {
        out.max_requests = log.max_running_requests->value;
        out.max_requests_source = format("max_running_requests, line {}", log.max_running_requests->line);
    }
    if (log.mamba_cache_size && (!out.max_requests || log.mamba_cache_size->value < *out.max_requests)) {
        out.max_requests = log.mamba_cache_size->value;
        out.max_requests_source =
            format("its Mamba cache's max_mamba_cache_size, line {}", log.mamba_cache_size->line);
    }
    if (!log.sglang_tokens || log.full_layer_tokens) return;  // a split pool's sizes are per pool
    // SGLang allocates #tokens + one page of slots in every layer it counts.
    std::uint64_t k = 0, v = 0;
    const std::uint64_t bits = r.kv_dtype.bits;
    for (const GroupFigures& g : r.groups) {
        const LayerGroup& lg = in.m.groups[g.group];
        if (lg.kind == LayerKind::linear_state || lg.kind == LayerKind::no_cache) continue;
        if (lg.kind == LayerKind::mla) {
            k += lg.count * g.bytes_per_token_layer_per_gpu;  // one latent: "KV size"
            continue;
        }
        k += lg.count * cdiv(g.kv_heads_per_gpu * lg.k_head_dim.value * bits, 8);
        v += lg.count * cdiv(g.kv_heads_per_gpu * lg.v_head_dim.value * bits, 8);
    }
    const std::uint64_t slots = log.sglang_tokens->value + (log.page_size ? log.page_size->value : in.block);
    auto compare = [&](const char* name, const std::optional<LogMemory>& said, std::uint64_t per_token) {
        if (!said) return;
        const std::uint64_t bytes = slots * per_token;
        out.checks.push_back({name, said->text,
                              format("{} B ({}): ({} tokens + one page of {}) x {} B per token per GPU",
                                     grouped(bytes), log_gib(bytes), grouped(log.sglang_tokens->value),
                                     grouped(slots - log.sglang_tokens->value), grouped(per_token)),
                              said->low <= bytes && bytes <= said->high, said->line, log_gib(bytes)});
    };
    compare("K size", log.k_size, k);
    compare("V size", log.v_size, v);
    compare("KV size", log.kv_size, k);
    if (log.max_total_num_tokens && log.max_total_num_tokens->value != log.sglang_tokens->value)
        out.checks.push_back(
            {"pool", format("max_total_num_tokens {}", grouped(log.max_total_num_tokens->value)),
             format("\"KV Cache is allocated. #tokens: {}\" (line {})", grouped(log.sglang_tokens->value),
                    log.sglang_tokens->line),
             false, log.max_total_num_tokens->line, format("{} tokens", grouped(log.sglang_tokens->value))});
}

namespace {

// "0.5.11", "0.4.3.post2", "0.5.0rc2": major, minor and patch, compared as a triple.
std::uint64_t version_key(const std::string& v) {
    std::uint64_t parts[3] = {0, 0, 0};
    std::size_t i = 0;
    for (std::uint64_t& p : parts) {
        std::size_t digits = 0;
        while (i < v.size() && v[i] >= '0' && v[i] <= '9' && digits++ < 6)
            p = p * 10 + static_cast<std::uint64_t>(v[i++] - '0');
        if (i >= v.size() || v[i] != '.') break;
        ++i;
    }
    return (parts[0] * 1000000 + parts[1]) * 1000000 + parts[2];
}

}  // namespace

void sglang_short_pool_advice(const EngineLog& log, std::vector<std::string>& advice,
                              std::vector<Warning>& warnings) {
    // managers/scheduler.py: max_req_input_len = min(context_len - 1, max_total_num_tokens - 1) (less a few
    // tokens); a longer prompt gets "Input length (N tokens) exceeds the maximum allowed length", or is cut
    // with --allow-auto-truncate (managers/utils.py validate_input_length).
    advice.push_back(
        "SGLang starts anyway and caps each request at the pool: a longer prompt gets HTTP 400 (\"Input "
        "length ... exceeds the maximum allowed length\"), or is cut with --allow-auto-truncate; older "
        "releases truncated long prompts silently.");
    // https://github.com/sgl-project/sglang/issues/30233 (kevin-14, 2026-07-06): SGLang 0.5.11 with
    // prefill-decode disaggregation (mooncake), max_total_num_tokens 284,928 under context_len 1,048,576; a
    // prompt of 284,937 tokens was aborted on the prefill side (set_finish_with_abort keeps one token), yet
    // the decode side generated from the one token of KV it received. Closed as inactive; the fixes
    // proposed (PRs #30325, #30551) were open when the thread was stored.
    // The releases to run, as kvcalc's issue 33 decided: before 0.5.20 an over-long prompt could be served
    // without an error; 0.5.22 or later is the version to run.
    advice.push_back(
        "SGLang releases before 0.5.20 could serve a prompt longer than the pool without an error: with "
        "prefill-decode disaggregation the prefill side aborts it but still sends one token of KV, and the "
        "decode side generates from it (sgl-project/sglang#30233, reported on 0.5.11; PRs #30325 and "
        "#30551). Run 0.5.22 or later, and keep --context-length at the pool.");
    const std::string& mode = log.disaggregation_mode;
    const bool disaggregated = mode == "prefill" || mode == "decode";
    const bool known = !log.version.empty();
    const bool before_fix = known && version_key(log.version) < version_key("0.5.20");
    const bool before_advised = known && version_key(log.version) < version_key("0.5.22");
    std::string said;
    if (known)
        said = format("The log states SGLang {} (line {}): {}", log.version, log.version_line,
                      before_fix       ? "before 0.5.20"
                      : before_advised ? "0.5.20 or later, before the 0.5.22 to run"
                                       : "0.5.22 or later");
    else
        said = "The log states no SGLang version (python3 -m sglang.check_env prints it)";
    if (disaggregated)
        said += format(", and disaggregation_mode {} (line {}): the deployment the issue describes.", mode,
                       log.disaggregation_mode_line);
    else if (mode == "null")
        said += format(
            ", and disaggregation_mode null (line {}): not disaggregated, so the issue does not apply.",
            log.disaggregation_mode_line);
    else
        said += ", and not whether it runs disaggregated.";
    advice.push_back(std::move(said));
    if ((disaggregated && (!known || before_advised)) || (before_fix && mode != "null"))
        warnings.push_back(
            {"max_context",
             format("this SGLang deployment ({}{}) has a pool smaller than its context: a prompt longer "
                    "than the pool can be answered without an error, HTTP 200 (sgl-project/sglang#30233); "
                    "run SGLang 0.5.22 or later",
                    known ? "SGLang " + log.version : "no version stated",
                    disaggregated ? ", prefill-decode disaggregation" : "")});
}

}  // namespace kvcalc
