// The JSON value and its writer. Parsing is in json_parse.cpp, numbers kept as text in
// json_number.cpp.
#include "json_text.hpp"

#include "json_detail.hpp"

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
    std::vector<JsonMember>& o = *v_.o;
    auto it = lower(o, key);
    if (it != o.end() && it->key == key) return it->value;
    // A new key: appended, then swapped down into its sorted place (smaller than
    // vector::insert's code, and objects here are small).
    std::size_t i = static_cast<std::size_t>(it - o.begin());
    o.push_back(JsonMember{std::string(key), Json()});
    for (std::size_t k = o.size() - 1; k > i; --k)
        std::swap(o[k], o[k - 1]);
    return o[i].value;
}

Json& Json::set(const char* key, Json&& v) {
    return set(std::string_view(key), std::move(v));
}
Json& Json::set(std::string_view key, Json&& v) {
    (*this)[key] = std::move(v);
    return *this;
}
Json& Json::set(const char* key, const Json& v) {
    (*this)[std::string_view(key)] = v;
    return *this;
}
Json& Json::set(const char* key, const std::string& v) {
    return set(key, Json(v));
}
Json& Json::set(const char* key, const char* v) {
    return set(key, Json(v));
}
Json& Json::set(const char* key, bool v) {
    return set(key, Json(v));
}
Json& Json::set(const char* key, const std::optional<std::uint64_t>& v) {
    return v ? set(key, Json(static_cast<unsigned long long>(*v))) : set(key, Json());
}
Json& Json::set_integer(const char* key, std::uint64_t v, bool is_signed) {
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
// Writing

namespace json_detail {

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

}  // namespace json_detail

using json_detail::hex_digits;
using json_detail::utf8_lead;

namespace {

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
            format_to(out, "{}", v_.u);
            break;
        case Kind::signed_int:  // two's complement: a negative one is '-' and its magnitude
            if (static_cast<std::int64_t>(v_.u) < 0)
                format_to(out, "-{}", std::uint64_t{0} - v_.u);
            else
                format_to(out, "{}", v_.u);
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

}  // namespace kvcalc
