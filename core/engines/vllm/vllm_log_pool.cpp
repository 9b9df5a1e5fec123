// vLLM's pool as its startup log states it, decision by decision: its layout of the model in
// blocks, the block counts the engine's own lines allow (each line narrows them), the block
// counts the logged memory allows (kvcalc's derivation), the figures compared line by line,
// the engine's own verdict, and the pool the verdict goes by.
#include <algorithm>
#include <cstdint>

#include "check/check.hpp"
#include "check/check_log.hpp"
#include "engines/vllm/vllm_pool.hpp"
#include "sizing/checked.hpp"
#include "sizing/units.hpp"

namespace kvcalc {
namespace {

constexpr std::uint64_t max_blocks = std::uint64_t{1} << 40;

// Block counts from lo to hi, both included.
struct Range {
    std::uint64_t lo = 0, hi = 0;
    bool exact() const { return lo == hi; }
};
bool meets(const Range& a, const Range& b) {
    return a.lo <= b.hi && b.lo <= a.hi;
}
Range common(const Range& a, const Range& b) {
    return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}
std::string range_text(const Range& r, const char* unit) {
    return r.exact() ? format("{} {}", grouped(r.lo), unit)
                     : format("{} to {} {}", grouped(r.lo), grouped(r.hi), unit);
}

// The N in [0, max_blocks] for which a non-decreasing f gives exactly `target`.
template <class F>
std::optional<Range> preimage(F f, std::uint64_t target) {
    std::uint64_t lo = 0, hi = max_blocks;
    while (lo < hi) {  // the first N with f(N) >= target
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (f(mid) >= target ? hi : lo) = f(mid) >= target ? mid : mid + 1;
    }
    if (f(lo) != target) return std::nullopt;
    std::uint64_t a = lo, b = max_blocks;
    while (a < b) {  // the last N with f(N) <= target
        const std::uint64_t mid = a + (b - a + 1) / 2;
        (f(mid) <= target ? a : b) = f(mid) <= target ? mid : mid - 1;
    }
    return Range{lo, a};
}

// What the engine's line printed with "%s" of a Python float: int(num_blocks / per_request x
// max_model_len), IEEE double operations as Python does them (the same in C++ and wasm).
std::uint64_t python_tokens(std::uint64_t blocks, std::uint64_t per_request, std::uint64_t len) {
    const double concurrency = static_cast<double>(blocks) / static_cast<double>(per_request);
    return static_cast<std::uint64_t>(static_cast<double>(len) * concurrency);
}

// The model as vLLM lays out its cache, and one request's blocks at any context.
struct Blocks {
    const SizePlan& plan;
    VllmLayout layout;
    std::uint64_t max_context = 0;  // the model's own (0: none), for the estimate's search

    // Blocks one request of `context` tokens takes in every group, summed (vLLM's
    // get_max_concurrency_for_kv_cache_config); nullopt when kvcalc's bytes do not split
    // into whole blocks (a layout kvcalc does not reproduce).
    std::optional<std::uint64_t> per_request(std::uint64_t context) const {
        auto f = plan.figures(context);
        if (!f || f->kv_bytes_per_gpu % layout.block_bytes != 0) return std::nullopt;
        return f->kv_bytes_per_gpu / layout.block_bytes;
    }
    Range from_memory(const LogMemory& m) const {
        return {m.low / layout.block_bytes, m.high / layout.block_bytes};
    }
};

// The token figure vLLM's "GPU KV cache size" line prints for `blocks`, by release:
// v0.7.3-v0.19 num_blocks // groups x the smallest block (every release for one group);
// newer releases int(concurrency x max_model_len) (vllm PRs #38364, #40694).
struct TokenLine {
    const char* release;
    std::uint64_t (*figure)(const Blocks& b, std::uint64_t blocks, std::uint64_t per_request,
                            std::uint64_t len);
};
const TokenLine token_lines[] = {
    {"v0.7.3 to v0.19: num_blocks // groups x block",
     [](const Blocks& b, std::uint64_t n, std::uint64_t, std::uint64_t) {
         return n / b.layout.groups * b.layout.min_block;
     }},
    {"newer releases: int(concurrency x max_model_len)",
     [](const Blocks&, std::uint64_t n, std::uint64_t r, std::uint64_t len) {
         return python_tokens(n, r, len);
     }},
};

// The engine's pool in blocks as one of its lines states it.
struct Statement {
    Range blocks;
    std::string what;  // "line 699: num_gpu_blocks 29,751"
    int line = 0;
    const char* figure = "";  // "pool", "concurrency" or "GPU KV cache size"
    bool used = false;        // part of the engine's pool
};

class VllmReading {
public:
    VllmReading(const LogInputs& in, const Blocks& b, LogPool& out)
        : in_(in), log_(in.log), b_(b), out_(out) {}
    Result<bool> read();

private:
    const LogInputs& in_;
    const EngineLog& log_;
    const Blocks& b_;
    LogPool& out_;
    std::uint64_t len_ = 0;  // the engine's max model length
    std::optional<std::uint64_t> per_request_;
    std::optional<Range> engine_, memory_;
    std::vector<const TokenLine*> token_definitions_;  // those the engine's lines allow

