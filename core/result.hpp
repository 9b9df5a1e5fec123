// Errors are data: every fallible core function returns Result<T>, never throws.
// The wasm build runs with exceptions ignored, so a throw would corrupt the instance.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "format.hpp"

namespace kvcalc {

// Stable error codes shared by the CLI (exit 1), the JSON reports and the JS KvCalcError.
namespace code {
inline constexpr const char* malformed_json = "malformed_json";
// A GGUF file whose header or metadata cannot be read (truncated, corrupt, over a bound).
inline constexpr const char* malformed_gguf = "malformed_gguf";
inline constexpr const char* missing_field = "missing_field";
inline constexpr const char* invalid_value = "invalid_value";
inline constexpr const char* inconsistent = "inconsistent";
inline constexpr const char* overflow = "overflow";
inline constexpr const char* bad_option = "bad_option";
inline constexpr const char* unknown_preset = "unknown_preset";
inline constexpr const char* unrecognised_log = "unrecognised_log";
// An architecture kvcalc does not size, or fields that change the cache in ways it does not
// model: refused by name, never given a plain-attention figure.
inline constexpr const char* unsupported = "unsupported_architecture";
}  // namespace code

struct Error {
    std::string code;
    std::string message;
    std::string field;  // the config field or option the message is about; may be empty
    int line = 0;       // 1-based, malformed JSON only
    int column = 0;
};

// A failed call's Error on its way into the Result it is returned as: made by fail() and
// forward_error(), owned by that Result once converted. A plain pointer, so returning one
// costs no destructor call; never drop one.
struct [[nodiscard]] Failure {
    Error* error;
};

// The Error a Result owns on the heap: a Result holding a value carries only a null
// pointer, and passing an error on moves the pointer, copying no text.
class ErrorPtr {
public:
    ErrorPtr() = default;
    explicit ErrorPtr(Failure f) : error_(f.error) {}
    ErrorPtr(const ErrorPtr& other);
    ErrorPtr(ErrorPtr&& other) noexcept : error_(other.error_) { other.error_ = nullptr; }
    ErrorPtr& operator=(ErrorPtr other) noexcept {
        std::swap(error_, other.error_);
        return *this;
    }
    ~ErrorPtr();

    // The error, or an empty one when there is none.
    const Error& get() const;
    Failure take() {
        Failure f{error_};
        error_ = nullptr;
        return f;
    }

private:
    Error* error_ = nullptr;
};

Failure to_failure(Error error);  // moves `error` to the heap

template <class T>
class Result {
public:
    Result(const T& value) : value_(value) {}                      // NOLINT: implicit by design
    Result(T&& value) : value_(std::move(value)) {}                // NOLINT
    Result(Error error) : error_(to_failure(std::move(error))) {}  // NOLINT
    Result(Failure failure) : error_(failure) {}                   // NOLINT
    Result(const Result&) = default;
    Result(Result&&) noexcept = default;
    Result& operator=(const Result&) = default;
    Result& operator=(Result&&) noexcept = default;

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const T& value() const { return *value_; }
    T& value() { return *value_; }
    const T& operator*() const { return *value_; }
    const T* operator->() const { return &*value_; }
    // The error of a failed Result (an empty one for a value).
    const Error& error() const { return error_.get(); }
    // Moves the error out, to return it as another Result's: `if (!r) return r.forward_error();`
    Failure forward_error() { return error_.take(); }

private:
    std::optional<T> value_;
    ErrorPtr error_;
};

Error make_error(const char* code, std::string message, std::string field = {});

// The error of `f` with its code replaced (a config field's error reported as an option's).
Failure recode(Failure f, const char* code);

// The out-of-line part of fail() and field_error(): the first argument is the field.
Failure fail_args(const char* code, bool field_first, const char* fmt, const char* kinds,
                  const format_detail::Slot* slots);
// The same with the field's text given.
Failure fail_at(const char* code, std::string field, bool field_first, const char* fmt, const char* kinds,
                const format_detail::Slot* slots);

// An error with code `code` about `field` (text), its message `fmt` filled with `args` (see
// format()). field_error() starts the message with the field: "<field>: " + fmt filled.
template <class F, class... A>
Failure fail(const char* code, const F& field, const char* fmt, const A&... args) {
    const format_detail::Args<F, A...> a(field, args...);
    return fail_args(code, false, fmt, a.kinds, a.slots);
}
template <class F, class... A>
Failure field_error(const char* code, const F& field, const char* fmt, const A&... args) {
    const format_detail::Args<F, A...> a(field, args...);
    return fail_args(code, true, fmt, a.kinds, a.slots);
}

}  // namespace kvcalc
