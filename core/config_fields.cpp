#include "config_fields.hpp"

#include "checked.hpp"

namespace kvcalc {

std::string Fields::path(std::string_view name) const {
    std::string p = prefix_;
    if (!p.empty()) p += '.';
    p += name;
    return p;
}

const json* Fields::find(std::string_view name) const {
    const json* v = obj_.find(name);
    return v && !v->is_null() ? v : nullptr;
}

std::string Fields::first_of(std::initializer_list<const char*> names) const {
    for (const char* n : names)
        if (find(n)) return n;
    return {};
}

Result<std::uint64_t> checked_integer(const json& v, const std::string& path, bool allow_zero) {
    std::string what = describe_value(v);
    auto bad = [&](const std::string& why) {
        return make_error(code::invalid_value, path + ": " + why + ", got " + what, path);
    };
    const char* need = allow_zero ? "must be a non-negative integer" : "must be a positive integer";
    std::uint64_t out = 0;
    if (v.is_number_unsigned()) {
        out = v.get<std::uint64_t>();
    } else if (v.is_number_integer()) {
        return bad(need);  // negative (non-negative ones are number_unsigned)
    } else if (v.is_number_float()) {
        FractionValue d = fraction_value(v);  // exact, from the number's text
        if (d.negative) return bad(need);
        if (!d.whole) return bad("must be an integer");
        if (d.too_large || d.value > max_exact) return bad("is too large");
        out = d.value;
    } else if (is_number_marker(v)) {
        return bad(need);
    } else {
        return bad("must be a number");
    }
    if (out == 0 && !allow_zero) return bad(need);
    if (out > max_exact) return bad("is too large");
    return out;
}

Result<Sourced> Fields::integer(std::string_view name, bool allow_zero) const {
    const json* v = find(name);
    if (!v) return make_error(code::missing_field, path(name) + ": missing", path(name));
    auto r = checked_integer(*v, path(name), allow_zero);
    if (!r) return r.forward_error();
    return Sourced{*r, path(name)};
}

Result<Sourced> Fields::positive(std::string_view name) const {
    return integer(name, false);
}
Result<Sourced> Fields::non_negative(std::string_view name) const {
    return integer(name, true);
}

Result<bool> Fields::flag(std::string_view name, bool absent_value) const {
    const json* v = find(name);
    if (!v) return absent_value;
    if (!v->is_boolean())
        return make_error(code::invalid_value,
                          path(name) + ": must be true or false, got " + describe_value(*v), path(name));
    return v->get<bool>();
}

Result<std::string> Fields::text(std::string_view name) const {
    const json* v = find(name);
    if (!v) return std::string();
    if (!v->is_string() || is_number_marker(*v))
        return make_error(code::invalid_value, path(name) + ": must be a string, got " + describe_value(*v),
                          path(name));
    return v->get<std::string>();
}

}  // namespace kvcalc
