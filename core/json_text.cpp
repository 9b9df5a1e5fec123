#include "json_text.hpp"

#include <algorithm>
#include <cstring>

namespace kvcalc {

// ---------------------------------------------------------------------------------------
// The value

Json::Json(const char* s) : kind_(Kind::string) {
    v_.s = new std::string(s);
}
Json::Json(std::string s) : kind_(Kind::string) {
    v_.s = new std::string(std::move(s));
}
Json::Json(const std::vector<std::string>& items) : kind_(Kind::array) {
    v_.a = new std::vector<Json>(items.begin(), items.end());
}
Json::Json(const std::vector<std::uint64_t>& items) : kind_(Kind::array) {
    v_.a = new std::vector<Json>(items.begin(), items.end());
}
Json::Json(std::initializer_list<JsonMember> members) : kind_(Kind::object) {
    v_.o = new std::vector<JsonMember>();
    for (const auto& m : members)
        (*this)[m.key] = m.value;
}

Json::Json(const Json& other) : kind_(other.kind_), v_(other.v_) {
    switch (kind_) {
        case Kind::fraction:
        case Kind::string:
            v_.s = new std::string(*other.v_.s);
            break;
        case Kind::array:
            v_.a = new std::vector<Json>(*other.v_.a);
            break;
        case Kind::object:
            v_.o = new std::vector<JsonMember>(*other.v_.o);
            break;
        default:
            break;
    }
}

Json& Json::operator=(const Json& other) {
    if (this != &other) *this = Json(other);
    return *this;
}

Json& Json::operator=(Json&& other) noexcept {
    if (this != &other) {
        release();
        kind_ = other.kind_;
        v_ = other.v_;
        other.kind_ = Kind::null;
    }
    return *this;
}

void Json::release() noexcept {
    switch (kind_) {
        case Kind::fraction:
        case Kind::string:
            delete v_.s;
            break;
        case Kind::array:
            delete v_.a;
            break;
        case Kind::object:
            delete v_.o;
            break;
        default:
            break;
    }
    kind_ = Kind::null;
}

Json Json::array() {
    Json j;
    j.kind_ = Kind::array;
    j.v_.a = new std::vector<Json>();
    return j;
}

Json Json::array(std::initializer_list<Json> items) {
    Json j = array();
    j.v_.a->assign(items.begin(), items.end());
    return j;
}

Json Json::object() {
    Json j;
    j.kind_ = Kind::object;
    j.v_.o = new std::vector<JsonMember>();
    return j;
}

Json Json::fraction(std::string text) {
    Json j(std::move(text));
    j.kind_ = Kind::fraction;
    return j;
}

const std::string& Json::str() const {
    return *v_.s;
}

std::size_t Json::size() const {
    if (kind_ == Kind::array) return v_.a->size();
    if (kind_ == Kind::object) return v_.o->size();
    return 0;
}

const Json& Json::operator[](std::size_t i) const {
    return (*v_.a)[i];
}

const Json* Json::begin() const {
    return kind_ == Kind::array ? v_.a->data() : nullptr;
}

const Json* Json::end() const {
    return kind_ == Kind::array ? v_.a->data() + v_.a->size() : nullptr;
}

void Json::push_back(Json v) {
    if (kind_ != Kind::array) *this = array();
    v_.a->push_back(std::move(v));
}

namespace {

std::vector<JsonMember>::iterator lower(std::vector<JsonMember>& members, std::string_view key) {
    return std::lower_bound(members.begin(), members.end(), key, [](const JsonMember& m, std::string_view k) {
        return std::string_view(m.key) < k;
    });
}

}  // namespace

const Json* Json::find(std::string_view key) const {
    if (kind_ != Kind::object) return nullptr;
    auto it = lower(*v_.o, key);
    return it != v_.o->end() && it->key == key ? &it->value : nullptr;
}

const Json& Json::operator[](std::string_view key) const {
    static const Json absent;  // constant-initialized; never written
    const Json* v = find(key);
    return v ? *v : absent;
}

Json& Json::operator[](std::string_view key) {
    if (kind_ != Kind::object) *this = object();
    auto it = lower(*v_.o, key);
    if (it == v_.o->end() || it->key != key) it = v_.o->insert(it, JsonMember{std::string(key), Json()});
    return it->value;
}

Json& Json::set(std::string_view key, Json&& v) {
    (*this)[key] = std::move(v);
    return *this;
}
Json& Json::set(std::string_view key, const Json& v) {
    (*this)[key] = v;
    return *this;
}
Json& Json::set(std::string_view key, const std::string& v) {
    return set(key, Json(v));
}
Json& Json::set(std::string_view key, const char* v) {
    return set(key, Json(v));
}
Json& Json::set(std::string_view key, bool v) {
    return set(key, Json(v));
}
Json& Json::set(std::string_view key, const std::optional<std::uint64_t>& v) {
    return v ? set(key, Json(static_cast<unsigned long long>(*v))) : set(key, Json());
}
Json& Json::set_integer(std::string_view key, std::uint64_t v, bool is_signed) {
    Json j(static_cast<unsigned long long>(v));
    if (is_signed) j.kind_ = Kind::signed_int;
    return set(key, std::move(j));
}

Json::Members Json::members() const {
    if (kind_ != Kind::object) return {nullptr, nullptr};
    return {v_.o->data(), v_.o->data() + v_.o->size()};
}

bool operator==(const Json& a, const Json& b) {
    using K = Json::Kind;
    if (a.is_number_integer() && b.is_number_integer()) {
        // nlohmann compared a signed and an unsigned integer by value.
        if (a.kind_ != b.kind_ && (static_cast<std::int64_t>(a.kind_ == K::signed_int ? a.v_.u : b.v_.u) < 0))
            return false;
        return a.v_.u == b.v_.u;
    }
    if (a.kind_ != b.kind_) return false;
    switch (a.kind_) {
        case K::null:
            return true;
        case K::boolean:
            return a.v_.u == b.v_.u;
        case K::fraction:
        case K::string:
            return *a.v_.s == *b.v_.s;
        case K::array:
            return *a.v_.a == *b.v_.a;
        case K::object: {
            const auto &x = *a.v_.o, &y = *b.v_.o;
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (x[i].key != y[i].key || x[i].value != y[i].value) return false;
            return true;
        }
        default:
            return false;
    }
}

// ---------------------------------------------------------------------------------------
// Numbers kept as text

namespace {

// A decimal as digits d1 d2 ... dk (no leading or trailing zeros; empty for zero) and the
// place of the decimal point: value = 0.d1d2...dk x 10^point.
struct Decimal {
    bool negative = false;
    std::string digits;
    long point = 0;
};

// Reads JSON number text (already checked against the grammar).
Decimal read_decimal(std::string_view t) {
    Decimal d;
    std::size_t i = 0;
    if (i < t.size() && t[i] == '-') {
        d.negative = true;
        ++i;
    }
    long point = 0;
    bool seen_point = false;
    for (; i < t.size() && t[i] != 'e' && t[i] != 'E'; ++i) {
        char c = t[i];
        if (c == '.') {
            seen_point = true;
            continue;
        }
        if (d.digits.empty() && c == '0') {
            if (seen_point) --point;  // a leading zero after the point moves it
            continue;
        }
        d.digits += c;
        if (!seen_point) ++point;
    }
    long exp = 0;
    bool exp_negative = false;
    if (i < t.size()) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) exp_negative = t[i++] == '-';
        for (; i < t.size(); ++i)
            if (exp < 100000) exp = exp * 10 + (t[i] - '0');
    }
    while (!d.digits.empty() && d.digits.back() == '0')
        d.digits.pop_back();
    d.point = d.digits.empty() ? 0 : point + (exp_negative ? -exp : exp);
    return d;
}

