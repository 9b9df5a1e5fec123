#include "result.hpp"

namespace kvcalc {

Failure to_failure(Error error) {
    return Failure{new Error(std::move(error))};
}

ErrorPtr::ErrorPtr(const ErrorPtr& other) : error_(other.error_ ? new Error(*other.error_) : nullptr) {}

void ErrorPtr::release() noexcept {
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

namespace {

Failure failure(const char* c, const Arg& field, bool field_first, const char* fmt, const Arg* args,
                std::size_t count) {
    Error e;
    e.code = c;
    field.append_to(e.field);
    if (field_first) e.message = e.field + ": ";
    append_format(e.message, fmt, args, count);
    return to_failure(std::move(e));
}

}  // namespace

Failure fail_args(const char* c, const Arg& field, const char* fmt, const Arg* args, std::size_t count) {
    return failure(c, field, false, fmt, args, count);
}

Failure field_error_args(const char* c, const Arg& field, const char* fmt, const Arg* args,
                         std::size_t count) {
    return failure(c, field, true, fmt, args, count);
}

}  // namespace kvcalc
