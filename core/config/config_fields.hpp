// Typed, checked access to one JSON object of a config, with field paths for messages.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "config/architectures.hpp"
#include "config/json.hpp"
#include "config/model.hpp"

namespace kvcalc {

// The defaults of a model_type's config class (architectures.cpp), for the fields a config
// leaves out.
struct Defaults {
    json values = json::object();  // field -> value
    std::vector<ClassDefault> rows;
    // Why this class: "" when the config names its model_type, else the wrapper whose text model it is
    // ("LlavaConfig's text model").
    std::string via;
    const ClassDefault* row(std::string_view field) const;
};
Defaults defaults_for(std::string_view model_type, std::string via = "");

class Fields {
public:
    Fields(const json& object, std::string prefix, const Defaults* defaults = nullptr)
        : obj_(object), prefix_(std::move(prefix)), defaults_(defaults) {}

    // Names are C strings: one pointer at each of the many call sites.
    // The field's path as messages name it: "text_config.head_dim".
    std::string path(const char* name) const;
    // A present, non-null field, or nullptr. (`"head_dim": null` means "not set".) A field
    // the config leaves out takes its config class's default, when there is one.
    const json* find(const char* name) const;
    // How a value was found: the field's path, or "<path> <value> (default of <class>: <meaning>)".
    std::string source(const char* name) const;
    // Where a layer pattern came from: the field's path, or, when the config leaves it to a class default,
    // "<path> (default of <class>: <meaning>)" without the value (a long list, or None).
    std::string pattern_source(const char* name) const;
    // The first of the aliases the config has, else the first a class default gives, else nullptr.
    const char* first_of(std::initializer_list<const char*> names) const;

    // A positive integer (integral floats like 32.0 are accepted); errors name the field.
    Result<Sourced> positive(const char* name) const;
    // Zero allowed.
    Result<Sourced> non_negative(const char* name) const;
    // A boolean when present; error when present with another type.
    Result<bool> flag(const char* name, bool absent_value) const;
    // A string when present ("" when absent); error when present with another type.
    Result<std::string> text(const char* name) const;

    // An error about field `name`: code, field path(name), message "<path>: " + fmt filled.
    template <class... A>
    Failure error(const char* code, const char* name, const char* fmt, const A&... args) const {
        if constexpr (sizeof...(A) == 0) {
            return error_args(code, name, fmt, "", nullptr);
        } else {
            const format_detail::Args<A...> a(args...);
            return error_args(code, name, fmt, a.kinds, a.slots);
        }
    }
    Failure error_args(const char* code, const char* name, const char* fmt, const char* kinds,
                       const format_detail::Slot* slots) const;

    const json& object() const { return obj_; }
    const std::string& prefix() const { return prefix_; }

private:
    const json& obj_;
    std::string prefix_;
    const Defaults* defaults_;
    Result<Sourced> integer(const char* name, bool allow_zero) const;
};

// The same checks for an element of an array (layer_types[3], full_attn_layers[0], ...).
Result<std::uint64_t> checked_integer(const json& value, const std::string& path, bool allow_zero);

}  // namespace kvcalc
