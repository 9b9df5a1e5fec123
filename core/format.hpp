// Message text: one literal with {} placeholders, filled by one out-of-line call. A chain
// of std::string + would cost every call site a temporary, a call and a destructor per piece;
// here each argument costs one store, and its type travels in a constant string of letters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "config/json_fwd.hpp"

namespace kvcalc {

// Placeholder values besides text (C strings, std::strings, string_views, all borrowed
// until the call returns) and non-negative integers (in decimal, as std::to_string prints):
struct Grouped {  // 1,048,576: with thousands separators, as group_thousands writes it
    std::uint64_t n;
};
inline Grouped grouped(std::uint64_t n) {
    return {n};
}
struct Described {  // a JSON value as messages show it ("NaN", "\"8\"", "[4]"): describe_value
    const json* value;
};
inline Described described(const json& value) {
    return {&value};
}

namespace format_detail {

union Slot {
    const void* p;
    std::uint64_t u;
};

// One letter per argument: c C string, s std::string, v string_view (two slots: data and
// size), n integer, g grouped(), d described().
template <class T>
constexpr char kind_of() {
    using D = std::decay_t<T>;
    if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
        return 'c';
    } else if constexpr (std::is_same_v<D, std::string>) {
        return 's';
    } else if constexpr (std::is_same_v<D, std::string_view>) {
        return 'v';
    } else if constexpr (std::is_same_v<D, Grouped>) {
        return 'g';
    } else if constexpr (std::is_same_v<D, Described>) {
        return 'd';
    } else {
        static_assert(std::is_integral_v<D> && !std::is_same_v<D, bool> && !std::is_same_v<D, char>,
                      "format(): text, a non-negative integer, grouped() or described()");
        return 'n';
    }
}

template <class T>
constexpr std::size_t slots_of() {
    return kind_of<T>() == 'v' ? 2 : 1;
}

template <class T>
void put(Slot*& s, const T& v) {
    constexpr char k = kind_of<T>();
    if constexpr (k == 'c') {
        (s++)->p = static_cast<const char*>(v);
    } else if constexpr (k == 's') {
        (s++)->p = &v;
    } else if constexpr (k == 'v') {
        (s++)->p = v.data();
        (s++)->u = v.size();
    } else if constexpr (k == 'g') {
        (s++)->u = v.n;
    } else if constexpr (k == 'd') {
        (s++)->p = v.value;
    } else {
        (s++)->u = static_cast<std::uint64_t>(v);
    }
}

// The arguments of one call: their letters (a constant per signature) and their slots.
template <class... A>
struct Args {
    static constexpr char kinds[] = {kind_of<A>()..., '\0'};
    Slot slots[(slots_of<A>() + ... + 0)];
    explicit Args(const A&... args) {
        Slot* s = slots;
        (put(s, args), ...);
    }
};

}  // namespace format_detail

// `fmt` with each "{}" replaced by the next argument's text, appended to `out`.
void append_format(std::string& out, const char* fmt, const char* kinds, const format_detail::Slot* slots);
std::string format_args(const char* fmt, const char* kinds, const format_detail::Slot* slots);
// Appends the one argument of letter `kind` at `slot`; returns the slots it takes.
std::size_t append_arg(std::string& out, char kind, const format_detail::Slot* slot);

template <class... A>
std::string format(const char* fmt, const A&... args) {
    if constexpr (sizeof...(A) == 0) {
        return format_args(fmt, "", nullptr);
    } else {
        const format_detail::Args<A...> a(args...);
        return format_args(fmt, a.kinds, a.slots);
    }
}

// Appends the same to `out`.
template <class... A>
void format_to(std::string& out, const char* fmt, const A&... args) {
    if constexpr (sizeof...(A) == 0) {
        append_format(out, fmt, "", nullptr);
    } else {
        const format_detail::Args<A...> a(args...);
        append_format(out, fmt, a.kinds, a.slots);
    }
}

}  // namespace kvcalc
