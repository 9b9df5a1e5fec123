// Numbers that are not integers, kept as their decimal text: written as nlohmann::json
// wrote the double they stand for, and read exactly (no strtod, no floating point).
#include <string>

#include "json_detail.hpp"
#include "json_text.hpp"

namespace kvcalc {

// ---------------------------------------------------------------------------------------
// Numbers kept as text

namespace json_detail {

// Reads JSON number text (already checked against the grammar).
Decimal read_decimal(std::string_view t) {
    Decimal d;
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') {
        d.negative = true;
        ++i;
    }
    long point = 0;
    bool seen_point = false;
    for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
        char c = t[i];
        if (c == '.') {
            seen_point = true;
            continue;
        }
        if (d.digits.empty() && c == '0') {
            if (seen_point) --point;  // a leading zero after the point moves it
            continue;
        }
        d.digits += c;
        if (!seen_point) ++point;
    }
    long exp = 0;
    bool exp_negative = false;
    if (i < t.size()) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) exp_negative = t[i++] == '-';
        for (; i < t.size(); ++i)
            if (exp < 100000) exp = exp * 10 + (t[i] - '0');
    }
    while (!d.digits.empty() && d.digits.back() == '0')
        d.digits.pop_back();
    d.point = d.digits.empty() ? 0 : point + (exp_negative ? -exp : exp);
    return d;
}

// Digits of the smallest value whose nearest double is infinite, (2^1024 - 2^970) / 10^309.
namespace {
constexpr const char* overflow_digits = "17976931348623158079372897140530341507993413271003782693617377898";
}  // namespace

bool overflows_double(const Decimal& d) {
    if (d.digits.empty() || d.point < 309) return false;
    if (d.point > 309) return true;
    return d.digits.compare(0, std::string::npos, overflow_digits) >= 0;
}

// The text nlohmann::json wrote for the double nearest to `d`: the shortest digits that
// read back as that double (for up to 15 significant digits those are the digits given;
// longer ones are rounded to 17), a point inside or ".0" after digits up to 10^15, "0.000ddd"
// down to 10^-4, else exponent form ("1e-05", "1.5e+300").
std::string double_text(Decimal d) {
    std::string out = d.negative ? "-" : "";
    if (d.point < -323) d.digits.clear();  // below half the smallest subnormal: reads as zero
    if (d.digits.size() > 17) {
        bool up = d.digits[17] >= '5';
        d.digits.resize(17);
        for (std::size_t i = 17; up && i-- > 0;) {
            if (d.digits[i] == '9') {
                d.digits[i] = '0';
            } else {
                ++d.digits[i];
                up = false;
            }
        }
        if (up) {
            d.digits.insert(0, "1");
            d.digits.pop_back();
            ++d.point;
        }
        while (!d.digits.empty() && d.digits.back() == '0')
            d.digits.pop_back();
    }
    if (d.digits.empty()) {
        out += "0.0";
        return out;
    }
    const long k = static_cast<long>(d.digits.size()), n = d.point;
    if (k <= n && n <= 15) {
        out += d.digits;
        out.append(static_cast<std::size_t>(n - k), '0');
        out += ".0";
    } else if (0 < n && n <= 15) {
        out.append(d.digits, 0, static_cast<std::size_t>(n));
        out += '.';
        out.append(d.digits, static_cast<std::size_t>(n), std::string::npos);
    } else if (-4 < n && n <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-n), '0');
        out += d.digits;
    } else {
        out += d.digits[0];
        if (k > 1) {
            out += '.';
            out.append(d.digits, 1, std::string::npos);
        }
        long e = n - 1;
        out += e < 0 ? "e-" : "e+";
        if (e < 0) e = -e;
        std::string ed = format("{}", e);
        if (ed.size() < 2) out += '0';
        out += ed;
    }
    return out;
}

}  // namespace json_detail

using json_detail::Decimal;
using json_detail::double_text;
using json_detail::read_decimal;

Json Json::hundredths(std::uint64_t hundredths) {
    std::string t = format("{}", hundredths);
    t.insert(t.size() >= 2 ? t.size() - 2 : 0, t.size() >= 2 ? "." : t.size() == 1 ? "0.0" : "0.");
    return fraction(double_text(read_decimal(t)));
}

FractionValue fraction_value(const Json& fraction) {
    Decimal d = read_decimal(fraction.str());
    FractionValue f;
    f.negative = d.negative && !d.digits.empty();
    const long k = static_cast<long>(d.digits.size());
    f.whole = d.digits.empty() || d.point >= k;
    if (!f.whole) return f;
    if (d.point > 20) {
        f.too_large = true;
        return f;
    }
    for (long i = 0; i < d.point; ++i) {
        unsigned digit = i < k ? static_cast<unsigned>(d.digits[static_cast<std::size_t>(i)] - '0') : 0;
        if (__builtin_mul_overflow(f.value, 10u, &f.value) ||
            __builtin_add_overflow(f.value, digit, &f.value)) {
            f.too_large = true;
            return f;
        }
    }
    return f;
}

}  // namespace kvcalc
