// vLLM's startup log lines (V0 and V1, across releases): its pool in tokens or blocks, its KV
// memory (each rank's), its concurrency, its refusals, its padding layers and version.
#include <algorithm>
#include <array>

#include "check/log_reader.hpp"

namespace kvcalc {

using namespace scan;  // NOLINT: the scanner's vocabulary, throughout

// Forgets what vLLM's lines said of the pool: a new start in the same paste replaces it, and a
// paste read as SGLang's drops it.
void forget_vllm_pool(EngineLog& log) {
    log.pool_tokens.reset();
    log.gpu_blocks.reset();
    log.kv_memory.reset();
    log.concurrency.reset();
    log.refusal.reset();
    log.v0_refusal_tokens.reset();
    log.no_memory = false;
}

void LogReader::vllm_pool(std::string_view s) {
    each_after(s, "GPU KV cache size:", [&](std::size_t p, std::size_t) {
        std::size_t end = 0;
        auto n = read_count(s, skip_spaces(s, p), &end);
        if (!n || s.compare(skip_spaces(s, end), 6, "tokens") != 0) return;
        vllm();
        log_.pool_tokens = LogCount{*n, line_};
        pool_line();
        found(format("vLLM GPU KV cache size: {} tokens", grouped(*n)));
    });
    // "# GPU blocks: N" (V0, and V1 before v0.7.3); "# CUDA blocks: N"; Markdown drops the "# ".
    each_after(s, " blocks:", [&](std::size_t p, std::size_t at) {
        std::size_t w = at;
        while (w > 0 && is_word(s[w - 1]))
            --w;
        const std::string_view device = s.substr(w, at - w);
        static const std::array<std::string_view, 14> devices = {"GPU", "CUDA", "cuda",   "XPU",   "xpu",
                                                                 "NPU", "npu",  "HPU",    "hpu",   "TPU",
                                                                 "tpu", "ROCm", "neuron", "NEURON"};
        if (std::find(devices.begin(), devices.end(), device) == devices.end()) return;
        auto n = read_count(s, skip_spaces(s, p));
        if (!n) return;
        vllm();
        log_.v0 = log_.v0 || s.find("CPU blocks") != npos;
        log_.gpu_blocks = LogCount{*n, line_};
        log_.gpu_blocks_what = format("\"# {} blocks: N\"", device);
        pool_line();
        found(format("vLLM {} blocks: {}", device, grouped(*n)));
    });
    each_after(s, "num_gpu_blocks is:", [&](std::size_t p, std::size_t) {
        auto n = read_count(s, skip_spaces(s, p));
        if (!n) return;
        vllm();
        log_.gpu_blocks = LogCount{*n, line_};
        log_.gpu_blocks_what = "\"num_gpu_blocks is: N\"";
        pool_line();
        found(format("vLLM num_gpu_blocks: {}", grouped(*n)));
    });
    each_after(s, "Overriding num_gpu_blocks=", [&](std::size_t p, std::size_t) {
        std::size_t end = 0;
        auto from = read_count(s, p, &end);
        const std::string_view with = " with num_gpu_blocks_override=";
        auto to =
            from && s.compare(end, with.size(), with) == 0 ? read_count(s, end + with.size()) : std::nullopt;
        if (!to) return;
        vllm();
        if (*from == 0) {
            // v0.19 sizes a dummy cache this way while it profiles CUDA graphs: not the pool.
            found(format("vLLM profiling: a dummy cache of {} blocks (not the pool)", grouped(*to)));
            return;
        }
        log_.gpu_blocks = LogCount{*to, line_};
        log_.gpu_blocks_what = "\"num_gpu_blocks_override\"";
        pool_line();
        found(format("vLLM num_gpu_blocks {} overridden to {}", grouped(*from), grouped(*to)));
    });
    each_after(s, "Maximum concurrency for ", [&](std::size_t p, std::size_t) {
        std::size_t end = 0;
        auto n = read_count(s, p, &end);
        const std::string_view tail = " tokens per request:";
        const std::string_view rest = s.substr(end);
        if (!n || rest.size() < 2 ||
            tail.compare(0, std::min(tail.size(), rest.size()), rest, 0,
                         std::min(tail.size(), rest.size())) != 0)
            return;
        vllm();
        LogConcurrency c{*n, std::nullopt, line_};
        if (rest.size() > tail.size()) {
            auto d = read_decimal(rest, skip_spaces(rest, tail.size()));
            auto h = d ? hundredths(*d) : std::nullopt;
            if (h && d->end < rest.size() && rest[d->end] == 'x') {
                c.hundredths = h;
                log_.concurrency = c;
                set_len(*n, 3, "\"Maximum concurrency for N tokens per request\"");
                found(format("vLLM maximum concurrency {}x for {} tokens per request", decimal_text(*d),
                             grouped(*n)));
                return;
            }
            if (skip_spaces(rest, tail.size()) < rest.size()) return;  // something else follows
        }
        // "Maximum concurrency for 10,000 tokens per": the paste ends before the figure.
        log_.concurrency = c;
        set_len(*n, 3, "\"Maximum concurrency for N tokens per request\"");
        found(format("vLLM max model length {} tokens (the concurrency line is cut before its figure)",
                     grouped(*n)));
    });
}

void LogReader::vllm_memory(std::string_view s) {
    auto read = [&](const char* phrase, const char* what, const char* said) {
        each_after(s, phrase, [&](std::size_t p, std::size_t) {
            auto m = read_memory(s, p, line_);
            if (!m) return;
            vllm();
            memory(*m, what);
            found(format("{} {} per GPU", said, m->text));
            if (std::string_view(phrase) == "Available KV cache memory:") rank(text_).stated = true;
        });
    };
    read("Available KV cache memory:", "\"Available KV cache memory\"", "vLLM available KV cache memory");
    read("the rest of the memory reserved for KV Cache is",
         "V0 \"the rest of the memory reserved for KV Cache\"", "vLLM V0 KV cache memory");
    each_after(s, "kv_cache_size=", [&](std::size_t p, std::size_t) {
        if (s.find("Memory profiling results") == npos) return;
        auto m = read_memory(s, p, line_);
        if (!m) return;
        vllm();
        log_.v0 = true;
        memory(*m, "V0 \"Memory profiling results: ... kv_cache_size\"");
        found(format("vLLM V0 memory profiling: kv_cache_size {} per GPU", m->text));
    });
    // DEBUG lines of each rank: what it requested and what it keeps besides the cache.
    each_after(s, "Requested memory:", [&](std::size_t p, std::size_t) {
        std::size_t q = s.find("(util),", p);
        auto m = q != npos ? read_memory(s, q + 7, line_) : std::nullopt;
        if (m) rank(text_).requested = m;
    });
    each_after(s, "Total non KV cache memory:", [&](std::size_t p, std::size_t) {
        auto m = read_memory(s, p, line_);
        if (m) rank(text_).non_kv = m;
    });
}

void LogReader::vllm_refusal(std::string_view s, std::string_view next) {
    if (s.find("To serve at least one request with the model") != npos) {
        // The message as one text: a paste may wrap it over a few lines.
        std::string all(s);
        if (all.find("estimated maximum model length is") == npos && !next.empty())
            all += " " + std::string(next.substr(0, 2000));
        const std::string_view m = all;
        LogRefusal r;
        r.line = line_;
        std::size_t p = m.find("max seq len");
        if (p != npos) r.max_model_len = count_in_parens(m, p + 11);
        p = m.find("GiB KV cache is needed");
        if (p != npos) {
            std::size_t a = p;
            while (a > 0 && (is_digit(m[a - 1]) || m[a - 1] == '.' || m[a - 1] == ' '))
                --a;
            r.needed = read_memory(m, a, line_);
        }
        p = m.find("available KV cache memory");
        if (p != npos) {
            std::size_t a = skip_spaces(m, p + 25);
            if (a < m.size() && m[a] == '(') ++a;
            r.available = read_memory(m, a, line_);
        }
        p = m.find("estimated maximum model length is");
        if (p != npos) r.estimated_max_len = read_count(m, skip_spaces(m, p + 33));
        r.cut = !r.estimated_max_len && m.find("Try increasing") == npos;
        vllm();
        lead();
        if (r.available) memory(*r.available, "the refusal's \"available KV cache memory\"");
        log_.refusal = r;
        if (r.max_model_len) set_len(*r.max_model_len, 3, "the refusal's \"max seq len\"");
        pool_line();
        std::string what = "vLLM refused to start";
        if (r.max_model_len) format_to(what, ": max seq len {}", grouped(*r.max_model_len));
        if (r.needed) format_to(what, ", {} needed", r.needed->text);
        if (r.available) format_to(what, ", {} available", r.available->text);
        if (r.estimated_max_len)
            format_to(what, ", estimated maximum model length {}", grouped(*r.estimated_max_len));
        if (r.cut) what += " (the message is cut before its estimate)";
        found(std::move(what));
    }
    each_after(s, "is larger than the maximum number of tokens that can be stored in KV cache",
               [&](std::size_t p, std::size_t) {
                   auto n = count_in_parens(s, p);
                   if (!n) return;
                   vllm();
                   log_.v0 = true;
                   log_.v0_refusal_tokens = LogCount{*n, line_};
                   std::size_t q = s.find("max seq len");
                   if (q != npos && q < p)
                       if (auto len = count_in_parens(s, q + 11))
                           set_len(*len, 3, "V0's refusal \"max seq len\"");
                   pool_line();
                   found(format("vLLM V0 refused to start: the KV cache stores {} tokens", grouped(*n)));
               });
    if (s.find("No available memory for the cache blocks") != npos) {
        vllm();
        log_.no_memory = true;
        pool_line();
        found("vLLM refused to start: no memory for the cache blocks");
    }
}

void LogReader::vllm_other(std::string_view s) {
    each_after(s, "Add ", [&](std::size_t p, std::size_t) {
        std::size_t end = 0;
        auto n = read_count(s, p, &end);
        if (!n || s.compare(end, 15, " padding layers") != 0) return;
        vllm();
        lead();
        log_.padding_layers = LogCount{*n, line_};
        found(format("vLLM added {} padding layers to fill its KV cache groups", grouped(*n)));
    });
    for (const char* phrase : {"Multiplying the GPU KV cache size by the dcp_world_size",
                               "Multiplying the GPU KV cache size by the cp_world_size"})
        each_after(s, phrase, [&](std::size_t p, std::size_t) {
            auto n = read_count(s, skip_spaces(s, p));
            if (!n) return;
            vllm();
            log_.cp_multiplier = LogCount{*n, line_};
            found(format("vLLM multiplies its token figure by the context-parallel size {}", grouped(*n)));
        });
    each_after(s, "Auto-fit max_model_len: reduced from ", [&](std::size_t p, std::size_t) {
        std::size_t end = 0;
        auto from = read_count(s, p, &end);
        auto to = from && s.compare(end, 4, " to ") == 0 ? read_count(s, end + 4) : std::nullopt;
        if (!to) return;
        vllm();
        log_.auto_fit_from = LogCount{*from, line_};
        set_len(*to, 4, "\"Auto-fit max_model_len\"");
        found(format("vLLM reduced max_model_len from {} to {} to fit its memory", grouped(*from),
                     grouped(*to)));
    });
    // "Setting KV cache block size to 128 to match MiniMax-M3 sparse block size (was 16)."
    for (const char* phrase : {"Forcing kv cache block size to ", "Setting attention block size to ",
                               "Setting KV cache block size to "})
        each_after(s, phrase, [&](std::size_t p, std::size_t) {
            auto n = read_count(s, p);
            if (!n) return;
            vllm();
            log_.block_size = LogCount{*n, line_};
            found(format("vLLM block size {} tokens", grouped(*n)));
        });
    for (const char* phrase : {"Initializing a V1 LLM engine (v", "Initializing an LLM engine (v",
                               "vLLM API server version ", "Initializing a V0 LLM engine (v"})
        each_after(s, phrase, [&](std::size_t p, std::size_t) {
            std::string v = read_word(s, p);
            if (v.empty() || !is_digit(v[0])) return;
            vllm();
            log_.version = v;
            log_.v0 = log_.v0 || std::string_view(phrase).find("an LLM") != npos;
            found(format("vLLM version {}", v));
        });
}

}  // namespace kvcalc
