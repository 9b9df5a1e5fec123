// The pool an engine's log states: the model sized as the engine reserves a request, then each
// engine's reading of its lines (core/engines/vllm/vllm_log_pool.cpp, core/engines/sglang/
// sglang_log_pool.cpp), and the search for the longest request that fits a pool.
#include "check/check_log.hpp"

#include <cstdint>

#include "engines/sglang/sglang_pool.hpp"
#include "engines/vllm/vllm_pool.hpp"
#include "sizing/checked.hpp"
#include "sizing/units.hpp"

namespace kvcalc {

// Bytes as vLLM's format_gib prints them: GiB to two decimals.
std::string log_gib(std::uint64_t bytes) {
    return format("{} GiB", fixed_point((bytes * 100 + (std::uint64_t{1} << 29)) >> 30, 2));
}

std::uint64_t longest_fitting(const SizePlan& plan, std::uint64_t bytes, std::uint64_t cap, std::uint64_t n) {
    auto fit = [&](std::uint64_t c) {
        auto f = plan.figures(c);
        if (!f) return false;
        auto need = mul(f->kv_bytes_per_gpu, n);
        return need && *need <= bytes;
    };
    if (!fit(1)) return 0;
    std::uint64_t lo = 1, hi = cap;  // lo fits, hi does not
    if (cap) {
        if (fit(cap)) return cap;
    } else {
        for (hi = 2; fit(hi); hi *= 2) {
            lo = hi;
            if (hi > max_exact / 2) return hi;
        }
    }
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (fit(mid) ? lo : hi) = mid;
    }
    return lo;
}

json findings_json(const std::vector<LogFinding>& findings) {
    json list = json::array();
    for (const LogFinding& f : findings) {
        json u;
        set_member(u, "line", f.line);
        set_member(u, "what", f.what);
        set_member(u, "text", f.text);
        set_member(u, "repeats", f.repeats);
        list.push_back(std::move(u));
    }
    return list;
}

json cross_checks_json(const std::vector<CrossCheck>& checks) {
    json list = json::array();
    for (const CrossCheck& c : checks) {
        json e;
        set_member(e, "figure", c.figure);
        set_member(e, "engine", c.engine);
        set_member(e, "kvcalc", c.kvcalc);
        set_member(e, "kvcalc_figure", c.derived);
        set_member(e, "agree", c.agree);
        set_member(e, "line", c.line ? json(c.line) : json(nullptr));
        set_member(e, "text",
                   c.agree
                       ? format("{}: the engine's {} agrees with kvcalc's {}", c.figure, c.engine, c.kvcalc)
                       : format("{}: the engine printed {}{}; kvcalc derives {}", c.figure, c.engine,
                                c.line ? format(" (line {})", c.line) : std::string(), c.kvcalc));
        list.push_back(std::move(e));
    }
    return list;
}

Result<LogPool> read_log_pool(const LogInputs& in) {
    LogPool out;
    const EngineLog& log = in.log;
    SizeOptions so = in.vllm_options;
    so.accounting = Accounting::vllm;
    so.batch = 1;
    so.shared_prefix = 0;
    so.context.reset();
    auto plan = SizePlan::make(in.m, so);
    if (!plan) return plan.forward_error();
    auto sized = plan->result(in.context);
    if (!sized) return sized.forward_error();
    if (log.engine == "sglang") {
        read_sglang_log_pool(in, *sized, out);
        return out;
    }
    auto ok = read_vllm_log_pool(in, *plan, *sized, out);
    if (!ok) return ok.forward_error();
    return out;
}

}  // namespace kvcalc
