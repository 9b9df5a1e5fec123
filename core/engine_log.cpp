#include "engine_log.hpp"

#include <algorithm>

#include "checked.hpp"

namespace kvcalc {
namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// An integer with optional thousands separators ("681,280" or "681280") at `pos`.
std::optional<std::uint64_t> read_count(std::string_view s, std::size_t pos, std::size_t* end = nullptr) {
    std::size_t i = pos;
    opt_u64 v = 0;
    std::size_t digits = 0;
    while (i < s.size()) {
        if (is_digit(s[i])) {
            v = add(mul(v, 10), static_cast<std::uint64_t>(s[i] - '0'));
            ++digits;
            ++i;
        } else if (s[i] == ',' && digits > 0 && i + 3 < s.size() && is_digit(s[i + 1]) &&
                   is_digit(s[i + 2]) && is_digit(s[i + 3]) && (i + 4 >= s.size() || !is_digit(s[i + 4]))) {
            ++i;  // a separator before exactly three digits
        } else {
            break;
        }
    }
    if (digits == 0 || !v || digits > 16) return std::nullopt;
    if (end) *end = i;
    return *v;
}

// A decimal like "43.21" at `pos`: the digits without the point and the count of decimals.
struct Decimal {
    std::uint64_t mantissa = 0;
    unsigned decimals = 0;
    std::size_t end = 0;
};
std::optional<Decimal> read_decimal(std::string_view s, std::size_t pos) {
    Decimal d;
    std::size_t i = pos, digits = 0;
    opt_u64 v = 0;
    while (i < s.size() && is_digit(s[i])) {
        v = add(mul(v, 10), static_cast<std::uint64_t>(s[i++] - '0'));
        ++digits;
    }
    if (digits == 0) return std::nullopt;
    if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
        ++i;
        while (i < s.size() && is_digit(s[i])) {
            v = add(mul(v, 10), static_cast<std::uint64_t>(s[i++] - '0'));
            if (++d.decimals > 6) return std::nullopt;
        }
    }
    if (!v || digits > 12) return std::nullopt;
    d.mantissa = *v;
    d.end = i;
    return d;
}

std::size_t skip_spaces(std::string_view s, std::size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
        ++i;
    return i;
}

// The position just after `phrase` in `line`, or npos.
std::size_t after(std::string_view line, const char* phrase) {
    const std::string_view ph(phrase);
    std::size_t p = line.find(ph);
    return p == std::string_view::npos ? p : p + ph.size();
}

std::string shown(std::string_view line) {
    std::size_t a = 0, b = line.size();
    while (a < b && (line[a] == ' ' || line[a] == '\t'))
        ++a;
    while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t'))
        --b;
    std::string out(line.substr(a, std::min<std::size_t>(b - a, 240)));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';  // colour escapes and tabs
    return out;
}

// "43.21" GiB -> bytes, rounded down: mantissa x 2^30 / 10^decimals (GB: x 10^9).
std::optional<std::uint64_t> memory_bytes(const Decimal& d, bool binary) {
    std::uint64_t scale = 1;
    for (unsigned i = 0; i < d.decimals; ++i)
        scale *= 10;
    const std::uint64_t unit = binary ? (std::uint64_t{1} << 30) : 1000000000ull;
    auto whole = mul(d.mantissa / scale, unit);
    auto frac = mul(d.mantissa % scale, unit);
    if (!whole || !frac) return std::nullopt;
    return add(whole, *frac / scale);
}

std::string decimal_text(const Decimal& d) {
    std::string digits = format("{}", d.mantissa);
    if (d.decimals == 0) return digits;
    std::string padded;  // at least one digit before the point
    if (digits.size() <= d.decimals) padded.append(d.decimals + 1 - digits.size(), '0');
    padded += digits;
    const std::string_view all(padded);
    const std::size_t point = all.size() - d.decimals;
    return format("{}.{}", all.substr(0, point), all.substr(point));
}

