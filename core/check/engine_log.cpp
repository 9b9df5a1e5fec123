#include "check/engine_log.hpp"

#include <algorithm>

#include "check/log_reader.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {

using namespace scan;  // NOLINT: the scanner's vocabulary, throughout

namespace {

const char* looked_for =
    "vLLM's \"GPU KV cache size: N tokens\", \"# GPU blocks: N\", \"Available KV cache memory: X GiB\", V0's "
    "\"kv_cache_size=X GiB\" or \"the rest of the memory reserved for KV Cache is X GiB\", its refusal \"To "
    "serve at least one request with the models's max seq len (N), (X GiB KV cache is needed ...\", and "
    "SGLang's \"KV Cache is allocated. #tokens: N\" or \"max_total_num_tokens=N\"";

}  // namespace

// The process prefix of a line: "(Worker_PP1 pid=443)", else "".
LogReader::Rank& LogReader::rank(std::string_view text) {
    std::string prefix;
    std::size_t a = text.find('(');
    if (a < 8) {  // npos is not
        std::size_t b = text.find(')', a);
        if (b != npos && b - a < 60) prefix = std::string(text.substr(a, b - a + 1));
    }
    for (Rank& r : ranks_)
        if (r.prefix == prefix) return r;
    ranks_.push_back({prefix, {}, {}, false});
    return ranks_.back();
}

// TP ranks in the prefixes: "(Worker_TP3 pid=..)", "(Worker_TP1_EP1 ..)", "[2025-... TP3]".
void LogReader::ranks(std::string_view s) {
    const std::string_view head = s.substr(0, std::min<std::size_t>(s.size(), 64));
    each_after(head, "TP", [&](std::size_t p, std::size_t at) {
        if (at == 0 || (head[at - 1] != '_' && head[at - 1] != ' ')) return;
        std::size_t e = p;
        unsigned n = 0;
        while (e < head.size() && is_digit(head[e]) && n < 4096)
            n = n * 10 + static_cast<unsigned>(head[e++] - '0');
        if (e == p || n >= 4096 ||
            (e < head.size() && head[e] != '_' && head[e] != ' ' && head[e] != ']' && head[e] != ')'))
            return;
        if (tp_seen_.size() <= n) tp_seen_.resize(n + 1, false);
        tp_seen_[n] = true;
    });
}

