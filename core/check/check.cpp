#include "check/check.hpp"

#include <algorithm>

#include "sizing/checked.hpp"
#include "sizing/units.hpp"

namespace kvcalc {
namespace {

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
        return fail(code::bad_option, "max_context", "max_context: must be a positive number of tokens");
    if (in.block_size == 0) return fail(code::bad_option, "block_size", "block_size: must be at least 1");
    if (in.concurrency && *in.concurrency == 0)
        return fail(code::bad_option, "concurrency", "concurrency: must be at least 1");
    CheckResult r;
    const std::uint64_t B = in.block_size, P = in.pool_tokens, C = in.max_context;
    const bool vllm = in.engine == Engine::vllm;
    const PoolBytes* by = in.bytes ? &*in.bytes : nullptr;
    r.blocks_available = P / B;
    r.blocks_needed = cdiv(C, B);
    if (by) {
        r.fits_by = "bytes";
        r.fits = by->request <= by->pool;
        r.max_concurrency_hundredths = printf_hundredths(by->pool, by->request);
        r.max_safe_context = by->max_context;
        r.max_safe_context_source = by->max_context_source;
    } else {
        r.fits = r.blocks_needed <= r.blocks_available;
        r.max_concurrency_hundredths = in.concurrency_in_blocks
                                           ? printf_hundredths(r.blocks_available, r.blocks_needed)
                                           : printf_hundredths(P, C);
        std::uint64_t whole_blocks = r.blocks_available * B;
        r.max_safe_context = whole_blocks;
        r.max_safe_context_source =
            format("the pool of {} tokens in whole {}-token blocks", grouped(P), grouped(B));
        if (in.model_max_context && in.model_max_context < whole_blocks) {
            r.max_safe_context = in.model_max_context;
            r.max_safe_context_source =
                format("the model's own max context ({})", in.model_max_context_source);
        }
    }
    if (in.max_requests && r.max_concurrency_hundredths > *in.max_requests * 100) {
        r.max_concurrency_hundredths = *in.max_requests * 100;
        r.warnings.push_back(
            {"max_concurrency", format("the engine runs at most {} requests at once ({}): the concurrency is "
                                       "capped there",
                                       grouped(*in.max_requests), in.max_requests_source)});
    }
    if (in.engine_said) {
        // The engine's own verdict on this very context: followed, whatever kvcalc computed.
        const EngineSaid& e = *in.engine_said;
        r.fits = e.fits;
        r.verdict_source = format("the engine's own verdict ({})", e.source);
        if (e.hundredths) r.max_concurrency_hundredths = *e.hundredths;
        if (e.max_context) {
            r.max_safe_context = *e.max_context;
            r.max_safe_context_source = format("the engine's own estimate ({})", e.source);
        }
    }
    r.max_concurrency_text = hundredths_text(r.max_concurrency_hundredths);
    const bool above_model = in.model_max_context && C > in.model_max_context;
    if (above_model)
        r.warnings.push_back(
            {"max_context", format("the advertised context {} is above the model's own max {} "
                                   "({}): engines refuse to start with it unless told to",
                                   grouped(C), grouped(in.model_max_context), in.model_max_context_source)});

    const char* test_it = "Test it: a prompt of {} tokens must get an error (HTTP 400), not a 200.";
    // "Set --max-model-len N ..." after `lead` ("Set", or a reason ending in "set"), and the test.
    auto set_it = [&](const std::string& lead) {
        const std::uint64_t n = r.max_safe_context;
        r.advice.push_back(
            format("{} --max-model-len {} (vLLM) / --context-length {} (SGLang), and advertise "
                   "no more than {} tokens.",
                   lead, n, n, grouped(n)));
        r.advice.push_back(format(test_it, grouped(n + 1)));
    };
    if (r.max_safe_context == 0) {
        if (by)
            r.advice.push_back(
                format("The pool ({} B per GPU) cannot hold one request of even one token: no request can "
                       "be served. Give the cache more memory (a higher gpu_memory_utilization, more GPUs, a "
                       "smaller KV dtype).",
                       grouped(by->pool)));
        else
            r.advice.push_back(
                format("The pool ({} tokens) holds no whole block of {} tokens: no request can be "
                       "served. Give the cache more memory (a higher gpu_memory_utilization / "
                       "mem_fraction_static, more GPUs, a smaller KV dtype).",
                       grouped(P), grouped(B)));
    } else if (!r.fits) {
        if (by)
            r.advice.push_back(
                format("Does not fit: one request of {} tokens needs {} B per GPU (vLLM's blocks "
                       "for what each layer keeps); the pool has {} B.",
                       grouped(C), grouped(by->request), grouped(by->pool)));
        else
            r.advice.push_back(
                format("Does not fit: one request of {} tokens needs {} blocks of {} tokens; the pool "
                       "has {}.",
                       grouped(C), grouped(r.blocks_needed), grouped(B), grouped(r.blocks_available)));
        set_it("Set");  // SGLang's behaviour past the pool: check_report (sglang_short_pool_advice)
    } else {
        if (by)
            r.advice.push_back(
                format("Fits: one request of {} tokens needs {} of the pool's {} B per GPU; {}x "
                       "such requests fit at once.",
                       grouped(C), grouped(by->request), grouped(by->pool), r.max_concurrency_text));
        else
            r.advice.push_back(format(
                "Fits: one request of {} tokens needs {} of the pool's {} blocks; {}x such "
                "requests fit at once.",
                grouped(C), grouped(r.blocks_needed), grouped(r.blocks_available), r.max_concurrency_text));
        if (above_model) {
            // The pool would hold it, but the model was not trained for it.
            set_it(format("The model's own max context is {}, though: set", grouped(in.model_max_context)));
        } else {
            r.advice.push_back(format("Keep {} {} (the pool would allow {}).",
                                      vllm ? "--max-model-len" : "--context-length", C,
                                      grouped(r.max_safe_context)));
            r.advice.push_back(format(test_it, grouped(C + 1)));
        }
    }
    if (in.concurrency) {
        const std::uint64_t N = *in.concurrency;
        auto need = mul(N, by ? by->request : r.blocks_needed);
        const std::uint64_t have = by ? by->pool : r.blocks_available;
        r.concurrency_fits = need && *need <= have;
        std::uint64_t ctx = by ? by->at_concurrency.value_or(0) : r.blocks_available / N * B;
        if (!by && in.model_max_context)
            ctx = std::min(ctx, in.model_max_context);  // by bytes: capped already
        r.max_context_at_concurrency = ctx;
        if (*r.concurrency_fits) {
            r.advice.push_back(format(by ? "{} concurrent requests of {} tokens fit ({} of {} B per GPU)."
                                         : "{} concurrent requests of {} tokens fit ({} of {} blocks).",
                                      grouped(N), grouped(C), grouped(need.value_or(0)), grouped(have)));
        } else {
            r.advice.push_back(
                format("{} concurrent requests of {} tokens do not fit: the pool holds {}x. For {} at "
                       "once, each can have at most {} tokens; beyond that the engine queues or "
                       "preempts requests.",
                       grouped(N), grouped(C), r.max_concurrency_text, grouped(N), grouped(ctx)));
        }
    }
    return r;
}

}  // namespace kvcalc