// Hundredths of a decimal with at most two places ("0.65" -> 65).
std::optional<std::uint64_t> hundredths(const Decimal& d) {
    if (d.decimals > 2) return std::nullopt;
    return d.decimals == 2 ? d.mantissa : d.decimals == 1 ? d.mantissa * 10 : d.mantissa * 100;
}

// A memory figure after `pos`: a decimal, optional spaces, then GiB or GB.
bool read_memory(std::string_view line, std::size_t pos, Decimal& d, bool& binary) {
    auto dec = read_decimal(line, skip_spaces(line, pos));
    if (!dec) return false;
    std::size_t u = skip_spaces(line, dec->end);
    if (line.compare(u, 3, "GiB") == 0)
        binary = true;
    else if (line.compare(u, 2, "GB") == 0)
        binary = false;
    else
        return false;
    d = *dec;
    return true;
}

const char* looked_for =
    "vLLM's \"GPU KV cache size: N tokens\", \"# GPU blocks: N\" (V0), \"Available KV cache memory: "
    "X GiB\" or \"the rest of the memory reserved for KV Cache is X GiB\" (V0), and SGLang's \"KV Cache "
    "is allocated. #tokens: N\" or \"max_total_num_tokens=N\"";

}  // namespace

Result<EngineLog> parse_engine_log(std::string_view text) {
    EngineLog log;
    int line_no = 0;
    std::size_t start = 0;
    int len_priority = 0;
    std::string token_engine;
    while (start <= text.size()) {
        std::size_t nl = text.find('\n', start);
        std::string_view line =
            text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
        start = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.size() > 100000) continue;  // not a log line
        auto found = [&](std::string what) {
            log.understood.push_back({line_no, std::move(what), shown(line)});
        };
        auto set_len = [&](std::uint64_t n, int priority, const char* src) {
            if (priority < len_priority) return;
            len_priority = priority;
            log.max_model_len = n;
            log.max_model_len_source = format("{} (line {})", src, line_no);
        };
        auto set_tokens = [&](std::uint64_t n, const char* engine, const char* src) {
            log.pool_tokens = n;
            token_engine = engine;
            log.pool_tokens_source = format("{} (line {})", src, line_no);
        };
        std::size_t p;
        // vLLM V1
        if ((p = after(line, "GPU KV cache size:")) != std::string_view::npos) {
            std::size_t end = 0;
            auto n = read_count(line, skip_spaces(line, p), &end);
            if (n && line.compare(skip_spaces(line, end), 6, "tokens") == 0) {
                set_tokens(*n, "vllm", "vLLM \"GPU KV cache size\"");
                found(format("vLLM GPU KV cache size: {} tokens", grouped(*n)));
            }
        }
        if ((p = after(line, "Maximum concurrency for ")) != std::string_view::npos) {
            std::size_t end = 0;
            auto n = read_count(line, p, &end);
            const std::string_view tail = " tokens per request:";
            if (n && line.compare(end, tail.size(), tail) == 0) {
                std::size_t q = end + tail.size();
                auto d = read_decimal(line, skip_spaces(line, q));
                auto h = d ? hundredths(*d) : std::nullopt;
                if (h && d->end < line.size() && line[d->end] == 'x') {
                    log.concurrency_hundredths = *h;
                    set_len(*n, 3, "vLLM \"Maximum concurrency for N tokens per request\"");
                    found(format("vLLM max model length {} tokens, maximum concurrency {}x", grouped(*n),
                                 decimal_text(*d)));
                }
            }
        }
        if ((p = after(line, "Available KV cache memory:")) != std::string_view::npos ||
            (p = after(line, "the rest of the memory reserved for KV Cache is")) != std::string_view::npos) {
            Decimal d;
            bool binary = true;
            if (read_memory(line, p, d, binary)) {
                auto b = memory_bytes(d, binary);
                if (b && (!log.kv_memory_bytes || *b < *log.kv_memory_bytes)) {
                    log.kv_memory_bytes = *b;
                    log.kv_memory_text = format("{} {}", decimal_text(d), binary ? "GiB" : "GB");
                    log.kv_memory_source = format("vLLM KV cache memory (line {})", line_no);
                }
                if (b)
                    found(
                        format("vLLM KV cache memory {} {} per GPU", decimal_text(d), binary ? "GiB" : "GB"));
            }
        }
        for (const char* phrase : {"# GPU blocks:", "# CUDA blocks:", "# cuda blocks:"})
            if ((p = after(line, phrase)) != std::string_view::npos) {
                auto n = read_count(line, skip_spaces(line, p));
                if (n) {
                    log.gpu_blocks = *n;
                    log.gpu_blocks_source = format("vLLM V0 \"{} N\" (line {})", phrase, line_no);
                    found(format("vLLM V0 {} {}", phrase + 2, grouped(*n)));
                }
            }
        if ((p = after(line, "max_seq_len=")) != std::string_view::npos) {
            auto n = read_count(line, p);
            if (n) {
                set_len(*n, 1, "vLLM engine config max_seq_len");
                found(format("vLLM engine config max_seq_len {}", grouped(*n)));
            }
        }
        // SGLang
        if ((p = after(line, "KV Cache is allocated. #tokens:")) != std::string_view::npos) {
            auto n = read_count(line, skip_spaces(line, p));
            if (n) {
                set_tokens(*n, "sglang", "SGLang \"KV Cache is allocated. #tokens\"");
                found(format("SGLang KV cache allocated: {} tokens", grouped(*n)));
            }
        }
        if ((p = after(line, "max_total_num_tokens=")) != std::string_view::npos) {
            auto n = read_count(line, p);
            if (n) {
                set_tokens(*n, "sglang", "SGLang max_total_num_tokens");
                found(format("SGLang max_total_num_tokens {}", grouped(*n)));
            }
        }
        if ((p = after(line, "context_len=")) != std::string_view::npos) {
            auto n = read_count(line, p);
            if (n) {
                set_len(*n, 2, "SGLang context_len");
                found(format("SGLang context_len {}", grouped(*n)));
            }
        }
        if ((p = after(line, "full_layer_tokens=")) != std::string_view::npos) {
            auto n = read_count(line, p);
            std::size_t q = after(line, "swa_layer_tokens=");
            auto s = q != std::string_view::npos ? read_count(line, q) : std::nullopt;
            if (n) {
                log.full_layer_tokens = *n;
                if (s) log.swa_layer_tokens = *s;
                found(s ? format("SGLang sliding-window pools: full_layer_tokens {}, swa_layer_tokens {}",
                                 grouped(*n), grouped(*s))
                        : format("SGLang sliding-window pools: full_layer_tokens {}", grouped(*n)));
            }
        }
        if ((p = after(line, "max_mamba_cache_size:")) != std::string_view::npos) {
            auto n = read_count(line, skip_spaces(line, p));
            if (n) {
                log.mamba_cache_size = *n;
                found(format("SGLang Mamba cache: {} states", grouped(*n)));
            }
        }
    }
    if (!token_engine.empty())
        log.engine = token_engine;
    else if (log.gpu_blocks || log.kv_memory_bytes)
        log.engine = "vllm";
    if (!log.pool_tokens && !log.gpu_blocks && !log.kv_memory_bytes) {
        std::string msg = format("engine log: no line states the KV pool; looked for {}", looked_for);
        if (log.understood.empty()) {
            msg += ". No line was understood";
        } else {
            msg += ". Understood:";
            for (std::size_t i = 0; i < log.understood.size() && i < 8; ++i)
                format_to(msg, i ? "; line {} ({})" : " line {} ({})", log.understood[i].line,
                          log.understood[i].what);
            msg += ", but none of these is a pool size";
        }
        return fail(code::unrecognised_log, "engine_log", "{}", msg);
    }
    return log;
}

}  // namespace kvcalc
