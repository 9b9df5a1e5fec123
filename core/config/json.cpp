#include "config/json.hpp"

#include <set>
#include <vector>

namespace kvcalc {
namespace {

// Bare NaN / Infinity / -Infinity outside strings, rewritten as the marker strings before
// nlohmann reads the text. A token counts where a value can start and end: after the start,
// a delimiter, '[' or ':', and before the end or a delimiter (white space, ',', ']', '}').
struct Rewrite {
    std::string text;
    struct Edit {
        std::size_t at;     // where the token started, in `text`
        std::size_t grown;  // how much longer the marker string is than the token
    };
    std::vector<Edit> edits;
};

bool is_delimiter(char c) {
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

std::optional<Rewrite> rewrite_number_tokens(std::string_view t) {
    if (t.find("NaN") == std::string_view::npos && t.find("Infinity") == std::string_view::npos)
        return std::nullopt;
    static const std::pair<std::string_view, std::string_view> tokens[] = {
        {"NaN", "\"\\u0001NaN\""},
        {"Infinity", "\"\\u0001Infinity\""},
        {"-Infinity", "\"\\u0001-Infinity\""}};
    Rewrite r;
    r.text.reserve(t.size() + 64);
    bool in_string = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        if (in_string) {
            r.text += c;
            if (c == '\\' && i + 1 < t.size())
                r.text += t[++i];
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (i == 0 || is_delimiter(t[i - 1]) || t[i - 1] == '[' || t[i - 1] == ':') {
            bool replaced = false;
            for (auto [token, marker] : tokens) {
                if (t.substr(i, token.size()) == token &&
                    (i + token.size() == t.size() || is_delimiter(t[i + token.size()]))) {
                    r.edits.push_back({r.text.size(), marker.size() - token.size()});
                    r.text += marker;
                    i += token.size() - 1;
                    replaced = true;
                    break;
                }
            }
            if (replaced) continue;
        }
        r.text += c;
    }
    if (r.edits.empty()) return std::nullopt;
    return r;
}

// nlohmann's DOM builder, with duplicate keys and depth checked, and the parse error kept
// (its position and explanation) instead of thrown.
class Reader {
public:
    using dom = nlohmann::detail::json_sax_dom_parser<json>;
    explicit Reader(json& root) : dom_(root, false) {}

    bool null() { return dom_.null(); }
    bool boolean(bool v) { return dom_.boolean(v); }
    bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
    bool number_float(json::number_float_t v, const std::string& s) { return dom_.number_float(v, s); }
    bool string(std::string& v) { return dom_.string(v); }
    bool binary(json::binary_t& v) { return dom_.binary(v); }
    bool start_object(std::size_t n) { return open(true) && dom_.start_object(n); }
    bool start_array(std::size_t n) { return open(false) && dom_.start_array(n); }
    bool end_object() {
        levels_.pop_back();
        return dom_.end_object();
    }
    bool end_array() {
        levels_.pop_back();
        return dom_.end_array();
    }
    bool key(std::string& k) {
        Level& l = levels_.back();
        if (!l.keys.insert(k).second) {
            std::string path = object_path();
            error_ = make_error(code::malformed_json,
                                path.empty() ? format("duplicate key \"{}\" in the top-level object", k)
                                             : format("duplicate key \"{}\" in {}", k, path),
                                path.empty() ? k : path + "." + k);
            return false;
        }
        l.key = k;
        return dom_.key(k);
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
        position_ = position;
        explanation_ = ex.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
        for (std::string_view cut : {": ", "] "}) {
            std::size_t at = explanation_.find(cut, explanation_.find("] "));
            if (at != std::string::npos) {
                explanation_.erase(0, at + cut.size());
                break;
            }
        }
        return false;
    }

    std::optional<Error>& error() { return error_; }
    std::size_t position() const { return position_; }
    const std::string& explanation() const { return explanation_; }

private:
    struct Level {
        bool object = false;
        std::set<std::string> keys;  // an object's keys so far
        std::string key;             // the key whose value is being read
    };
    dom dom_;
    std::vector<Level> levels_;
    std::optional<Error> error_;  // a duplicate key or runaway nesting
    std::size_t position_ = 0;
    std::string explanation_;

    bool open(bool object) {
        if (levels_.size() >= static_cast<std::size_t>(max_json_depth)) {
            error_ = make_error(code::malformed_json,
                                format("malformed JSON: nesting deeper than {} levels", max_json_depth));
            return false;
        }
        levels_.push_back({object, {}, {}});
        return true;
    }

    // The dotted keys of the objects open around the innermost one (arrays add nothing).
    std::string object_path() const {
        std::string p;
        for (std::size_t i = 0; i + 1 < levels_.size(); ++i) {
            if (!levels_[i].object) continue;
            if (!p.empty()) p += '.';
            p += levels_[i].key;
        }
        return p;
    }
};

}  // namespace

Result<json> parse_json_text(std::string_view text, std::size_t max_bytes) {
    if (text.size() > max_bytes && max_bytes == max_json_bytes)
        return make_error(code::invalid_value,
                          format("the JSON text is {} bytes, more than kvcalc reads (1 MiB, {} bytes: "
                                 "a config.json is kilobytes)",
                                 text.size(), max_json_bytes));
    if (text.size() > max_bytes)
        return make_error(
            code::invalid_value,
            format("the JSON text is {} bytes, more than kvcalc reads ({} bytes)", text.size(), max_bytes));
    const std::optional<Rewrite> rewrite = rewrite_number_tokens(text);
    const std::string_view input = rewrite ? std::string_view(rewrite->text) : text;
    json root;
    Reader reader(root);
    if (json::sax_parse(input.begin(), input.end(), &reader)) return root;
    if (reader.error()) return std::move(*reader.error());

    // nlohmann's position counts the characters read, a read past the end included; the
    // error is at the last one. Back in the text as given: the markers' extra length goes.
    const std::size_t read = reader.position();
    std::size_t pos = read;
    if (rewrite)
        for (const auto& e : rewrite->edits)
            if (e.at < read) pos -= std::min(e.grown, read - e.at);
    Error e = make_error(code::malformed_json, "");
    e.line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < pos && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++e.line;
            line_start = i + 1;
        }
    e.column = std::max<int>(1, static_cast<int>(pos - line_start));
    e.message = format("malformed JSON at line {}, column {}: {}", e.line, e.column, reader.explanation());
    return e;
}

bool is_number_marker(const json& value) {
    if (!value.is_string()) return false;
    const auto& s = value.get_ref<const std::string&>();
    return s == nan_marker || s == inf_marker || s == neg_inf_marker;
}

std::string describe_value(const json& value) {
    if (value.is_string()) {
        const auto& s = value.get_ref<const std::string&>();
        if (s == nan_marker) return "NaN";
        if (s == inf_marker) return "Infinity";
        if (s == neg_inf_marker) return "-Infinity";
    }
    std::string text = to_text(value);
    if (text.size() > 40) text.replace(37, std::string::npos, "...");
    return text;
}

std::string to_text(const json& j, int indent) {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

[[gnu::noinline]] void set_member(json& object, const char* key, json&& value) {
    object[key] = std::move(value);
}

const json* member(const json& object, std::string_view key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

}  // namespace kvcalc