// Digits of the smallest value whose nearest double is infinite, (2^1024 - 2^970) / 10^309.
constexpr const char* overflow_digits = "17976931348623158079372897140530341507993413271003782693617377898";

bool overflows_double(const Decimal& d) {
    if (d.digits.empty() || d.point < 309) return false;
    if (d.point > 309) return true;
    return d.digits.compare(0, std::string::npos, overflow_digits) >= 0;
}

// The text nlohmann::json wrote for the double nearest to `d`: the shortest digits that
// read back as that double (for up to 15 significant digits those are the digits given;
// longer ones are rounded to 17), a point inside or ".0" after digits up to 10^15, "0.000ddd"
// down to 10^-4, else exponent form ("1e-05", "1.5e+300").
std::string double_text(Decimal d) {
    std::string out = d.negative ? "-" : "";
    if (d.point < -323) d.digits.clear();  // below half the smallest subnormal: reads as zero
    if (d.digits.size() > 17) {
        bool up = d.digits[17] >= '5';
        d.digits.resize(17);
        for (std::size_t i = 17; up && i-- > 0;) {
            if (d.digits[i] == '9') {
                d.digits[i] = '0';
            } else {
                ++d.digits[i];
                up = false;
            }
        }
        if (up) {
            d.digits.insert(d.digits.begin(), '1');
            d.digits.pop_back();
            ++d.point;
        }
        while (!d.digits.empty() && d.digits.back() == '0')
            d.digits.pop_back();
    }
    if (d.digits.empty()) return out + "0.0";
    const long k = static_cast<long>(d.digits.size()), n = d.point;
    if (k <= n && n <= 15) {
        out += d.digits;
        out.append(static_cast<std::size_t>(n - k), '0');
        out += ".0";
    } else if (0 < n && n <= 15) {
        out.append(d.digits, 0, static_cast<std::size_t>(n));
        out += '.';
        out.append(d.digits, static_cast<std::size_t>(n), std::string::npos);
    } else if (-4 < n && n <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-n), '0');
        out += d.digits;
    } else {
        out += d.digits[0];
        if (k > 1) {
            out += '.';
            out.append(d.digits, 1, std::string::npos);
        }
        long e = n - 1;
        out += e < 0 ? "e-" : "e+";
        if (e < 0) e = -e;
        std::string ed = std::to_string(e);
        if (ed.size() < 2) out += '0';
        out += ed;
    }
    return out;
}

}  // namespace

