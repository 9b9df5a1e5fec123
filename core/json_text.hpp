// A small JSON value, its no-throw parser and its writer.
//
// Only what the core needs: null, bools, 64-bit integers (exactly), other numbers kept as
// their decimal text, strings, arrays, and objects whose keys stay sorted (so the text a
// value writes does not depend on the order it was built in).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "result.hpp"

namespace kvcalc {

struct JsonMember;

class Json {
public:
    enum class Kind : unsigned char {
        null,
        boolean,
        unsigned_int,
        signed_int,
        fraction,
        string,
        array,
        object
    };

    constexpr Json() noexcept {}
    constexpr Json(std::nullptr_t) noexcept {}  // NOLINT: implicit by design
    constexpr Json(bool b) noexcept : kind_(Kind::boolean) { v_.u = b ? 1 : 0; }  // NOLINT
    constexpr Json(int v) noexcept : Json(static_cast<long long>(v)) {}           // NOLINT
    constexpr Json(long v) noexcept : Json(static_cast<long long>(v)) {}          // NOLINT
    constexpr Json(long long v) noexcept : kind_(Kind::signed_int) {
        v_.u = static_cast<std::uint64_t>(v);
    }                                                                                        // NOLINT
    constexpr Json(unsigned v) noexcept : Json(static_cast<unsigned long long>(v)) {}        // NOLINT
    constexpr Json(unsigned long v) noexcept : Json(static_cast<unsigned long long>(v)) {}   // NOLINT
    constexpr Json(unsigned long long v) noexcept : kind_(Kind::unsigned_int) { v_.u = v; }  // NOLINT
    Json(double) = delete;  // numbers that are not integers are kept as text: Json::fraction
    Json(const char* s);    // NOLINT
    Json(std::string s);    // NOLINT
    Json(const std::vector<std::string>& items);      // NOLINT: an array of strings
    Json(const std::vector<std::uint64_t>& items);    // NOLINT: an array of integers
    Json(std::initializer_list<JsonMember> members);  // an object
    Json(const Json& other);
    Json(Json&& other) noexcept : kind_(other.kind_), v_(other.v_) { other.kind_ = Kind::null; }
    Json& operator=(const Json& other);
    Json& operator=(Json&& other) noexcept;
    ~Json() { release(); }

    static Json array();
    static Json array(std::initializer_list<Json> items);
    static Json object();
    // A number that is not an integer, as its text (written as nlohmann::json wrote doubles).
    static Json fraction(std::string text);
    // hundredths / 100, written as the double it stands for would be ("0.65", "100.0").
    static Json hundredths(std::uint64_t hundredths);

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::null; }
    bool is_boolean() const { return kind_ == Kind::boolean; }
    bool is_number() const { return kind_ >= Kind::unsigned_int && kind_ <= Kind::fraction; }
    bool is_number_integer() const { return kind_ == Kind::unsigned_int || kind_ == Kind::signed_int; }
    bool is_number_unsigned() const { return kind_ == Kind::unsigned_int; }
    bool is_number_float() const { return kind_ == Kind::fraction; }
    bool is_string() const { return kind_ == Kind::string; }
    bool is_array() const { return kind_ == Kind::array; }
    bool is_object() const { return kind_ == Kind::object; }

    // Accessors; the caller checks the kind first.
    bool as_bool() const { return v_.u != 0; }
    std::uint64_t as_uint() const { return v_.u; }  // a signed integer as its two's complement
    const std::string& str() const;                 // a string, or a fraction's text
    template <class T>
    T get() const {
        if constexpr (std::is_same_v<T, bool>)
            return as_bool();
        else if constexpr (std::is_same_v<T, std::string>)
            return str();
        else {
            static_assert(std::is_integral_v<T>, "get<T>(): bool, std::string or an integer type");
            return static_cast<T>(as_uint());
        }
    }

