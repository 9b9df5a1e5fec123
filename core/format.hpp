// Message text: one literal with {} placeholders, filled by one out-of-line call. A chain
// of std::string + would cost every call site a temporary, a call and a destructor per piece.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace kvcalc {

class Json;

// One value for a placeholder: text (a C string, a std::string or a string_view, all
// borrowed until the call returns), a non-negative integer in decimal (as std::to_string
// prints it), or the kinds made by grouped() and described().
class Arg {
public:
    enum class Kind : unsigned char { c_string, string, view, number, grouped, described };

    Arg(const char* s) : kind_(Kind::c_string) { v_.p = s; }        // NOLINT: implicit by design
    Arg(const std::string& s) : kind_(Kind::string) { v_.p = &s; }  // NOLINT
    Arg(std::string_view s) : kind_(Kind::view), size_(s.size()) {  // NOLINT
        v_.p = s.data();
    }
    template <class T,
              std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>,
                               int> = 0>
    Arg(T n) : kind_(Kind::number) {  // NOLINT
        v_.u = static_cast<std::uint64_t>(n);
    }
    Arg(Kind kind, std::uint64_t n) : kind_(kind) { v_.u = n; }
    Arg(Kind kind, const void* p) : kind_(kind) { v_.p = p; }

    // Appends the value's text.
    void append_to(std::string& out) const;

private:
    Kind kind_;
    std::size_t size_ = 0;
    union {
        const void* p;
        std::uint64_t u;
    } v_;
};

// 1,048,576: the integer with thousands separators (group_thousands).
inline Arg grouped(std::uint64_t n) {
    return Arg(Arg::Kind::grouped, n);
}
// A JSON value as messages show it ("NaN", "\"8\"", "[4]"): describe_value.
inline Arg described(const Json& value) {
    return Arg(Arg::Kind::described, static_cast<const void*>(&value));
}

// `fmt` with each "{}" replaced by the next of `args`, in order.
std::string format_args(const char* fmt, const Arg* args, std::size_t count);
// Appends the same to `out`.
void append_format(std::string& out, const char* fmt, const Arg* args, std::size_t count);

template <class... A>
std::string format(const char* fmt, const A&... args) {
    if constexpr (sizeof...(A) == 0) {
        return format_args(fmt, nullptr, 0);
    } else {
        const Arg list[] = {Arg(args)...};
        return format_args(fmt, list, sizeof...(A));
    }
}

}  // namespace kvcalc