Json Json::hundredths(std::uint64_t hundredths) {
    std::string t = std::to_string(hundredths);
    t.insert(t.size() >= 2 ? t.size() - 2 : 0, t.size() >= 2 ? "." : t.size() == 1 ? "0.0" : "0.");
    return fraction(double_text(read_decimal(t)));
}

FractionValue fraction_value(const Json& fraction) {
    Decimal d = read_decimal(fraction.str());
    FractionValue f;
    f.negative = d.negative && !d.digits.empty();
    const long k = static_cast<long>(d.digits.size());
    f.whole = d.digits.empty() || d.point >= k;
    if (!f.whole) return f;
    if (d.point > 20) {
        f.too_large = true;
        return f;
    }
    for (long i = 0; i < d.point; ++i) {
        unsigned digit = i < k ? static_cast<unsigned>(d.digits[static_cast<std::size_t>(i)] - '0') : 0;
        if (__builtin_mul_overflow(f.value, 10u, &f.value) ||
            __builtin_add_overflow(f.value, digit, &f.value)) {
            f.too_large = true;
            return f;
        }
    }
    return f;
}

// ---------------------------------------------------------------------------------------
// Writing

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

// The number of bytes a UTF-8 sequence starting with `b` has and the range its second
// byte must be in (later bytes are 0x80..0xBF); 0 for a byte that cannot start one.
int utf8_lead(unsigned char b, unsigned char& lo, unsigned char& hi) {
    lo = 0x80;
    hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) return 2;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
    if (b >= 0xE0 && b <= 0xEF) return 3;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
    if (b >= 0xF0 && b <= 0xF4) return 4;
    return 0;
}

