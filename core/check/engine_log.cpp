#include "check/engine_log.hpp"

#include <algorithm>
#include <array>
#include <type_traits>

#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_word(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// The line without colour codes (ESC [ ... final byte; ESC ] ... BEL), the "[1;36m" a paste
// keeps when it drops the ESC, and other control characters (shown as spaces).
void clean(std::string_view raw, std::string& out) {
    out.clear();
    const std::size_t n = raw.size();
    std::size_t copied = 0;  // raw[copied, i) goes to out as it is, in one append
    for (std::size_t i = 0; i < n; ++i) {
        const char c = raw[i];
        const bool plain = static_cast<unsigned char>(c) >= 0x20 && c != '\x7f' && c != '[';
        if (plain) continue;
        out.append(raw.data() + copied, i - copied);
        copied = i + 1;
        if (c == '\x1b') {
            if (i + 1 < n && raw[i + 1] == '[') {
                std::size_t k = i + 2;
                while (k < n && !(raw[k] >= '@' && raw[k] <= '~'))
                    ++k;
                i = k;
            } else if (i + 1 < n && raw[i + 1] == ']') {
                std::size_t k = i + 2;
                while (k < n && raw[k] != '\a' && !(raw[k] == '\x1b' && k + 1 < n && raw[k + 1] == '\\'))
                    ++k;
                i = k < n && raw[k] == '\x1b' ? k + 1 : k;
            }
            copied = i + 1;
            continue;
        }
        if (c == '[') {
            std::size_t k = i + 1;
            while (k < n && (is_digit(raw[k]) || raw[k] == ';'))
                ++k;
            if (k > i + 1 && k < n && raw[k] == 'm') {
                i = k;
                copied = i + 1;
                continue;
            }
            out += c;
            continue;
        }
        out += ' ';  // a control character
    }
    if (copied < n) out.append(raw.data() + copied, n - copied);
}

std::string shown(std::string_view line) {
    std::size_t a = 0, b = line.size();
    while (a < b && line[a] == ' ')
        ++a;
    while (b > a && line[b - 1] == ' ')
        --b;
    std::string out(line.substr(a, std::min<std::size_t>(b - a, 240)));
    return out;
}

std::size_t skip_spaces(std::string_view s, std::size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        ++i;
    return i;
}

// An integer with optional thousands separators ("681,280" or "681280") at `pos`.
std::optional<std::uint64_t> read_count(std::string_view s, std::size_t pos, std::size_t* end = nullptr) {
    std::size_t i = pos, digits = 0;
    std::uint64_t v = 0;
    while (i < s.size()) {
        if (is_digit(s[i])) {
            if (++digits > 15) return std::nullopt;
            v = v * 10 + static_cast<std::uint64_t>(s[i] - '0');
            ++i;
        } else if (s[i] == ',' && digits > 0 && i + 3 < s.size() && is_digit(s[i + 1]) &&
                   is_digit(s[i + 2]) && is_digit(s[i + 3]) && (i + 4 >= s.size() || !is_digit(s[i + 4]))) {
            ++i;  // a separator before exactly three digits
        } else {
            break;
        }
    }
    if (digits == 0 || (i < s.size() && (is_word(s[i]) && s[i] != '_'))) return std::nullopt;
    if (end) *end = i;
    return v;
}

// A decimal like "43.21" at `pos`: its digits without the point, and how many follow it.
struct Decimal {
    std::uint64_t mantissa = 0;
    unsigned decimals = 0;
    std::size_t end = 0;
};
std::optional<Decimal> read_decimal(std::string_view s, std::size_t pos) {
    Decimal d;
    std::size_t i = pos, digits = 0;
    while (i < s.size() && is_digit(s[i])) {
        if (++digits > 9) return std::nullopt;
        d.mantissa = d.mantissa * 10 + static_cast<std::uint64_t>(s[i++] - '0');
    }
    if (digits == 0) return std::nullopt;
    if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
        ++i;
        while (i < s.size() && is_digit(s[i])) {
            if (++d.decimals > 6) return std::nullopt;
            d.mantissa = d.mantissa * 10 + static_cast<std::uint64_t>(s[i++] - '0');
        }
    }
    d.end = i;
    return d;
}

std::uint64_t pow10(unsigned n) {
    std::uint64_t p = 1;
    while (n--)
        p *= 10;
    return p;
}

std::string decimal_text(const Decimal& d) {
    std::string digits = format("{}", d.mantissa);
    if (d.decimals == 0) return digits;
    if (digits.size() <= d.decimals) digits.insert(0, d.decimals + 1 - digits.size(), '0');
    const std::size_t point = digits.size() - d.decimals;
    return format("{}.{}", std::string_view(digits).substr(0, point), std::string_view(digits).substr(point));
}

