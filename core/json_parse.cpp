// parse_json_text: a no-throw lexer and parser with the positions nlohmann::json gave.
#include <cstring>
#include <string>

#include "json_detail.hpp"
#include "json_text.hpp"

namespace kvcalc {

using json_detail::Decimal;
using json_detail::double_text;
using json_detail::hex_digits;
using json_detail::overflows_double;
using json_detail::read_decimal;
using json_detail::utf8_lead;

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

// "unexpected character 'x'", "unexpected byte 0xff".
std::string unexpected_char(int c) {
    const char hex[2] = {hex_digits[(c >> 4) & 15], hex_digits[c & 15]};
    const char ch = static_cast<char>(c);
    if (c >= 0x21 && c < 0x7F) return format("unexpected character '{}'", std::string_view(&ch, 1));
    return format("unexpected byte 0x{}", std::string_view(hex, 2));
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
        if (failed_) return std::move(error_);
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
        error_.message =
            format("malformed JSON at line {}, column {}: {}", error_.line, error_.column, message);
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
        return lex_error(unexpected_char(c));
    }

    Token literal(const char* word, Token t) {
        for (const char* p = word + 1; *p; ++p)
            if (get() != static_cast<unsigned char>(*p))
                return lex_error(format("invalid literal (expected {})", word));
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
                const char hex[2] = {hex_digits[c >> 4], hex_digits[c & 15]};
                const std::string_view h(hex, 2);
                return lex_error(format("control character U+00{} in a string (write it as \\u00{})", h, h));
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

    const char* describe_token() const {
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
            fail_here(format("expected {}, got {}", expected, describe_token()));
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
            fail_here(format("number {} is out of range", s));
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
                    return fail(
                        make_error(code::malformed_json,
                                   format("malformed JSON: nesting deeper than {} levels", max_json_depth)));
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
        const char* fmt =
            path.empty() ? "duplicate key \"{}\" in the top-level object" : "duplicate key \"{}\" in {}";
        return fail(make_error(code::malformed_json, format(fmt, key, path), child_path(path, key)));
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
    if (text.size() > max_json_bytes)
        return make_error(code::invalid_value,
                          format("the JSON text is {} bytes, more than kvcalc reads (1 MiB, {} bytes: "
                                 "a config.json is kilobytes)",
                                 text.size(), max_json_bytes));
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
    if (text.size() > 40) text.replace(37, std::string::npos, "...");
    return text;
}

}  // namespace kvcalc