void write_string(std::string& out, const std::string& s) {
    out += '"';
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n;) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            switch (c) {
                case '"':
                    out += "\\\"";
                    break;
                case '\\':
                    out += "\\\\";
                    break;
                case '\b':
                    out += "\\b";
                    break;
                case '\f':
                    out += "\\f";
                    break;
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                default:
                    if (c < 0x20) {
                        out += "\\u00";
                        out += hex_digits[c >> 4];
                        out += hex_digits[c & 15];
                    } else {
                        out += static_cast<char>(c);
                    }
            }
            continue;
        }
        // A multi-byte sequence: copied when well-formed, else one U+FFFD for the bytes
        // read so far, and a byte that broke a sequence is read again as a new start.
        unsigned char lo, hi;
        int len = utf8_lead(c, lo, hi);
        std::size_t j = i + 1;
        bool ok = len > 0;
        for (int k = 1; ok && k < len; ++k, ++j) {
            if (j >= n) {
                ok = false;
                break;
            }
            auto b = static_cast<unsigned char>(s[j]);
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) ok = false;
            if (!ok) break;
        }
        if (ok) {
            out.append(s, i, j - i);
        } else {
            out += "\xEF\xBF\xBD";
            if (len == 0) j = i + 1;  // a byte that starts nothing is dropped
        }
        i = j;
    }
    out += '"';
}

void newline(std::string& out, int indent, int level) {
    out += '\n';
    out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(level), ' ');
}

}  // namespace

void Json::write(std::string& out, int indent, int level) const {
    switch (kind_) {
        case Kind::null:
            out += "null";
            break;
        case Kind::boolean:
            out += v_.u ? "true" : "false";
            break;
        case Kind::unsigned_int:
            out += std::to_string(v_.u);
            break;
        case Kind::signed_int:
            out += std::to_string(static_cast<std::int64_t>(v_.u));
            break;
        case Kind::fraction:
            out += *v_.s;
            break;
        case Kind::string:
            write_string(out, *v_.s);
            break;
        case Kind::array: {
            const auto& a = *v_.a;
            out += '[';
            for (std::size_t i = 0; i < a.size(); ++i) {
                if (i) out += ',';
                if (indent >= 0) newline(out, indent, level + 1);
                a[i].write(out, indent, level + 1);
            }
            if (indent >= 0 && !a.empty()) newline(out, indent, level);
            out += ']';
            break;
        }
        case Kind::object: {
            const auto& o = *v_.o;
            out += '{';
            for (std::size_t i = 0; i < o.size(); ++i) {
                if (i) out += ',';
                if (indent >= 0) newline(out, indent, level + 1);
                write_string(out, o[i].key);
                out += indent >= 0 ? ": " : ":";
                o[i].value.write(out, indent, level + 1);
            }
            if (indent >= 0 && !o.empty()) newline(out, indent, level);
            out += '}';
            break;
        }
    }
}

std::string Json::dump(int indent) const {
    std::string out;
    write(out, indent, 0);
    return out;
}

// ---------------------------------------------------------------------------------------
// Parsing
//
// A lexer and an LL(1) parser over its tokens. An error is placed where nlohmann::json (the
// parser this one replaced) placed it, so that messages keep their line and column: at the
// last character the lexer read for the offending token (one past the end of the input for
// an early end). A NUL byte outside a string ends the input, a UTF-8 byte order mark at the
// start is skipped, and bare NaN, Infinity and -Infinity (after a delimiter, at the start,
// or after '[' or ':', and before a delimiter or the end) read as the marker strings.