// The deployment's settings, wherever a line states them: the engine's config line, its
// non-default args, SGLang's server args, or the command line.
void LogReader::deployment(std::string_view s) {
    auto count = [&](std::initializer_list<const char*> keys, std::optional<LogCount>& slot,
                     std::string& what, const char* said) {
        for (const char* key : keys)
            each_key(s, key, [&](std::size_t p) {
                auto n = count_after(s, p);
                if (!n || *n == 0) return;
                if (!slot || slot->value != *n) found(format("{} {}", said, grouped(*n)));
                slot = LogCount{*n, line_};
                what = format("\"{}\"", std::string_view(key).substr(0, std::string_view(key).size()));
            });
    };
    count({"tensor_parallel_size=", "'tensor_parallel_size':", "\"tensor_parallel_size\":",
           "--tensor-parallel-size", "-tp", "--tp-size", "--tp", "tp_size="},
          log_.tp, log_.tp_what, "tensor parallel");
    count({"pipeline_parallel_size=", "'pipeline_parallel_size':", "\"pipeline_parallel_size\":",
           "--pipeline-parallel-size", "-pp", "--pp-size", "pp_size="},
          log_.pp, log_.pp_what, "pipeline parallel");
    std::string unused;
    count({"'block_size':", "--block-size"}, log_.block_size, unused, "block size");
    count({"max_num_batched_tokens=", "'max_num_batched_tokens':", "--max-num-batched-tokens"},
          log_.max_num_batched_tokens, unused, "max_num_batched_tokens");
    count({"page_size="}, log_.page_size, unused, "SGLang page size");
    count({"'num_speculative_tokens':", "\"num_speculative_tokens\":"}, log_.num_speculative_tokens, unused,
          "speculative tokens");
    for (const char* key : {"'mamba_cache_mode':", "mamba_cache_mode=", "--mamba-cache-mode"})
        each_key(s, key, [&](std::size_t p) {
            std::string v = read_word(s, p);
            if (v != "none" && v != "align" && v != "all") return;
            if (v != log_.mamba_cache_mode) found(format("Mamba cache mode {}", v));
            log_.mamba_cache_mode = v;
            log_.mamba_cache_mode_line = line_;
        });
    for (const char* key : {"'enable_prefix_caching':", "enable_prefix_caching="})
        each_key(s, key, [&](std::size_t p) {
            std::string v = read_word(s, p);
            if (v == "True" && !log_.prefix_caching_line) found("prefix caching on");
            if (v == "True") log_.prefix_caching_line = line_;
        });
    for (const char* key : {"max_seq_len=", "'max_model_len':", "max_model_len=", "--max-model-len"})
        each_key(s, key, [&](std::size_t p) {
            auto n = count_after(s, p);
            const bool config = std::string_view(key) == "max_seq_len=";
            if (n && set_len(*n, config ? 2 : 1,
                             config ? "the engine config's max_seq_len" : "the max_model_len argument"))
                found(format("max model length {}", grouped(*n)));
        });
    for (const char* key : {"kv_cache_dtype=", "'kv_cache_dtype':", "--kv-cache-dtype"})
        each_key(s, key, [&](std::size_t p) {
            std::string v = read_word(s, p);
            if (v.empty() || v == "None") return;
            if (v != log_.kv_cache_dtype) found(format("KV cache dtype {}", v));
            log_.kv_cache_dtype = v;
            log_.kv_cache_dtype_line = line_;
        });
    for (const char* key : {"indexer_kv_dtype=", "'indexer_kv_dtype':", "\"indexer_kv_dtype\":"})
        each_key(s, key, [&](std::size_t p) {
            std::string v = read_word(s, p);
            if (v != "bf16" && v != "fp8" && v != "fp8_e4m3")
                return;  // "auto" and others: not a stored dtype
            if (v != log_.indexer_kv_dtype) found(format("indexer KV dtype {}", v));
            log_.indexer_kv_dtype = v;
            log_.indexer_kv_dtype_line = line_;
        });
    for (const char* key : {"dtype=torch.", "'dtype': '", "--dtype"})
        each_key(s, key, [&](std::size_t p) {
            std::string v = read_word(s, p);
            if (v.empty() || v == "auto") return;
            if (v != log_.model_dtype) found(format("model dtype {}", v));
            log_.model_dtype = v;
            log_.model_dtype_line = line_;
        });
}

namespace {

// Whether `line` holds any of `words`: one cheap look before the many a group of lines needs.
bool any_of(std::string_view line, std::initializer_list<std::string_view> words) {
    for (std::string_view w : words)
        if (line.find(w) != npos) return true;
    return false;
}

}  // namespace

void LogReader::line(std::string_view text, std::string_view next, int no) {
    line_ = no;
    text_ = text;
    ranks(text);
    if (any_of(text, {"blocks", "cache size", "concurrency"})) vllm_pool(text);
    if (any_of(text, {"memory", "kv_cache_size="})) vllm_memory(text);
    if (any_of(text, {"To serve", "stored in KV cache", "No available"})) vllm_refusal(text, next);
    if (any_of(text, {"padding", "Multiplying", "Auto-fit", "block size", "LLM engine", "server version"}))
        vllm_other(text);
    if (any_of(text, {"KV Cache", "max_", "context_len", "layer_tokens"})) sglang_lines(text);
    if (any_of(text, {"sglang", "SGLang", "disaggregation"})) sglang_setup(text);
    if (any_of(text, {"parallel", "tp", "pp", "block", "batched", "page_size", "max_", "max-", "dtype"}))
        deployment(text);
}

