#include "format.hpp"

#include <cstring>

#include "config/json.hpp"
#include "sizing/units.hpp"

namespace kvcalc {

std::size_t append_arg(std::string& out, char kind, const format_detail::Slot* s) {
    switch (kind) {
        case 'c':
            out += static_cast<const char*>(s->p);
            break;
        case 's':
            out += *static_cast<const std::string*>(s->p);
            break;
        case 'v':
            out.append(static_cast<const char*>(s[0].p), static_cast<std::size_t>(s[1].u));
            return 2;
        case 'n': {
            char digits[20];
            std::size_t i = sizeof digits;
            std::uint64_t n = s->u;
            do {
                digits[--i] = static_cast<char>('0' + n % 10);
                n /= 10;
            } while (n);
            out.append(digits + i, sizeof digits - i);
            break;
        }
        case 'g':
            out += group_thousands(s->u);
            break;
        case 'd':
            out += describe_value(*static_cast<const json*>(s->p));
            break;
    }
    return 1;
}

void append_format(std::string& out, const char* fmt, const char* kinds, const format_detail::Slot* slots) {
    for (;;) {
        const char* hole = std::strstr(fmt, "{}");
        if (!hole || !*kinds) {
            out += fmt;
            return;
        }
        out.append(fmt, static_cast<std::size_t>(hole - fmt));
        slots += append_arg(out, *kinds++, slots);
        fmt = hole + 2;
    }
}

std::string format_args(const char* fmt, const char* kinds, const format_detail::Slot* slots) {
    std::string out;
    append_format(out, fmt, kinds, slots);
    return out;
}

}  // namespace kvcalc