namespace {

enum class Token : unsigned char {
    begin_array,
    begin_object,
    end_array,
    end_object,
    colon,
    comma,
    literal_true,
    literal_false,
    literal_null,
    string,
    number,
    end_of_input,
    error
};

bool is_delim(int c) {
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void append_utf8(std::string& s, std::uint32_t cp) {
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else if (cp < 0x800) {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        s += static_cast<char>(0xE0 | (cp >> 12));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        s += static_cast<char>(0xF0 | (cp >> 18));
        s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string show_char(int c) {
    if (c >= 0x21 && c < 0x7F) return std::string("character '") + static_cast<char>(c) + "'";
    std::string s = "byte 0x";
    s += hex_digits[(c >> 4) & 15];
    s += hex_digits[c & 15];
    return s;
}

class Parser {
public:
    explicit Parser(std::string_view text) : t_(text) {}

    Result<Json> run() {
        Json root;
        if (skip_bom()) {
            scan();
            if (value(root, 0, std::string()) && scan() != Token::end_of_input)
                unexpected("the end of the input");
        }
        if (failed_) return error_;
        return root;
    }

private:
    std::string_view t_;
    std::size_t pos_ = 0;  // characters read, counting a read past the end as one
    Token tok_ = Token::error;
    std::size_t start_ = 0;  // where the current token starts
    std::string text_;       // the current string token's value
    std::string message_;    // the lexer's complaint for an error token
    bool failed_ = false;
    Error error_;

    int get() { return pos_ < t_.size() ? static_cast<unsigned char>(t_[pos_++]) : (++pos_, -1); }
    void unget() { --pos_; }

    // The position of the last character read, as line and column.
    void fail_here(const std::string& message) {
        if (failed_) return;
        failed_ = true;
        error_ = make_error(code::malformed_json, "");
        error_.line = 1;
        std::size_t end = std::min(pos_, t_.size());
        for (std::size_t i = 0; i < end; ++i) {
            if (t_[i] == '\n') {
                ++error_.line;
                error_.column = 0;
            } else {
                ++error_.column;
            }
        }
        error_.column += static_cast<int>(pos_ - end);
        if (error_.column == 0) error_.column = 1;
        error_.message = "malformed JSON at line " + std::to_string(error_.line) + ", column " +
                         std::to_string(error_.column) + ": " + message;
    }
    bool fail(Error e) {
        if (!failed_) error_ = std::move(e);
        failed_ = true;
        return false;
    }

    bool skip_bom() {
        if (get() == 0xEF) {
            if (get() == 0xBB && get() == 0xBF) return true;
            fail_here("invalid byte order mark (must be EF BB BF)");
            return false;
        }
        unget();
        return true;
    }

    Token lex_error(std::string m) {
        message_ = std::move(m);
        return Token::error;
    }

    Token scan() {
        int c;
        do {
            c = get();
        } while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
        start_ = pos_ - 1;
        tok_ = lex(c);
        return tok_;
    }

    bool marker_at(const char* word, const char* marker) {
        std::size_t n = std::strlen(word), i = start_;
        if (t_.substr(i, n) != word) return false;
        if (i + n < t_.size() && !is_delim(static_cast<unsigned char>(t_[i + n]))) return false;
        if (i > 0) {
            int p = static_cast<unsigned char>(t_[i - 1]);
            if (!is_delim(p) && p != '[' && p != ':') return false;
        }
        pos_ = i + n;
        text_ = marker;
        return true;
    }

    Token lex(int c) {
        switch (c) {
            case '[':
                return Token::begin_array;
            case ']':
                return Token::end_array;
            case '{':
                return Token::begin_object;
            case '}':
                return Token::end_object;
            case ':':
                return Token::colon;
            case ',':
                return Token::comma;
            case 't':
                return literal("true", Token::literal_true);
            case 'f':
                return literal("false", Token::literal_false);
            case 'n':
                return literal("null", Token::literal_null);
            case '"':
                return lex_string();
            case 0:
            case -1:
                return Token::end_of_input;
            case 'N':
                if (marker_at("NaN", nan_marker)) return Token::string;
                break;
            case 'I':
                if (marker_at("Infinity", inf_marker)) return Token::string;
                break;
            case '-':
                if (marker_at("-Infinity", neg_inf_marker)) return Token::string;
                return lex_number(c);
            default:
                if (c >= '0' && c <= '9') return lex_number(c);
                break;
        }
        return lex_error("unexpected " + show_char(c));
    }

    Token literal(const char* word, Token t) {
        for (const char* p = word + 1; *p; ++p)
            if (get() != static_cast<unsigned char>(*p))
                return lex_error(std::string("invalid literal (expected ") + word + ")");
        return t;
    }

    static bool digit(int c) { return c >= '0' && c <= '9'; }

    Token lex_number(int c) {
        if (c == '-') {
            c = get();
            if (!digit(c)) return lex_error("invalid number: expected a digit after '-'");
        }
        if (c != '0') {
            do
                c = get();
            while (digit(c));
        } else {
            c = get();
        }
        if (c == '.') {
            if (!digit(get())) return lex_error("invalid number: expected a digit after '.'");
            do
                c = get();
            while (digit(c));
        }
        if (c == 'e' || c == 'E') {
            c = get();
            if (c == '+' || c == '-') c = get();
            if (!digit(c)) return lex_error("invalid number: expected a digit in the exponent");
            do
                c = get();
            while (digit(c));
        }
        unget();
        return Token::number;
    }

    // Four hex digits after \u; -1 (with the bad character read) when they are not.
    long hex4() {
        long v = 0;
        for (int i = 0; i < 4; ++i) {
            int c = get();
            int d = digit(c)                 ? c - '0'
                    : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                    : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                             : -1;
            if (d < 0) return -1;
            v = v * 16 + d;
        }
        return v;
    }

    Token lex_string() {
        text_.clear();
        for (;;) {
            int c = get();
            if (c == '"') return Token::string;
            if (c < 0) return lex_error("unterminated string");
            if (c < 0x20) {
                std::string m = "control character U+00";
                m += hex_digits[c >> 4];
                m += hex_digits[c & 15];
                return lex_error(m + " in a string (write it as \\u00" + m.substr(m.size() - 2) + ")");
            }
            if (c == '\\') {
                c = get();
                const char* plain = "\"\"\\\\//b\bf\fn\nr\rt\t";
                const char* p = c > 0 ? std::strchr(plain, c) : nullptr;
                if (p && (p - plain) % 2 == 0) {
                    text_ += p[1];
                    continue;
                }
                if (c != 'u') return lex_error("invalid escape after a backslash in a string");
                long cp = hex4();
                if (cp < 0) return lex_error("\\u must be followed by 4 hex digits");
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return lex_error("a low surrogate \\uDC00..\\uDFFF must follow a high one");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    long low = -2;
                    if (get() == '\\' && get() == 'u') low = hex4();
                    if (low == -1) return lex_error("\\u must be followed by 4 hex digits");
                    if (low < 0xDC00 || low > 0xDFFF)
                        return lex_error("a high surrogate \\uD800..\\uDBFF must be followed by a low one");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                append_utf8(text_, static_cast<std::uint32_t>(cp));
                continue;
            }
            if (c < 0x80) {
                text_ += static_cast<char>(c);
                continue;
            }
            unsigned char lo, hi;
            int len = utf8_lead(static_cast<unsigned char>(c), lo, hi);
            if (len == 0) return lex_error("invalid UTF-8 in a string");
            text_ += static_cast<char>(c);
            for (int k = 1; k < len; ++k) {
                int b = get();
                if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF))
                    return lex_error("invalid UTF-8 in a string");
                text_ += static_cast<char>(b);
            }
        }
    }

    std::string describe_token() const {
        switch (tok_) {
            case Token::begin_array:
                return "'['";
            case Token::begin_object:
                return "'{'";
            case Token::end_array:
                return "']'";
            case Token::end_object:
                return "'}'";
            case Token::colon:
                return "':'";
            case Token::comma:
                return "','";
            case Token::literal_true:
                return "true";
            case Token::literal_false:
                return "false";
            case Token::literal_null:
                return "null";
            case Token::string:
                return "a string";
            case Token::number:
                return "a number";
            default:
                return "the end of the input";
        }
    }

    // A syntax error at the current token.
    bool unexpected(const char* expected) {
        if (tok_ == Token::error)
            fail_here(message_);
        else
            fail_here(std::string("expected ") + expected + ", got " + describe_token());
        return false;
    }

    bool number(Json& out) {
        std::string_view s = t_.substr(start_, pos_ - start_);
        bool negative = s[0] == '-';
        if (s.find_first_of(".eE") == std::string_view::npos) {
            std::uint64_t v = 0;
            bool overflow = false;
            for (char ch : s.substr(negative ? 1 : 0))
                overflow |= __builtin_mul_overflow(v, 10u, &v) ||
                            __builtin_add_overflow(v, static_cast<unsigned>(ch - '0'), &v);
            if (!overflow && !negative) {
                out = Json(static_cast<unsigned long long>(v));
                return true;
            }
            if (!overflow && v <= (std::uint64_t{1} << 63)) {
                out = Json(static_cast<long long>(0 - v));
                return true;
            }
        }
        Decimal d = read_decimal(s);
        if (overflows_double(d)) {
            fail_here("number " + std::string(s) + " is out of range");
            return false;
        }
        out = Json::fraction(double_text(std::move(d)));
        return true;
    }

    // Reads the value that starts at the current token into `out`; `depth` containers are
    // open around it, `path` is the dotted key path of the innermost object.
    bool value(Json& out, int depth, const std::string& path) {
        switch (tok_) {
            case Token::literal_true:
                out = Json(true);
                return true;
            case Token::literal_false:
                out = Json(false);
                return true;
            case Token::literal_null:
                return true;
            case Token::string:
                out = Json(std::move(text_));
                return true;
            case Token::number:
                return number(out);
            case Token::begin_array:
            case Token::begin_object:
                if (depth >= max_json_depth)
                    return fail(make_error(
                        code::malformed_json,
                        "malformed JSON: nesting deeper than " + std::to_string(max_json_depth) + " levels"));
                return tok_ == Token::begin_array ? array(out, depth + 1, path)
                                                  : object(out, depth + 1, path);
            default:
                return unexpected("a value");
        }
    }

    bool array(Json& out, int depth, const std::string& path) {
        out = Json::array();
        if (scan() == Token::end_array) return true;
        for (;;) {
            Json item;
            if (!value(item, depth, path)) return false;
            out.push_back(std::move(item));
            if (scan() == Token::end_array) return true;
            if (tok_ != Token::comma) return unexpected("',' or ']'");
            scan();
        }
    }

    static std::string child_path(const std::string& path, const std::string& key) {
        if (path.empty()) return key;
        std::string p = path;
        p += '.';
        p += key;
        return p;
    }

    bool duplicate(const std::string& key, const std::string& path) {
        std::string m = "duplicate key \"";
        m += key;
        m += "\" in ";
        m += path.empty() ? std::string("the top-level object") : path;
        return fail(make_error(code::malformed_json, m, child_path(path, key)));
    }

    bool object(Json& out, int depth, const std::string& path) {
        out = Json::object();
        if (scan() == Token::end_object) return true;
        for (;;) {
            if (tok_ != Token::string) return unexpected("a string key");
            std::string key = std::move(text_);
            if (out.contains(key)) return duplicate(key, path);
            if (scan() != Token::colon) return unexpected("':' after the key");
            scan();
            Json& slot = out[key];
            if (tok_ == Token::begin_array || tok_ == Token::begin_object) {
                if (!value(slot, depth, child_path(path, key))) return false;
            } else if (!value(slot, depth, path)) {
                return false;
            }
            if (scan() == Token::end_object) return true;
            if (tok_ != Token::comma) return unexpected("',' or '}'");
            scan();
        }
    }
};

}  // namespace

Result<Json> parse_json_text(std::string_view text) {
    return Parser(text).run();
}

bool is_number_marker(const Json& value) {
    if (!value.is_string()) return false;
    const auto& s = value.str();
    return s == nan_marker || s == inf_marker || s == neg_inf_marker;
}

std::string describe_value(const Json& value) {
    if (value.is_string()) {
        const auto& s = value.str();
        if (s == nan_marker) return "NaN";
        if (s == inf_marker) return "Infinity";
        if (s == neg_inf_marker) return "-Infinity";
    }
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

}  // namespace kvcalc