    // Arrays (size() also counts an object's members).
    std::size_t size() const;
    bool empty() const { return size() == 0; }
    const Json& operator[](std::size_t i) const;
    const Json* begin() const;  // the elements of an array; empty otherwise
    const Json* end() const;
    void push_back(Json v);  // makes a null an array

    // Objects.
    const Json* find(std::string_view key) const;  // nullptr when absent or not an object
    bool contains(std::string_view key) const { return find(key) != nullptr; }
    const Json& operator[](std::string_view key) const;  // a null when absent
    Json& operator[](std::string_view key);              // inserts a null when absent; makes a null an object
    struct Members {
        const JsonMember *first, *last;
        const JsonMember* begin() const { return first; }
        const JsonMember* end() const { return last; }
    };
    Members members() const;  // sorted by key; empty unless an object

    // Builders for reports: out of line, so that each member costs its call site one call.
    // Each sets `key` (making a null an object) and returns *this.
    // The key is a C string: one pointer at each call site.
    Json& set(const char* key, Json&& v);
    Json& set(std::string_view key, Json&& v);  // any other key
    Json& set(const char* key, const Json& v);
    Json& set(const char* key, const std::string& v);
    Json& set(const char* key, const char* v);
    Json& set(const char* key, bool v);
    Json& set(const char* key, const std::optional<std::uint64_t>& v);  // null when empty
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    Json& set(const char* key, T v) {
        return set_integer(key, static_cast<std::uint64_t>(v), std::is_signed_v<T>);
    }
    Json& set_integer(const char* key, std::uint64_t v, bool is_signed);

    // Compact text (indent < 0) or pretty text with `indent` spaces a level. Invalid UTF-8 in
    // strings is written as U+FFFD.
    std::string dump(int indent = -1) const;

    friend bool operator==(const Json& a, const Json& b);
    friend bool operator!=(const Json& a, const Json& b) { return !(a == b); }

private:
    Kind kind_ = Kind::null;
    union Value {
        std::uint64_t u;
        std::string* s;
        std::vector<Json>* a;
        std::vector<JsonMember>* o;
    } v_{0};

    void release() noexcept;
    void write(std::string& out, int indent, int level) const;
};

struct JsonMember {
    std::string key;
    Json value;
};

using json = Json;

// Python's json writer emits bare NaN / Infinity / -Infinity (Nemotron-H does). They are
// read as these marker strings, so a field that needs a number can say "got NaN".
inline constexpr const char* nan_marker = "\x01NaN";
inline constexpr const char* inf_marker = "\x01Infinity";
inline constexpr const char* neg_inf_marker = "\x01-Infinity";

// Malformed text gives code malformed_json with 1-based line and column; duplicate keys
// and nesting deeper than max_json_depth are errors too (a config must not be ambiguous).
inline constexpr int max_json_depth = 128;
// Texts longer than this are refused before parsing: a config.json is kilobytes (the largest
// in ../shared/configs is 4 KB). Parsing takes up to about 50 bytes of memory per byte of text
// (a text of empty arrays or one-digit numbers is a value per two or three bytes), and the wasm
// module's allocator keeps what it claimed: 1 MiB of text stays under 64 MiB (a test checks it),
// where 8 MiB took 390 MB and hundreds of megabytes exhausted the memory and aborted the module.
inline constexpr std::size_t max_json_bytes = std::size_t{1} << 20;  // 1 MiB
Result<Json> parse_json_text(std::string_view text);

// True for the marker strings that stand for NaN / Infinity / -Infinity.
bool is_number_marker(const Json& value);

// "NaN" for a marker string, else the JSON text of the value (shortened), for messages.
std::string describe_value(const Json& value);

// A fraction's value read exactly from its text: negative (and not zero), whether it is a
// whole number, and that whole number when it is one and at most 2^64 - 1 (else too_large).
struct FractionValue {
    bool negative = false;
    bool whole = false;
    bool too_large = false;
    std::uint64_t value = 0;
};
FractionValue fraction_value(const Json& fraction);

}  // namespace kvcalc
