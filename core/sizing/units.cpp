#include "sizing/units.hpp"

#include "format.hpp"

namespace kvcalc {

std::string group_thousands(std::uint64_t v, const std::string& sep) {
    std::string digits = format("{}", v);
    std::string out;
    int n = static_cast<int>(digits.size());
    for (int i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0) out += sep;
        out += digits[static_cast<std::size_t>(i)];
    }
    return out;
}

std::string fixed_point(std::uint64_t value, unsigned scale) {
    std::uint64_t div = 1;
    for (unsigned i = 0; i < scale; ++i)
        div *= 10;
    std::string out = format("{}", value / div);
    if (scale == 0) return out;
    std::string frac = format("{}", value % div);
    out += '.';
    out.append(scale - frac.size(), '0');
    out += frac;
    return out;
}

std::string format_bytes(std::uint64_t bytes, bool decimal) {
    static const char* bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    static const char* dec[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    const std::uint64_t base = decimal ? 1000 : 1024;
    std::uint64_t unit = 1;
    int idx = 0;
    while (idx < 6 && bytes / unit >= base) {
        unit *= base;
        ++idx;
    }
    std::uint64_t whole = bytes / unit;
    std::uint64_t rest = bytes % unit;
    // hundredths, rounded half up; rest < unit <= 2^60, so rest * 100 may overflow for
    // the top units: divide the unit first there.
    std::uint64_t hundredths = unit >= (std::uint64_t{1} << 56) ? (rest / (unit / 100 ? unit / 100 : 1))
                                                                : (rest * 100 + unit / 2) / unit;
    if (hundredths >= 100) {
        whole += 1;
        hundredths -= 100;
    }
    const char* unit_name = (decimal ? dec : bin)[idx];
    // Two decimals at most, a trailing zero dropped: 1.05, 1.5.
    if (!hundredths) return format("{} {}", whole, unit_name);
    if (hundredths % 10 == 0) return format("{}.{} {}", whole, hundredths / 10, unit_name);
    return format(hundredths < 10 ? "{}.0{} {}" : "{}.{} {}", whole, hundredths, unit_name);
}

}  // namespace kvcalc