    const char* concurrency_formula() const {
        return log_.v0 ? "num_blocks x block / max_model_len" : "num_blocks / blocks per request";
    }
    std::uint64_t concurrency(std::uint64_t n, std::uint64_t context) const {
        if (log_.v0) return printf_hundredths(n * b_.layout.min_block, context);
        auto r = b_.per_request(context);
        return r ? printf_hundredths(n, *r) : 0;
    }
    std::vector<Statement> statements();
    void combine(std::vector<Statement>& said);
    void compare(const Statement& s, const Range& base, const std::string& from);
    void compare_all(const std::vector<Statement>& said);
    void compare_refusal();
    void engine_verdict();
    void choose_pool();
};

// Each line that states the pool, as the block counts it allows.
std::vector<Statement> VllmReading::statements() {
    std::vector<Statement> said;
    const std::uint64_t B = b_.layout.min_block;
    if (log_.gpu_blocks)
        said.push_back({{log_.gpu_blocks->value, log_.gpu_blocks->value},
                        format("line {}: {} {}", log_.gpu_blocks->line, log_.gpu_blocks_what,
                               grouped(log_.gpu_blocks->value)),
                        log_.gpu_blocks->line,
                        "pool"});
    if (log_.v0_refusal_tokens && !b_.layout.hybrid && log_.v0_refusal_tokens->value % B == 0) {
        const std::uint64_t n = log_.v0_refusal_tokens->value / B;
        said.push_back(
            {{n, n},
             format("line {}: V0's refusal, {} tokens = {} blocks of {}", log_.v0_refusal_tokens->line,
                    grouped(log_.v0_refusal_tokens->value), grouped(n), grouped(B)),
             log_.v0_refusal_tokens->line,
             "pool"});
    }
    if (log_.concurrency && log_.concurrency->hundredths && per_request_) {
        const std::uint64_t h = *log_.concurrency->hundredths, ctx = log_.concurrency->context;
        auto r = preimage([&](std::uint64_t n) { return concurrency(n, ctx); }, h);
        said.push_back({r.value_or(Range{1, 0}),
                        format("line {}: {}x for {} tokens ({})", log_.concurrency->line, hundredths_text(h),
                               grouped(ctx), concurrency_formula()),
                        log_.concurrency->line, "concurrency"});
    }
    if (log_.pool_tokens && per_request_) {
        const std::uint64_t cp = log_.cp_multiplier ? log_.cp_multiplier->value : 1;
        const std::uint64_t t = log_.pool_tokens->value;
        Range all{1, 0};
        for (const TokenLine& d : token_lines) {
            if (t % cp != 0) break;
            auto r = preimage([&](std::uint64_t n) { return d.figure(b_, n, *per_request_, len_); }, t / cp);
            if (!r) continue;
            token_definitions_.push_back(&d);
            all = all.lo > all.hi ? *r : Range{std::min(all.lo, r->lo), std::max(all.hi, r->hi)};
        }
        said.push_back(
            {all,
             format("line {}: GPU KV cache size {} tokens{}", log_.pool_tokens->line, grouped(t),
                    cp > 1 ? format(" (x {} context-parallel ranks)", grouped(cp)) : std::string()),
             log_.pool_tokens->line, "GPU KV cache size"});
    }
    return said;
}

// The engine's pool: what all its lines allow together. A line that no pool of blocks
// reconciles with the others under kvcalc's layout is a disagreement, left out.
void VllmReading::combine(std::vector<Statement>& said) {
    for (Statement& s : said) {
        const bool possible = s.blocks.lo <= s.blocks.hi;
        if (possible && (!engine_ || meets(*engine_, s.blocks))) {
            engine_ = engine_ ? common(*engine_, s.blocks) : s.blocks;
            s.used = true;
            out_.notes.push_back(format("{}: {}", s.what, range_text(s.blocks, "blocks")));
            continue;
        }
        if (possible) continue;  // compared below, against the others or the memory
        out_.checks.push_back(
            {s.figure, s.what.substr(s.what.find(": ") + 2),
             format("no pool of blocks prints this under kvcalc's layout: {}", b_.layout.text), false, s.line,
             "no pool of blocks"});
    }
}

// One figure the engine printed against the pool kvcalc derives from `base`: the logged
// memory, or (with no memory in the log) the engine's other lines.
void VllmReading::compare(const Statement& s, const Range& base, const std::string& from) {
    const std::string blocks = range_text(base, "blocks");
    const std::string_view figure = s.figure;
    if (figure == "pool") {
        out_.checks.push_back({"pool", range_text(s.blocks, "blocks"), format("{}: {}", blocks, from),
                               meets(s.blocks, base), s.line, blocks});
    } else if (figure == "GPU KV cache size") {
        const std::uint64_t cp = log_.cp_multiplier ? log_.cp_multiplier->value : 1;
        const std::uint64_t t = log_.pool_tokens->value;
        bool agree = false;
        std::string derived, figure_alone;
        for (const TokenLine& d : token_lines) {
            if (!b_.layout.hybrid && &d != &token_lines[0]) break;  // one group: the releases agree
            const std::uint64_t lo = d.figure(b_, base.lo, *per_request_, len_) * cp,
                                hi = d.figure(b_, base.hi, *per_request_, len_) * cp;
            const std::string tokens = lo == hi ? format("{} tokens", grouped(lo))
                                                : format("{} to {} tokens", grouped(lo), grouped(hi));
            if (figure_alone.empty() || (!agree && lo <= t && t <= hi)) figure_alone = tokens;
            agree = agree || (lo <= t && t <= hi);
            format_to(derived, derived.empty() ? "{} ({})" : "; {} ({})", tokens,
                      b_.layout.hybrid ? d.release : "num_blocks x block");
        }
        out_.checks.push_back({s.figure, format("{} tokens", grouped(t)),
                               format("{}, from {}: {}", derived, blocks, from), agree, s.line,
                               figure_alone});
    } else {  // concurrency
        const std::uint64_t ctx = log_.concurrency->context, h = *log_.concurrency->hundredths;
        const std::uint64_t lo = concurrency(base.lo, ctx), hi = concurrency(base.hi, ctx);
        const std::string x =
            lo == hi ? hundredths_text(lo) : format("{} to {}", hundredths_text(lo), hundredths_text(hi));
        out_.checks.push_back(
            {"concurrency", format("{}x for {} tokens", hundredths_text(h), grouped(ctx)),
             format("{}x ({}, {} blocks per request), from {}: {}", x, concurrency_formula(),
                    grouped(b_.per_request(ctx).value_or(0)), blocks, from),
             lo <= h && h <= hi, s.line, x + "x"});
    }
}

// kvcalc's derivation from the logged memory against every figure the engine printed; with
// no memory in the log, each line against what the engine's other lines allow.
void VllmReading::compare_all(const std::vector<Statement>& said) {
    if (log_.kv_memory) {
        const LogMemory& m = *log_.kv_memory;
        memory_ = b_.from_memory(m);
        out_.notes.push_back(format("line {}: {} {}: {}", m.line, log_.kv_memory_what, m.text,
                                    range_text(*memory_, "blocks")));
        const std::string from =
            format("{} per GPU ({} to {} B, line {}) / {} B a block", m.text, grouped(m.low), grouped(m.high),
                   m.line, grouped(b_.layout.block_bytes));
        for (const Statement& s : said)
            if (s.blocks.lo <= s.blocks.hi) compare(s, *memory_, from);
        return;
    }
    for (std::size_t i = 0; i < said.size(); ++i) {
        std::optional<Range> others;
        std::string from;
        for (std::size_t j = 0; j < said.size(); ++j) {
            if (j == i || !said[j].used) continue;
            others = others ? common(*others, said[j].blocks) : said[j].blocks;
            format_to(from, from.empty() ? "the engine's {}" : " and {}", said[j].what);
        }
        if (others && others->lo <= others->hi && said[i].blocks.lo <= said[i].blocks.hi)
            compare(said[i], *others, from);
    }
}

// vLLM's refusal to start: what one request needs, and its estimate of the longest that fits.
void VllmReading::compare_refusal() {
    if (!log_.refusal) return;
    const LogRefusal& r = *log_.refusal;
    const std::uint64_t len = r.max_model_len.value_or(len_);
    if (r.needed) {
        auto f = b_.plan.figures(len);
        const std::uint64_t need = f ? f->kv_bytes_per_gpu : 0;
        out_.checks.push_back({"KV cache needed", format("{} for {} tokens", r.needed->text, grouped(len)),
                               format("{} B per GPU ({})", grouped(need), log_gib(need)),
                               r.needed->low <= need && need <= r.needed->high, r.line, log_gib(need)});
    }
    if (r.estimated_max_len && r.available) {
        const std::uint64_t lo = longest_fitting(b_.plan, r.available->low, len),
                            hi = longest_fitting(b_.plan, r.available->high, len);
        const std::uint64_t M = *r.estimated_max_len;
        const std::string tokens =
            lo == hi ? format("{} tokens", grouped(lo)) : format("{} to {} tokens", grouped(lo), grouped(hi));
        out_.checks.push_back(
            {"estimated maximum model length", format("{} tokens", grouped(M)),
             format("{}: the longest request whose blocks fit {} ({} to {} B)", tokens, r.available->text,
                    grouped(r.available->low), grouped(r.available->high)),
             lo <= M && M <= hi, r.line, tokens});
    }
}

// What the engine decided for its own max model length.
void VllmReading::engine_verdict() {
    EngineVerdict v;
    if (log_.refusal) {
        v.fits = false;
        v.context = log_.refusal->max_model_len.value_or(len_);
        v.estimated_max_context = log_.refusal->estimated_max_len;
        v.said = format("line {}: vLLM refused to start", log_.refusal->line);
    } else if (log_.no_memory) {
        v.fits = false;
        v.context = len_;
        v.said = "vLLM refused to start: no memory for the cache blocks";
    } else if (log_.v0_refusal_tokens) {
        v.fits = false;
        v.context = len_;
        v.said = format("line {}: vLLM V0 refused to start", log_.v0_refusal_tokens->line);
    } else if (log_.concurrency && log_.concurrency->hundredths) {
        v.context = log_.concurrency->context;
        v.hundredths = log_.concurrency->hundredths;
        v.fits = *v.hundredths >= 100;
        v.said = format("line {}: maximum concurrency {}x", log_.concurrency->line,
                        hundredths_text(*v.hundredths));
    } else {
        return;
    }
    if (log_.concurrency && log_.concurrency->hundredths && !v.hundredths &&
        log_.concurrency->context == v.context)
        v.hundredths = log_.concurrency->hundredths;
    out_.engine_verdict = v;
    if (memory_ && per_request_ && v.context == len_) {
        const bool lo = memory_->lo >= *per_request_, hi = memory_->hi >= *per_request_;
        out_.checks.push_back({"verdict", v.fits ? "one request fits" : "one request does not fit",
                               lo == hi ? (lo ? "fits: " : "does not fit: ") +
                                              format("{} blocks needed, {} in the memory",
                                                     grouped(*per_request_), range_text(*memory_, "blocks"))
                                        : format("either: {} blocks needed, {} in the memory",
                                                 grouped(*per_request_), range_text(*memory_, "blocks")),
                               lo != hi || lo == v.fits, 0,
                               lo == hi ? (lo ? "one request fits" : "one request does not fit") : "either"});
    }
}

// The pool the verdict goes by: the engine's, unless asked to follow kvcalc's derivation.
void VllmReading::choose_pool() {
    const bool from_memory = memory_ && (in_.follow_kvcalc || !engine_);
    std::uint64_t n = 0;
    if (from_memory) {
        n = log_.kv_memory->bytes / b_.layout.block_bytes;
        out_.source = format(
            "kvcalc's derivation from the logged memory: {} per GPU (line {}) / {} B a block = {} blocks",
            log_.kv_memory->text, log_.kv_memory->line, grouped(b_.layout.block_bytes), grouped(n));
    } else if (engine_) {
        n = engine_->lo;
        out_.source = format("the engine log: {}{}", range_text(*engine_, "blocks"),
                             engine_->exact() ? "" : " (the fewest its lines allow)");
    }
    out_.blocks = n;
    out_.bytes = n * b_.layout.block_bytes;
    out_.blocks_per_request = per_request_;
    if (engine_) {
        out_.engine_low = engine_->lo;
        out_.engine_high = engine_->hi;
    }
    if (memory_) {
        out_.memory_low = memory_->lo;
        out_.memory_high = memory_->hi;
    }
    // Windows and states keep fewer tokens than the context: a request's blocks, not its tokens.
    out_.by_bytes = b_.layout.hybrid || in_.m.has(LayerKind::sliding_window) ||
                    in_.m.has(LayerKind::chunked_local) || in_.m.has(LayerKind::linear_state);
    out_.concurrency_in_blocks = !log_.v0;
    out_.tokens = b_.layout.hybrid
                      ? tokens_in_bytes(*out_.bytes, b_.plan.bytes_per_token_per_gpu(), b_.layout.min_block)
                      : n * b_.layout.min_block;
}

Result<bool> VllmReading::read() {
    len_ = log_.max_model_len ? log_.max_model_len->value : in_.context;
    if (auto f = b_.plan.figures(len_); !f)
        return fail(f.error().code.c_str(), "engine_log",
                    "the engine log's max model length {} (line {}): {}", grouped(len_),
                    log_.max_model_len ? log_.max_model_len->line : 0, f.error().message);
    per_request_ = b_.per_request(len_);
    if (!per_request_)
        return fail(
            code::inconsistent, "engine_log",
            "kvcalc's request of {} tokens ({}) does not split into whole vLLM blocks of {} B: its layout "
            "of this model is not vLLM's",
            grouped(len_), b_.layout.text, grouped(b_.layout.block_bytes));
    out_.notes.push_back(format("vLLM's layout: {}; one request of {} tokens takes {} blocks", b_.layout.text,
                                grouped(len_), grouped(*per_request_)));
    std::vector<Statement> said = statements();
    combine(said);
    compare_all(said);
    if (log_.padding_layers)
        out_.checks.push_back(
            {"padding layers", format("{} padding layers", grouped(log_.padding_layers->value)),
             format("{} padding layers ({})", grouped(b_.layout.padding_layers), b_.layout.text),
             log_.padding_layers->value == b_.layout.padding_layers, log_.padding_layers->line,
             format("{} padding layers", grouped(b_.layout.padding_layers))});
    compare_refusal();
    engine_verdict();
    if (!engine_ && !memory_)
        return fail(
            code::unrecognised_log, "engine_log",
            "engine log: its pool lines do not fit kvcalc's layout of this model ({}): see which lines were "
            "understood, and check the model, tp and block_size",
            b_.layout.text);
    choose_pool();
    // In the log's order; the verdict, which no one line states, last (an insertion sort: a few rows).
    auto key = [](const CrossCheck& c) { return c.line ? c.line : INT32_MAX; };
    for (std::size_t i = 1; i < out_.checks.size(); ++i)
        for (std::size_t j = i; j > 0 && key(out_.checks[j - 1]) > key(out_.checks[j]); --j)
            std::swap(out_.checks[j - 1], out_.checks[j]);
    return true;
}

}  // namespace

Result<bool> read_vllm_log_pool(const LogInputs& in, const SizePlan& plan, const SizeResult& sized,
                                LogPool& out) {
    const EngineLog& log = in.log;
    auto layout = vllm_layout(in.m, sized);
    if (!layout) return layout.forward_error();
    out.layout = *layout;
    Blocks blocks{plan, *layout, in.m.max_context.value};
    VllmReading reading(in, blocks, out);
    auto ok = reading.read();
    if (!ok) return ok.forward_error();
    if (log.cp_multiplier && log.cp_multiplier->value > 1)
        out.warnings.push_back(
            {"engine_log",
             format(
                 "the engine runs with context parallelism ({} ranks share each request's tokens, line {}): "
                 "kvcalc sizes a request as if one GPU held all its tokens, so its verdict is conservative",
                 grouped(log.cp_multiplier->value), log.cp_multiplier->line)});
    return true;
}

}  // namespace kvcalc
