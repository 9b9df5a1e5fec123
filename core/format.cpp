#include "format.hpp"

#include <cstring>

#include "json_text.hpp"
#include "units.hpp"

namespace kvcalc {

void Arg::append_to(std::string& out) const {
    switch (kind_) {
        case Kind::c_string:
            out += static_cast<const char*>(v_.p);
            break;
        case Kind::string:
            out += *static_cast<const std::string*>(v_.p);
            break;
        case Kind::view:
            out.append(static_cast<const char*>(v_.p), size_);
            break;
        case Kind::number: {
            char digits[20];
            std::size_t i = sizeof digits;
            std::uint64_t n = v_.u;
            do {
                digits[--i] = static_cast<char>('0' + n % 10);
                n /= 10;
            } while (n);
            out.append(digits + i, sizeof digits - i);
            break;
        }
        case Kind::grouped:
            out += group_thousands(v_.u);
            break;
        case Kind::described:
            out += describe_value(*static_cast<const Json*>(v_.p));
            break;
    }
}

void append_format(std::string& out, const char* fmt, const Arg* args, std::size_t count) {
    std::size_t next = 0;
    for (;;) {
        const char* hole = std::strstr(fmt, "{}");
        if (!hole || next == count) {
            out += fmt;
            return;
        }
        out.append(fmt, static_cast<std::size_t>(hole - fmt));
        args[next++].append_to(out);
        fmt = hole + 2;
    }
}

std::string format_args(const char* fmt, const Arg* args, std::size_t count) {
    std::string out;
    append_format(out, fmt, args, count);
    return out;
}

}  // namespace kvcalc