// x GiB printed to `decimals` places (at least two: the engines round to two, and Python's
// round(x, 2) prints 24.0 for 24.00) came from bytes in [x - half, x + half] of its last place.
// SGLang's "GB" is 2^30 bytes too (its GB constant), so both units are read alike.
std::optional<LogMemory> memory_range(const Decimal& d, const char* unit, int line) {
    const unsigned places = std::max(2u, d.decimals);
    const std::uint64_t tenths = d.mantissa * pow10(places + 1 - d.decimals);  // in 10^-(places+1)
    const std::uint64_t den = pow10(places + 1);
    auto bytes = [&](std::uint64_t v, bool up) -> opt_u64 {
        auto whole = mul(v / den, std::uint64_t{1} << 30);
        const std::uint64_t part = (v % den) << 30;  // below 10^7 x 2^30
        return add(whole, part / den + (up && part % den ? 1 : 0));
    };
    auto lo = bytes(tenths >= 5 ? tenths - 5 : 0, true), hi = bytes(tenths + 5, false),
         at = bytes(tenths, false);
    if (!lo || !hi || !at) return std::nullopt;
    return LogMemory{*at, *lo, *hi, format("{} {}", decimal_text(d), unit), line};
}

// A memory figure at `pos`: a decimal, optional spaces, then GiB, Gib or GB.
std::optional<LogMemory> read_memory(std::string_view s, std::size_t pos, int line,
                                     std::size_t* end = nullptr) {
    auto d = read_decimal(s, skip_spaces(s, pos));
    if (!d) return std::nullopt;
    const std::size_t u = skip_spaces(s, d->end);
    const char* unit = s.compare(u, 3, "GiB") == 0 || s.compare(u, 3, "Gib") == 0 ? "GiB"
                       : s.compare(u, 2, "GB") == 0                               ? "GB"
                                                                                  : nullptr;
    if (!unit) return std::nullopt;
    if (end) *end = u + (unit[1] == 'i' ? 3 : 2);
    return memory_range(*d, unit, line);
}

// Hundredths of a decimal with at most two places ("0.65" -> 65).
std::optional<std::uint64_t> hundredths(const Decimal& d) {
    if (d.decimals > 2) return std::nullopt;
    return d.mantissa * pow10(2 - d.decimals);
}

// A callable passed by reference, so that the scanning loops below are compiled once, not once
// per line the reader knows (the wasm module's size).
template <class... A>
class Visit {
public:
    template <class F>
    Visit(F&& f)  // NOLINT: implicit, as a lambda argument
        : obj_(&f), call_([](void* o, A... a) { (*static_cast<std::remove_reference_t<F>*>(o))(a...); }) {}
    void operator()(A... a) const { call_(obj_, a...); }

private:
    void* obj_;
    void (*call_)(void*, A...);
};

// Every position just after `phrase` in `line`, and where the phrase starts.
void each_after(std::string_view line, std::string_view phrase, Visit<std::size_t, std::size_t> f) {
    for (std::size_t p = line.find(phrase); p != npos; p = line.find(phrase, p + 1))
        f(p + phrase.size(), p);
}

// After `key` where it starts a word ("tp_size=" but not "attn_tp_size=", "-tp" but not "--tp").
void each_key(std::string_view line, std::string_view key, Visit<std::size_t> f) {
    for (std::size_t at = line.find(key); at != npos; at = line.find(key, at + 1))
        if (at == 0 || !(is_word(line[at - 1]) || line[at - 1] == '-')) f(at + key.size());
}

// A word after `pos`, past spaces, '=' and quotes: "fp8" in "kv_cache_dtype='fp8'".
std::string read_word(std::string_view s, std::size_t pos) {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\'' || s[pos] == '"' || s[pos] == '='))
        ++pos;
    std::size_t e = pos;
    while (e < s.size() && (is_word(s[e]) || s[e] == '.'))
        ++e;
    return std::string(s.substr(pos, e - pos));
}

// A count after `pos`, past spaces, '=', ':' and quotes.
std::optional<std::uint64_t> count_after(std::string_view s, std::size_t pos) {
    while (pos < s.size() &&
           (s[pos] == ' ' || s[pos] == '\'' || s[pos] == '"' || s[pos] == '=' || s[pos] == ':'))
        ++pos;
    return read_count(s, pos);
}