// A rank that printed no INFO line of its KV memory: its DEBUG lines give it, and the pool
// follows the smallest rank.
void LogReader::settle_ranks() {
    for (const Rank& r : ranks_) {
        if (r.stated || !r.requested || !r.non_kv || r.requested->low < r.non_kv->high) continue;
        LogMemory m{r.requested->bytes - std::min(r.requested->bytes, r.non_kv->bytes),
                    r.requested->low - r.non_kv->high, r.requested->high - r.non_kv->low,
                    format("{} - {}", r.requested->text, r.non_kv->text), r.non_kv->line};
        if (!log_.kv_memory || m.high < log_.kv_memory->high) {
            log_.kv_memory = m;
            log_.kv_memory_what = format("{}'s \"Requested memory\" less its \"Total non KV cache memory\"",
                                         r.prefix.empty() ? std::string("a rank") : r.prefix);
            // In line order: this rank's lines came before the pool line that settles it.
            auto at = log_.understood.end();
            while (at != log_.understood.begin() && (at - 1)->line > m.line)
                --at;
            log_.understood.insert(
                at, {m.line, 0,
                     format("vLLM KV cache memory of {}: {} (it prints no \"Available KV cache "
                            "memory\"; this is the smallest rank)",
                            r.prefix, m.text),
                     ""});
        }
    }
    ranks_.clear();
}

Result<EngineLog> LogReader::finish() {
    EngineLog& log = log_;
    settle_ranks();
    unsigned contiguous = 0;
    while (contiguous < tp_seen_.size() && tp_seen_[contiguous])
        ++contiguous;
    log.tp_rank_max = static_cast<unsigned>(tp_seen_.size());
    log.tp_ranks_seen = contiguous == tp_seen_.size() ? contiguous : 0;

    const bool pool = log.pool_tokens || log.gpu_blocks || log.kv_memory || log.refusal ||
                      log.v0_refusal_tokens || log.no_memory || log.sglang_tokens ||
                      log.max_total_num_tokens || log.full_layer_tokens;
    if (!pool) {
        std::string msg = format("engine log: no line states the KV pool; looked for {}", looked_for);
        if (log.understood.empty()) {
            msg += ". No line was understood";
        } else {
            msg += ". Understood:";
            for (std::size_t i = 0; i < log.understood.size() && i < 8; ++i)
                format_to(msg, i ? "; line {} ({})" : " line {} ({})", log.understood[i].line,
                          log.understood[i].what);
            if (log.understood.size() > 8) format_to(msg, "; and {} more", log.understood.size() - 8);
            msg += ", but none of these is a pool size";
        }
        return fail(code::unrecognised_log, "engine_log", "{}", msg);
    }
    if (vllm_line_ && sglang_line_) {
        if (only_.empty())
            return fail(
                code::unrecognised_log, "engine_log",
                "engine log: it holds lines of both vLLM (line {}) and SGLang (line {}): paste one engine's "
                "log, or give engine to say which to read",
                vllm_line_, sglang_line_);
    }
    log.engine = !only_.empty() && vllm_line_ && sglang_line_ ? only_
                 : sglang_line_                               ? "sglang"
                 : vllm_line_                                 ? "vllm"
                                                              : "";
    if (log.engine == "sglang") {
        // vLLM's figures in a paste read as SGLang's are dropped, and the other way round.
        forget_vllm_pool(log);
        log.version = sglang_version_;
        log.version_line = sglang_version_line_;
    } else if (log.engine == "vllm") {
        log.sglang_tokens.reset();
        log.max_total_num_tokens.reset();
        log.full_layer_tokens.reset();
        log.disaggregation_mode.clear();
    }
    if (!(log.pool_tokens || log.gpu_blocks || log.kv_memory || log.refusal || log.v0_refusal_tokens ||
          log.no_memory || log.sglang_tokens || log.max_total_num_tokens || log.full_layer_tokens))
        return fail(code::unrecognised_log, "engine_log", "engine log: no {} line states the KV pool",
                    log.engine);
    return std::move(log);
}

Result<EngineLog> parse_engine_log(std::string_view text, std::string_view engine) {
    LogReader reader(engine);
    std::string line, next;
    int no = 0;
    for (std::size_t start = 0; start < text.size() || (start == 0 && text.empty());) {
        std::size_t nl = text.find('\n', start);
        const std::size_t stop = nl == npos ? text.size() : nl;
        clean(text.substr(start, stop - start), line);
        // The next line, for a message a paste wrapped (vLLM's refusal).
        next.clear();
        if (nl != npos && line.find("To serve at least one request") != npos) {
            std::size_t nn = text.find('\n', nl + 1);
            clean(text.substr(nl + 1, (nn == npos ? text.size() : nn) - nl - 1), next);
        }
        reader.line(line, next, ++no);
        if (nl == npos) break;
        start = nl + 1;
    }
    return reader.finish();
}

}  // namespace kvcalc