#include "result.hpp"

namespace kvcalc {

Failure to_failure(Error error) {
    return Failure{new Error(std::move(error))};
}

ErrorPtr::ErrorPtr(const ErrorPtr& other) : error_(other.error_ ? new Error(*other.error_) : nullptr) {}

ErrorPtr::~ErrorPtr() {
    delete error_;
}

const Error& ErrorPtr::get() const {
    static const Error none;
    return error_ ? *error_ : none;
}

Error make_error(const char* c, std::string message, std::string field) {
    Error e;
    e.code = c;
    e.message = std::move(message);
    e.field = std::move(field);
    return e;
}

Failure recode(Failure f, const char* c) {
    f.error->code = c;
    return f;
}

Failure fail_at(const char* c, std::string field, bool field_first, const char* fmt, const char* kinds,
                const format_detail::Slot* slots) {
    Error e;
    e.code = c;
    if (field_first) {
        e.message = field;
        e.message += ": ";
    }
    append_format(e.message, fmt, kinds, slots);
    e.field = std::move(field);
    return to_failure(std::move(e));
}

Failure fail_args(const char* c, bool field_first, const char* fmt, const char* kinds,
                  const format_detail::Slot* slots) {
    std::string field;
    std::size_t used = append_arg(field, kinds[0], slots);
    return fail_at(c, std::move(field), field_first, fmt, kinds + 1, slots + used);
}

}  // namespace kvcalc