// A count inside "(...)" right after `pos` ("(262144)"), or plain.
std::optional<std::uint64_t> count_in_parens(std::string_view s, std::size_t pos) {
    pos = skip_spaces(s, pos);
    if (pos < s.size() && s[pos] == '(') ++pos;
    return read_count(s, skip_spaces(s, pos));
}

const char* looked_for =
    "vLLM's \"GPU KV cache size: N tokens\", \"# GPU blocks: N\", \"Available KV cache memory: X GiB\", V0's "
    "\"kv_cache_size=X GiB\" or \"the rest of the memory reserved for KV Cache is X GiB\", its refusal \"To "
    "serve at least one request with the models's max seq len (N), (X GiB KV cache is needed ...\", and "
    "SGLang's \"KV Cache is allocated. #tokens: N\" or \"max_total_num_tokens=N\"";

// The reader's state over the lines of one paste.
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

class Reader {
public:
    explicit Reader(std::string_view engine) : only_(engine) {}

    void line(std::string_view text, std::string_view next, int no);
    Result<EngineLog> finish();

private:
    EngineLog log_;
    std::string only_;  // the engine asked for, when the paste holds both
    int line_ = 0;
    std::string_view text_;
    int vllm_line_ = 0, sglang_line_ = 0;
    int len_priority_ = 0;
    bool closed_ = false;  // the current start has stated its pool: a memory line now begins the next
    std::vector<bool> tp_seen_;
    // Per process prefix: vLLM's DEBUG "Requested memory: ... X GiB" and "Total non KV cache
    // memory: Y GiB", whose difference is a rank's KV memory when it prints no INFO line of it.
    struct Rank {
        std::string prefix;
        std::optional<LogMemory> requested, non_kv;
        bool stated = false;  // printed its "Available KV cache memory"
    };
    std::vector<Rank> ranks_;

    // A line used: said once, however many ranks repeat it.
    void found(std::string what) {
        for (LogFinding& f : log_.understood)
            if (f.what == what) {
                ++f.repeats;
                return;
            }
        log_.understood.push_back({line_, 0, std::move(what), shown(text_)});
    }
    void vllm() { vllm_line_ = vllm_line_ ? vllm_line_ : line_; }
    void sglang() { sglang_line_ = sglang_line_ ? sglang_line_ : line_; }
    // The engine's max model length, from the most telling line that states it: what it
    // logged while running (3, 4) over its config line (2) over the arguments it was given (1).
    bool set_len(std::uint64_t n, int priority, const char* what) {
        if (priority < len_priority_ || n == 0) return false;
        const bool same = log_.max_model_len && log_.max_model_len->value == n && priority == len_priority_;
        len_priority_ = priority;
        log_.max_model_len = LogCount{n, line_};
        log_.max_model_len_what = what;
        return !same;
    }
    // A line that opens a start (its memory, its padding, a refusal) after the previous start
    // stated its pool: a restart in the same paste, whose figures replace the earlier start's.
    void lead() {
        if (!closed_) return;
        closed_ = false;
        len_priority_ = 0;
        forget_vllm_pool(log_);
        log_.padding_layers.reset();
        log_.cp_multiplier.reset();
        log_.auto_fit_from.reset();
        log_.notes.push_back(
            format("line {}: a new start begins; the figures of the start before it are left out", line_));
    }
    // Per GPU: the smallest any rank of this start states.
    void memory(const LogMemory& m, const char* what) {
        lead();
        if (!log_.kv_memory || m.high < log_.kv_memory->high) {
            log_.kv_memory = m;
            log_.kv_memory_what = what;
        }
    }
    // A line that states the pool ends a start: its ranks' memory is settled.
    void pool_line() {
        settle_ranks();
        closed_ = true;
    }
    void settle_ranks();
    Rank& rank(std::string_view text);
    void ranks(std::string_view text);

    void vllm_pool(std::string_view s);
    void vllm_memory(std::string_view s);
    void vllm_refusal(std::string_view s, std::string_view next);
    void vllm_other(std::string_view s);
    void deployment(std::string_view s);
    void sglang_lines(std::string_view s);
};

