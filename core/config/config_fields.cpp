#include "config/config_fields.hpp"

#include <cmath>

#include "sizing/checked.hpp"

namespace kvcalc {

std::string Fields::path(const char* name) const {
    std::string p = prefix_;
    if (!p.empty()) p += '.';
    p += name;
    return p;
}

Failure Fields::error_args(const char* c, const char* name, const char* fmt, const char* kinds,
                           const format_detail::Slot* slots) const {
    return fail_at(c, path(name), true, fmt, kinds, slots);
}

const ClassDefault* Defaults::row(std::string_view field) const {
    for (const ClassDefault& r : rows)
        if (field == r.field) return &r;
    return nullptr;
}

Defaults defaults_for(std::string_view model_type, std::string via) {
    Defaults d;
    d.via = std::move(via);
    d.rows = class_defaults(model_type);
    // A derived default (no value) is the reader's own derivation when the field is absent: no value here.
    for (const ClassDefault& r : d.rows)
        if (r.value) d.values[r.field] = *parse_json_text(r.value);
    return d;
}

const json* Fields::find(const char* name) const {
    if (const json* v = member(obj_, name)) return v->is_null() ? nullptr : v;
    const json* d = defaults_ ? member(defaults_->values, name) : nullptr;
    return d && !d->is_null() ? d : nullptr;  // a default of None is no value
}

std::string Fields::source(const char* name) const {
    const ClassDefault* d = defaults_ && !member(obj_, name) ? defaults_->row(name) : nullptr;
    if (!d) return path(name);
    return format("{} {} (default of {}{}{}: {})", path(name), d->value, d->config_class,
                  defaults_->via.empty() ? "" : " for ", defaults_->via, d->meaning);
}

std::string Fields::pattern_source(const char* name) const {
    const json* own = member(obj_, name);  // a null field is None: the class's default holds
    const ClassDefault* d = defaults_ && (!own || own->is_null()) ? defaults_->row(name) : nullptr;
    if (!d) return path(name);
    return format("{} (default of {}{}{}: {})", path(name), d->config_class,
                  defaults_->via.empty() ? "" : " for ", defaults_->via, d->meaning);
}

const char* Fields::first_of(std::initializer_list<const char*> names) const {
    // The config's own field first, whichever alias it is; a class default only when it has none.
    for (const char* n : names)
        if (const json* v = member(obj_, n); v && !v->is_null()) return n;
    for (const char* n : names)
        if (find(n)) return n;
    return nullptr;
}

Result<std::uint64_t> checked_integer(const json& v, const std::string& path, bool allow_zero) {
    const char* need = allow_zero ? "must be a non-negative integer" : "must be a positive integer";
    const char* why = nullptr;
    std::uint64_t out = 0;
    if (v.is_number_unsigned()) {
        out = v.get<std::uint64_t>();
    } else if (v.is_number_integer()) {
        why = need;  // negative (non-negative ones are number_unsigned)
    } else if (v.is_number_float()) {
        // A whole number written with a point (32.0) or an exponent (1e3). Above 2^53 a double
        // is not exact, and no figure kvcalc reports may be that large anyway.
        const double d = v.get<double>();
        if (d < 0)
            why = need;
        else if (d != std::floor(d))
            why = "must be an integer";
        else if (d > static_cast<double>(max_exact))
            why = "is too large";
        else
            out = static_cast<std::uint64_t>(d);
    } else if (is_number_marker(v)) {
        why = need;
    } else {
        why = "must be a number";
    }
    if (!why && out == 0 && !allow_zero) why = need;
    if (!why && out > max_exact) why = "is too large";
    if (why) return field_error(code::invalid_value, path, "{}, got {}", why, described(v));
    return out;
}

Result<Sourced> Fields::integer(const char* name, bool allow_zero) const {
    const json* v = find(name);
    if (!v) return error(code::missing_field, name, "missing");
    auto r = checked_integer(*v, path(name), allow_zero);
    if (!r) return r.forward_error();
    return Sourced{*r, source(name)};
}

Result<Sourced> Fields::positive(const char* name) const {
    return integer(name, false);
}
Result<Sourced> Fields::non_negative(const char* name) const {
    return integer(name, true);
}

Result<bool> Fields::flag(const char* name, bool absent_value) const {
    const json* v = find(name);
    if (!v) return absent_value;
    if (!v->is_boolean())
        return error(code::invalid_value, name, "must be true or false, got {}", described(*v));
    return v->get<bool>();
}

Result<std::string> Fields::text(const char* name) const {
    const json* v = find(name);
    if (!v) return std::string();
    if (!v->is_string() || is_number_marker(*v))
        return error(code::invalid_value, name, "must be a string, got {}", described(*v));
    return v->get<std::string>();
}

}  // namespace kvcalc
