#include "check/log_scan.hpp"

#include "sizing/checked.hpp"

namespace kvcalc::scan {

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
std::optional<std::uint64_t> read_count(std::string_view s, std::size_t pos, std::size_t* end) {
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

namespace {

std::uint64_t pow10(unsigned n) {
    std::uint64_t p = 1;
    while (n--)
        p *= 10;
    return p;
}

}  // namespace

std::string decimal_text(const Decimal& d) {
    std::string digits = format("{}", d.mantissa);
    if (d.decimals == 0) return digits;
    if (digits.size() <= d.decimals) digits.insert(0, d.decimals + 1 - digits.size(), '0');
    const std::size_t point = digits.size() - d.decimals;
    return format("{}.{}", std::string_view(digits).substr(0, point), std::string_view(digits).substr(point));
}

// x GiB printed to `decimals` places (at least two for vLLM's and SGLang's GiB: the engines round to
// two, and Python's round(x, 2) prints 24.0 for 24.00) came from bytes in [x - half, x + half] of its
// last place. SGLang's "GB" is 2^30 bytes too (its GB constant), so both units are read alike.
std::optional<LogMemory> memory_range(const Decimal& d, const char* unit, int line, unsigned shift,
                                      unsigned min_places) {
    const unsigned places = std::max(min_places, d.decimals);
    const std::uint64_t tenths = d.mantissa * pow10(places + 1 - d.decimals);  // in 10^-(places+1)
    const std::uint64_t den = pow10(places + 1);
    auto bytes = [&](std::uint64_t v, bool up) -> opt_u64 {
        auto whole = mul(v / den, std::uint64_t{1} << shift);
        const std::uint64_t part = (v % den) << shift;  // below 10^7 x 2^30
        return add(whole, part / den + (up && part % den ? 1 : 0));
    };
    auto lo = bytes(tenths >= 5 ? tenths - 5 : 0, true), hi = bytes(tenths + 5, false),
         at = bytes(tenths, false);
    if (!lo || !hi || !at) return std::nullopt;
    return LogMemory{*at, *lo, *hi, format("{} {}", decimal_text(d), unit), line};
}

// A memory figure at `pos`: a decimal, optional spaces, then GiB, Gib or GB.
std::optional<LogMemory> read_memory(std::string_view s, std::size_t pos, int line, std::size_t* end) {
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

}  // namespace kvcalc::scan
