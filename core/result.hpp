// Errors are data: every fallible core function returns Result<T>, never throws.
// The wasm build runs with exceptions ignored, so a throw would corrupt the instance.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace kvcalc {

// Stable error codes shared by the CLI (exit 1), the JSON reports and the JS KvCalcError.
namespace code {
inline constexpr const char* malformed_json = "malformed_json";
inline constexpr const char* missing_field = "missing_field";
inline constexpr const char* invalid_value = "invalid_value";
inline constexpr const char* inconsistent = "inconsistent";
inline constexpr const char* overflow = "overflow";
inline constexpr const char* bad_option = "bad_option";
inline constexpr const char* unknown_preset = "unknown_preset";
inline constexpr const char* unrecognised_log = "unrecognised_log";
}  // namespace code

struct Error {
    std::string code;
    std::string message;
    std::string field;  // the config field or option the message is about; may be empty
    int line = 0;       // 1-based, malformed JSON only
    int column = 0;
};

template <class T>
class Result {
public:
    Result(T value) : value_(std::move(value)) {}      // NOLINT: implicit by design
    Result(Error error) : error_(std::move(error)) {}  // NOLINT

    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const T& value() const { return *value_; }
    T& value() { return *value_; }
    const T& operator*() const { return *value_; }
    const T* operator->() const { return &*value_; }
    const Error& error() const { return error_; }

private:
    std::optional<T> value_;
    Error error_;
};

inline Error make_error(const char* c, std::string message, std::string field = {}) {
    Error e;
    e.code = c;
    e.message = std::move(message);
    e.field = std::move(field);
    return e;
}

}  // namespace kvcalc
