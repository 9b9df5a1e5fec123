#include "check.hpp"

#include <algorithm>

#include "checked.hpp"
#include "units.hpp"

namespace kvcalc {
namespace {

std::string n(std::uint64_t v) {
    return group_thousands(v);
}

// Whether the nearest double to t = odd / 200 lies above t. t has no finite binary
// expansion (the caller checks 25 does not divide odd), so there is never a tie at the
// 53rd bit: the double rounds up exactly when the first dropped bit is 1.
bool nearest_double_above(std::uint64_t odd) {
    const std::uint64_t den = 200;
    std::uint64_t whole = odd / den, rem = odd % den;
    int bits = 0;  // significant bits produced so far
    for (std::uint64_t w = whole; w; w >>= 1)
        ++bits;
    if (bits > 53) {
        // The integer part alone exceeds the significand: the first dropped bit is in it.
        return (whole >> (bits - 54)) & 1;
    }
    bool started = whole != 0;
    for (int guard = 0; guard < 2000; ++guard) {
        rem *= 2;
        bool bit = rem >= den;
        if (bit) rem -= den;
        if (started || bit) {
            started = true;
            if (bits == 53) return bit;  // the 54th significant bit
            ++bits;
        }
    }
    return false;  // not reached: a fraction of /200 starts within a few bits
}

}  // namespace

std::uint64_t printf_hundredths(std::uint64_t num, std::uint64_t den) {
    if (den == 0) return 0;
    // 100 x num / den = h + r / den, without overflow for num < 2^53.
    std::uint64_t q = num / den, r = num % den;
    std::uint64_t h = q * 100, rest = r * 100;  // r < den < 2^53: r x 100 < 2^60
    h += rest / den;
    std::uint64_t rr = rest % den;
    if (2 * rr < den) return h;
    if (2 * rr > den) return h + 1;
    // Exact tie: num / den = (2h + 1) / 200.
    std::uint64_t odd = 2 * h + 1;
    if (odd % 25 == 0) return h % 2 == 0 ? h : h + 1;  // representable: printf rounds half to even
    return nearest_double_above(odd) ? h + 1 : h;
}

std::string hundredths_text(std::uint64_t h) {
    return fixed_point(h, 2);
}

Result<CheckResult> check_pool(const CheckInputs& in) {
    if (in.max_context == 0)
        return make_error(code::bad_option, "max_context: must be a positive number of tokens",
                          "max_context");
    if (in.block_size == 0)
        return make_error(code::bad_option, "block_size: must be at least 1", "block_size");
    if (in.concurrency && *in.concurrency == 0)
        return make_error(code::bad_option, "concurrency: must be at least 1", "concurrency");
    CheckResult r;
    const std::uint64_t B = in.block_size, P = in.pool_tokens, C = in.max_context;
    const bool vllm = in.engine == Engine::vllm;
    r.blocks_available = P / B;
    r.blocks_needed = cdiv(C, B);
    r.fits = r.blocks_needed <= r.blocks_available;
    r.max_concurrency_hundredths = printf_hundredths(P, C);
    r.max_concurrency_text = hundredths_text(r.max_concurrency_hundredths);
    std::uint64_t whole_blocks = r.blocks_available * B;
    r.max_safe_context = whole_blocks;
    r.max_safe_context_source = "the pool of " + n(P) + " tokens in whole " + n(B) + "-token blocks";
    if (in.model_max_context && in.model_max_context < whole_blocks) {
        r.max_safe_context = in.model_max_context;
        r.max_safe_context_source = "the model's own max context (" + in.model_max_context_source + ")";
    }
    if (in.model_max_context && C > in.model_max_context)
        r.warnings.push_back({"max_context", "the advertised context " + n(C) +
                                                 " is above the model's own max " + n(in.model_max_context) +
                                                 " (" + in.model_max_context_source +
                                                 "): engines refuse to start with it unless told to"});

    const std::string safe = std::to_string(r.max_safe_context);
    const std::string flags = "--max-model-len " + safe + " (vLLM) / --context-length " + safe + " (SGLang)";
    if (r.max_safe_context == 0) {
        r.advice.push_back("The pool (" + n(P) + " tokens) holds no whole block of " + n(B) +
                           " tokens: no request can be served. Give the cache more memory (a higher "
                           "gpu_memory_utilization / mem_fraction_static, more GPUs, a smaller KV dtype).");
    } else if (!r.fits) {
        r.advice.push_back("Does not fit: one request of " + n(C) + " tokens needs " + n(r.blocks_needed) +
                           " blocks of " + n(B) + " tokens; the pool has " + n(r.blocks_available) + ".");
        r.advice.push_back("Set " + flags + ", and advertise no more than " + n(r.max_safe_context) +
                           " tokens.");
        r.advice.push_back("Test it: a prompt of " + n(r.max_safe_context + 1) +
                           " tokens must get an error (HTTP 400), not a 200.");
        if (!vllm)
            r.advice.push_back(
                "SGLang starts anyway and caps each request at the pool; older releases truncated "
                "long prompts silently.");
    } else {
        r.advice.push_back("Fits: one request of " + n(C) + " tokens needs " + n(r.blocks_needed) +
                           " of the pool's " + n(r.blocks_available) + " blocks; " + r.max_concurrency_text +
                           "x such requests fit at once.");
        r.advice.push_back("Keep " + std::string(vllm ? "--max-model-len " : "--context-length ") +
                           std::to_string(C) + " (the pool would allow " + n(r.max_safe_context) + ").");
        r.advice.push_back("Test it: a prompt of " + n(C + 1) +
                           " tokens must get an error (HTTP 400), not a 200.");
    }
    if (in.concurrency) {
        const std::uint64_t N = *in.concurrency;
        auto need = mul(N, r.blocks_needed);
        r.concurrency_fits = need && *need <= r.blocks_available;
        std::uint64_t ctx = r.blocks_available / N * B;
        if (in.model_max_context) ctx = std::min(ctx, in.model_max_context);
        r.max_context_at_concurrency = ctx;
        if (*r.concurrency_fits) {
            r.advice.push_back(n(N) + " concurrent requests of " + n(C) + " tokens fit (" +
                               n(need.value_or(0)) + " of " + n(r.blocks_available) + " blocks).");
        } else {
            r.advice.push_back(n(N) + " concurrent requests of " + n(C) +
                               " tokens do not fit: the pool holds " + r.max_concurrency_text + "x. For " +
                               n(N) + " at once, each can have at most " + n(ctx) +
                               " tokens; beyond that the engine queues or preempts requests.");
        }
    }
    return r;
}

}  // namespace kvcalc
