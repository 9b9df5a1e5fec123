#include "json_text.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace kvcalc {
namespace {

struct Replacement {
    int line;    // 1-based line of the token
    int column;  // 1-based column in the rewritten text where the marker starts
    int added;   // characters the marker adds over the original token
};

bool is_delim(char c) {
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Rewrites bare NaN / Infinity / -Infinity (outside strings) as marker strings.
std::string rewrite_python_numbers(std::string_view in, std::vector<Replacement>& reps) {
    std::string out;
    out.reserve(in.size());
    bool in_string = false;
    int line = 1;
    int col = 1;  // column of the next char in `out`
    for (std::size_t i = 0; i < in.size();) {
        char c = in[i];
        if (in_string) {
            out += c;
            ++col;
            if (c == '\\' && i + 1 < in.size()) {
                out += in[i + 1];
                ++col;
                i += 2;
                continue;
            }
            if (c == '"') in_string = false;
            if (c == '\n') {
                ++line;
                col = 1;
            }
            ++i;
            continue;
        }
        if (c == '"') in_string = true;
        const char* token = nullptr;
        const char* marker = nullptr;
        bool after_delim = out.empty() || is_delim(out.back()) || out.back() == '[' || out.back() == ':' ||
                           out.back() == ',';
        if (after_delim) {
            for (auto [t, m] : {std::pair{"NaN", nan_marker}, std::pair{"Infinity", inf_marker},
                                std::pair{"-Infinity", neg_inf_marker}}) {
                std::size_t n = std::strlen(t);
                if (in.substr(i, n) == t && (i + n == in.size() || is_delim(in[i + n]))) {
                    token = t;
                    marker = m;
                    break;
                }
            }
        }
        if (token) {
            std::string quoted = json(std::string(marker)).dump();
            reps.push_back({line, col, static_cast<int>(quoted.size() - std::strlen(token))});
            out += quoted;
            col += static_cast<int>(quoted.size());
            i += std::strlen(token);
            continue;
        }
        out += c;
        ++col;
        if (c == '\n') {
            ++line;
            col = 1;
        }
        ++i;
    }
    return out;
}

// Builds the DOM from SAX events so that errors carry their position, duplicate keys
// are caught and nesting is bounded, all without a throw.
class DomBuilder {
public:
    json root;
    Error error;
    bool failed = false;

    bool null() { return put(json(nullptr)); }
    bool boolean(bool v) { return put(json(v)); }
    bool number_integer(json::number_integer_t v) { return put(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
    bool number_float(json::number_float_t v, const json::string_t&) { return put(json(v)); }
    bool string(json::string_t& v) { return put(json(std::move(v))); }
    bool binary(json::binary_t&) { return put(json(nullptr)); }
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(json::string_t& k) {
        json* top = stack_.back();
        if (top->contains(k)) {
            std::string where = path_.empty() ? std::string("the top-level object") : path_;
            fail(make_error(code::malformed_json, "duplicate key \"" + k + "\" in " + where,
                            path_.empty() ? k : path_ + "." + k));
            return false;
        }
        key_ = std::move(k);
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
        // what(): "[json.exception.parse_error.101] parse error at line L, column C: detail",
        // or "[json.exception.out_of_range.406] detail"; the position is computed here for both.
        std::string what = ex.what();
        std::string detail = what;
        std::size_t colon = what.find("column ");
        colon = colon == std::string::npos ? colon : what.find(": ", colon);
        if (colon != std::string::npos) {
            detail = what.substr(colon + 2);
        } else if (std::size_t bracket = what.find("] "); bracket != std::string::npos) {
            detail = what.substr(bracket + 2);
        }
        Error e = make_error(code::malformed_json, detail);
        e.line = 1;
        e.column = 0;
        std::size_t end = position < text_.size() ? position : text_.size();
        for (std::size_t i = 0; i < end; ++i) {
            if (text_[i] == '\n') {
                ++e.line;
                e.column = 0;
            } else {
                ++e.column;
            }
        }
        if (position > end) e.column += static_cast<int>(position - end);  // past the end of the input
        if (e.column == 0) e.column = 1;
        fail(std::move(e));
        return false;
    }

    explicit DomBuilder(const std::string& text) : text_(text) {}

private:
    const std::string& text_;
    std::vector<json*> stack_;
    std::vector<std::string> keys_;
    std::string key_;
    std::string path_;

    void fail(Error e) {
        if (!failed) error = std::move(e);
        failed = true;
    }
    json* place(json v) {
        if (stack_.empty()) {
            root = std::move(v);
            return &root;
        }
        json* top = stack_.back();
        if (top->is_array()) {
            top->push_back(std::move(v));
            return &top->back();
        }
        json& slot = (*top)[key_];
        slot = std::move(v);
        return &slot;
    }
    bool put(json v) {
        place(std::move(v));
        return true;
    }
    bool open(json v) {
        if (static_cast<int>(stack_.size()) >= max_json_depth) {
            fail(make_error(code::malformed_json,
                            "nesting deeper than " + std::to_string(max_json_depth) + " levels"));
            return false;
        }
        bool in_object = !stack_.empty() && stack_.back()->is_object();
        keys_.push_back(path_);
        if (in_object) path_ = path_.empty() ? key_ : path_ + "." + key_;
        stack_.push_back(place(std::move(v)));
        return true;
    }
    bool close() {
        stack_.pop_back();
        path_ = keys_.back();
        keys_.pop_back();
        return true;
    }
};

}  // namespace

Result<json> parse_json_text(std::string_view text) {
    std::vector<Replacement> reps;
    std::string rewritten = rewrite_python_numbers(text, reps);
    DomBuilder builder(rewritten);
    json::sax_parse(rewritten, &builder, json::input_format_t::json, true, false);
    if (builder.failed) {
        Error e = builder.error;
        // Report the column in the caller's text, not in the rewritten one.
        int shift = 0;
        for (const auto& r : reps)
            if (r.line == e.line && r.column < e.column) shift += r.added;
        e.column -= shift;
        if (e.line > 0)
            e.message = "malformed JSON at line " + std::to_string(e.line) + ", column " +
                        std::to_string(e.column) + ": " + e.message;
        else if (e.message.rfind("duplicate key", 0) != 0)
            e.message = "malformed JSON: " + e.message;
        return e;
    }
    return std::move(builder.root);
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
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

}  // namespace kvcalc