// The process prefix of a line: "(Worker_PP1 pid=443)", else "".
Reader::Rank& Reader::rank(std::string_view text) {
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
void Reader::ranks(std::string_view s) {
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

void Reader::vllm_pool(std::string_view s) {
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

void Reader::vllm_memory(std::string_view s) {
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

void Reader::vllm_refusal(std::string_view s, std::string_view next) {
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

void Reader::vllm_other(std::string_view s) {
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

// The deployment's settings, wherever a line states them: the engine's config line, its
// non-default args, SGLang's server args, or the command line.
void Reader::deployment(std::string_view s) {
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

void Reader::sglang_lines(std::string_view s) {
    each_after(s, "KV Cache is allocated. #tokens:", [&](std::size_t p, std::size_t) {
        std::size_t end = 0;
        auto n = read_count(s, skip_spaces(s, p), &end);
        if (!n) return;
        sglang();
        log_.sglang_tokens = LogCount{*n, line_};
        std::string what = format("SGLang KV cache allocated: {} tokens", grouped(*n));
        auto sized = [&](const char* label, std::optional<LogMemory>& slot) {
            std::size_t q = s.find(label, end);
            if (q == npos) return;
            slot = read_memory(s, q + std::string_view(label).size(), line_);
            if (slot) format_to(what, ", {}{}", label, slot->text);
        };
        sized("K size: ", log_.k_size);
        if (log_.k_size)
            sized("V size: ", log_.v_size);
        else
            sized("KV size: ", log_.kv_size);  // MLA: one latent
        found(std::move(what));
    });
    auto count = [&](const char* key, std::optional<LogCount>& slot, const char* said) {
        each_key(s, key, [&](std::size_t p) {
            auto n = read_count(s, skip_spaces(s, p));
            if (!n) return;
            sglang();
            slot = LogCount{*n, line_};
            found(format("SGLang {} {}", said, grouped(*n)));
        });
    };
    count("max_total_num_tokens=", log_.max_total_num_tokens, "max_total_num_tokens");
    count("max_running_requests=", log_.max_running_requests, "max_running_requests");
    count("max_mamba_cache_size:", log_.mamba_cache_size, "Mamba cache: concurrent states");
    each_key(s, "context_len=", [&](std::size_t p) {
        auto n = read_count(s, p);
        if (!n) return;
        sglang();
        log_.context_len = LogCount{*n, line_};
        set_len(*n, 3, "SGLang's context_len");
        found(format("SGLang context_len {}", grouped(*n)));
    });
    each_after(s, "full_layer_tokens=", [&](std::size_t p, std::size_t) {
        auto n = read_count(s, p);
        if (!n) return;
        sglang();
        log_.full_layer_tokens = LogCount{*n, line_};
        const std::size_t q = s.find("swa_layer_tokens=", p);
        const std::uint64_t w = q != npos ? read_count(s, q + 17).value_or(0) : 0;
        if (w) log_.swa_layer_tokens = LogCount{w, line_};
        found(w ? format("SGLang sliding-window pools: {} tokens for full layers, {} for sliding layers",
                         grouped(*n), grouped(w))
                : format("SGLang sliding-window pools: {} tokens for full layers", grouped(*n)));
    });
}

// Whether `line` holds any of `words`: one cheap look before the many a group of lines needs.
bool any_of(std::string_view line, std::initializer_list<std::string_view> words) {
    for (std::string_view w : words)
        if (line.find(w) != npos) return true;
    return false;
}

void Reader::line(std::string_view text, std::string_view next, int no) {
    line_ = no;
    text_ = text;
    ranks(text);
    if (any_of(text, {"blocks", "cache size", "concurrency"})) vllm_pool(text);
    if (any_of(text, {"memory", "kv_cache_size="})) vllm_memory(text);
    if (any_of(text, {"To serve", "stored in KV cache", "No available"})) vllm_refusal(text, next);
    if (any_of(text, {"padding", "Multiplying", "Auto-fit", "block size", "LLM engine", "server version"}))
        vllm_other(text);
    if (any_of(text, {"KV Cache", "max_", "context_len", "layer_tokens"})) sglang_lines(text);
    if (any_of(text, {"parallel", "tp", "pp", "block", "batched", "page_size", "max_", "max-", "dtype"}))
        deployment(text);
}

// A rank that printed no INFO line of its KV memory: its DEBUG lines give it, and the pool
// follows the smallest rank.
void Reader::settle_ranks() {
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

Result<EngineLog> Reader::finish() {
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
    } else if (log.engine == "vllm") {
        log.sglang_tokens.reset();
        log.max_total_num_tokens.reset();
        log.full_layer_tokens.reset();
    }
    if (!(log.pool_tokens || log.gpu_blocks || log.kv_memory || log.refusal || log.v0_refusal_tokens ||
          log.no_memory || log.sglang_tokens || log.max_total_num_tokens || log.full_layer_tokens))
        return fail(code::unrecognised_log, "engine_log", "engine log: no {} line states the KV pool",
                    log.engine);
    return std::move(log);
}

}  // namespace

Result<EngineLog> parse_engine_log(std::string_view text, std::string_view engine) {
    Reader reader(engine);
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
