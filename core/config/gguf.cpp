#include "config/gguf.hpp"

#include <cmath>
#include <cstring>

namespace kvcalc {
namespace {

// GGUF value types (ggml gguf.h enum gguf_type), their widths (0: variable) and names.
enum : std::uint32_t {
    t_float32 = 6,
    t_bool = 7,
    t_string = 8,
    t_array = 9,
    t_float64 = 12,
    type_count = 13
};
constexpr unsigned char type_width[type_count] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
constexpr const char* type_name[type_count] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                               "int32",  "float32", "bool",   "string", "array",
                                               "uint64", "int64",   "float64"};

// The least bytes a key-value pair takes: an 8-byte key length, an empty key, a 4-byte type
// and a 1-byte value.
constexpr std::uint64_t min_pair_bytes = 13;

// A bound on the JSON text nlohmann writes for a number (-9223372036854775808 is 20
// characters, -2.2250738585072014e-308 24).
constexpr std::uint64_t number_text = 24;

// A bound on the JSON text of a string: quotes, escapes (\u001f is 6 characters for 1 byte)
// and U+FFFD (3 bytes) for a byte of invalid UTF-8.
std::uint64_t string_text(std::string_view s) {
    std::uint64_t n = 2;
    for (unsigned char c : s)
        n += c < 0x20 ? 6 : c == '"' || c == '\\' ? 2 : c >= 0x80 ? 3 : 1;
    return n;
}

// a x b, or the largest value when that overflows (an item that long runs past any limit).
std::uint64_t times(std::uint64_t a, std::uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

}  // namespace

bool is_gguf(std::string_view start) {
    return start.substr(0, 4) == "GGUF";
}

GgufReader::GgufReader(std::optional<std::uint64_t> file_size)
    : file_size_(file_size),
      limit_(file_size && *file_size < gguf_max_metadata_bytes ? *file_size : gguf_max_metadata_bytes) {}

std::uint64_t GgufReader::load(const unsigned char* p, unsigned width) const {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < width; ++i)
        v |= std::uint64_t{p[big_endian_ ? width - 1 - i : i]} << (8 * i);
    return v;
}

// "in the header", "in key 5 of 24", "in the value of llama.block_count" and, within an
// array, "(element 5,000 of 128,256)".
std::string GgufReader::where() const {
    if (step_ == Step::header || step_ == Step::counts) return "in the header";
    if (step_ == Step::key_length || step_ == Step::key)
        return format("in key-value pair {} of {} (its key)", kv_index_ + 1, kv_count_);
    std::string w = format("in the value of {}", key_);
    if (array_) format_to(w, " (element {} of {})", grouped(index_), grouped(count_));
    return w;
}

bool GgufReader::fail(const std::string& message) {
    error_ = make_error(
        code::malformed_gguf, "GGUF: " + message,
        step_ == Step::header || step_ == Step::counts || step_ == Step::key_length || step_ == Step::key
            ? "gguf"
            : key_);
    state_ = State::failed;
    return false;
}

// Refuses an item of `n` bytes at the reader's position that runs past the end of the file
// or the metadata cap, naming it: every length and count is checked before anything is
// gathered or skipped (a fixed-width item that runs past the end is found at the end).
bool GgufReader::reaches(std::uint64_t n, const char* what) {
    const std::uint64_t start = pos_ - held_.size();
    if (start <= limit_ && n <= limit_ - start) return true;
    if (file_size_ && limit_ == *file_size_)
        return fail(format("{} at offset {} would run past the end of the file ({} bytes), {}", what,
                           grouped(start), grouped(*file_size_), where()));
    return fail(
        format("{} at offset {} would run past {} bytes, {}: kvcalc reads at most 64 MiB of GGUF metadata",
               what, grouped(start), grouped(gguf_max_metadata_bytes), where()));
}

// The n bytes at the reader's position, or nullptr when they run past the chunk (the bytes
// there are held, and the reader asks for the next chunk).
const unsigned char* GgufReader::take(std::size_t n) {
    static const unsigned char nothing = 0;
    if (n == 0) return &nothing;  // an empty key or string is complete wherever the chunk ends
    // A skip may have left the reader past the chunk's end.
    const std::uint64_t end = chunk_offset_ + chunk_.size();
    const std::uint64_t available = pos_ < end ? end - pos_ : 0;
    if (available == 0) return nullptr;
    const char* at = chunk_.data() + (pos_ - chunk_offset_);
    if (held_.empty() && available >= n) {
        pos_ += n;
        return reinterpret_cast<const unsigned char*>(at);
    }
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n - held_.size(), available));
    held_.append(at, k);
    pos_ += k;
    if (held_.size() < n) return nullptr;
    taken_.swap(held_);
    held_.clear();
    return reinterpret_cast<const unsigned char*>(taken_.data());
}

// Moves past n bytes, read or not: past the chunk, next_offset() is where the caller resumes.
bool GgufReader::skip(std::uint64_t n, const char* what) {
    if (!reaches(n, what)) return false;
    // Past the chunk, the skip stops one byte short and reads that byte: a file that ends
    // inside what was skipped (a stream of unknown size) is then found, not taken as read.
    if (n > 0 && pos_ + n > chunk_offset_ + chunk_.size()) {
        pos_ += n - 1;
        skipped_end_ = true;
    } else {
        pos_ += n;
    }
    return true;
}

bool GgufReader::read_header(const unsigned char* p) {
    if (std::memcmp(p, "GGUF", 4) != 0) return fail("not a GGUF file: it does not start with \"GGUF\"");
    // A file of the other byte order reads as version << 16 (3 as 0x00030000): llama.cpp refuses
    // it ("is there a mismatch between the host and model endianness?"), huggingface.js reads the
    // version again the other way, and so does kvcalc.
    std::uint32_t v = static_cast<std::uint32_t>(load(p + 4, 4));
    if ((v & 0xFFFF) == 0 && v != 0) {
        big_endian_ = true;
        v = static_cast<std::uint32_t>(load(p + 4, 4));
    }
    version_ = v;
    // gguf.cpp gguf_init_from_file_impl: version 0 is bad, 1 "is no longer supported", above
    // GGUF_VERSION (3) unknown. Versions 2 and 3 lay out the header and metadata alike.
    if (v == 1)
        return fail(
            "version 1 (GGUFv1) is no longer supported by llama.cpp; convert the model again with a "
            "current llama.cpp");
    if (v == 0 || v > 3) return fail(format("version {} is not one llama.cpp reads (2 or 3)", v));
    return true;
}

bool GgufReader::read_counts(const unsigned char* p) {
    tensor_count_ = load(p, 8);
    kv_count_ = load(p + 8, 8);
    // gguf.cpp reads both counts as int64 and refuses a negative one; a count the rest of the
    // file cannot hold (a pair takes at least 13 bytes) is refused before anything is read.
    if (tensor_count_ > std::uint64_t{INT64_MAX})
        return fail(format("tensor_count {} is negative as llama.cpp reads it (int64)", tensor_count_));
    return reaches(times(kv_count_, min_pair_bytes), "metadata_kv_count's key-value pairs");
}

// Counts `text_bound` more bytes of the metadata's JSON text, which stays under the config
// text bound (with room for the document's other fields), so the core reads the document as
// it reads a config.json.
bool GgufReader::keep_text(std::uint64_t text_bound) {
    kept_text_ += text_bound + 1;
    if (kept_text_ <= max_json_bytes - 256) return true;
    return fail(
        format("the metadata kept so far (every value but arrays over {} elements) is over 1 MiB of text, {}",
               gguf_max_kept_elements, where()));
}

bool GgufReader::store(json v, std::uint64_t text_bound) {
    if (!keep_text(text_bound)) return false;
    if (array_)
        value_.push_back(std::move(v));
    else
        value_ = std::move(v);
    ++index_;
    return true;
}

void GgufReader::end_pair() {
    if (!keep_) {
        value_ = json::object();
        set_member(value_, "gguf_array", type_name[type_]);
        set_member(value_, "count", count_);
    }
    metadata_[key_] = std::move(value_);  // a key may hold any byte, NUL too
    value_ = nullptr;
    ++kv_index_;
    step_ = Step::key_length;
}

// After a value's type (and an array's element type and count): checks them and sets up the
// element loop.
bool GgufReader::start_value() {
    if (type_ >= type_count) return fail(format("type {} is not a GGUF value type, {}", type_, where()));
    // gguf.cpp: an array's element type ARRAY is "invalid GGUF type": no nested arrays.
    if (type_ == t_array)
        return fail(format("an array of arrays, {}: llama.cpp refuses nested arrays", where()));
    const std::uint64_t width = type_width[type_];
    // Each element takes its width, a string at least its 8-byte length.
    if (array_ && !reaches(times(count_, width ? width : 8), "an array's elements")) return false;
    keep_ = !array_ || count_ <= gguf_max_kept_elements;
    value_ = array_ ? json::array() : json();
    index_ = 0;
    // The key, and a long array's summary ({"gguf_array": "float32", "count": N}).
    if (!keep_text(string_text(key_) + (keep_ ? 0 : 48))) return false;
    if (!keep_ && width) {
        // A long array of fixed-width values (token_type, scores): skipped unread.
        index_ = count_;
        return skip(count_ * width, "an array's elements");
    }
    return true;
}

GgufReader::State GgufReader::feed(std::uint64_t offset, std::string_view bytes) {
    if (state_ != State::reading) return state_;
    if (offset != pos_) {
        error_ = make_error(code::invalid_value,
                            format("GGUF: bytes fed from offset {}, but the reader reads from offset {} next",
                                   grouped(offset), grouped(pos_)),
                            "gguf");
        state_ = State::failed;
        return state_;
    }
    if (bytes.empty()) {
        fail(format("the file ends at offset {}, {}", grouped(pos_), where()));
        return state_;
    }
    chunk_ = bytes;
    chunk_offset_ = offset;
    const unsigned char* p = nullptr;
    for (bool going = true; going && state_ == State::reading;) {
        if (skipped_end_) {
            if (!take(1)) break;
            skipped_end_ = false;
        }
        switch (step_) {
            case Step::header:
                if (!(p = take(8))) break;
                if (read_header(p)) step_ = Step::counts;
                continue;
            case Step::counts:
                if (!(p = take(16))) break;
                if (read_counts(p)) step_ = Step::key_length;
                continue;
            case Step::key_length:
                if (kv_index_ == kv_count_) {
                    state_ = State::done;
                    break;
                }
                if (!(p = take(8))) break;
                string_length_ = load(p, 8);
                if (string_length_ > gguf_max_key_bytes)
                    fail(format("a key of {} bytes, {}: the GGUF spec allows at most 65,535",
                                grouped(string_length_), where()));
                else if (reaches(string_length_, "a key"))
                    step_ = Step::key;
                continue;
            case Step::key:
                if (!(p = take(static_cast<std::size_t>(string_length_)))) break;
                key_.assign(reinterpret_cast<const char*>(p), static_cast<std::size_t>(string_length_));
                // gguf.cpp: a duplicate key fails the file.
                if (metadata_.contains(key_))
                    fail(format("the key {} appears twice, {}: llama.cpp refuses the file", key_, where()));
                else
                    step_ = Step::type;
                continue;
            case Step::type:
                if (!(p = take(4))) break;
                type_ = static_cast<std::uint32_t>(load(p, 4));
                array_ = type_ == t_array;
                count_ = 1;
                index_ = 0;
                if (array_) {
                    step_ = Step::array_header;
                } else if (start_value()) {
                    step_ = Step::element;
                }
                continue;
            case Step::array_header:
                if (!(p = take(12))) break;
                type_ = static_cast<std::uint32_t>(load(p, 4));
                count_ = load(p + 4, 8);
                if (start_value()) step_ = Step::element;
                continue;
            case Step::element: {
                if (index_ == count_) {
                    end_pair();
                    continue;
                }
                if (type_ == t_string) {
                    step_ = Step::string_length;
                    continue;
                }
                const unsigned width = type_width[type_];
                if (!(p = take(width))) break;
                const std::uint64_t v = load(p, width);
                // One JSON number kind per GGUF kind: bool, float, signed (sign-extended), unsigned.
                json j;
                if (type_ == t_bool) {
                    j = v != 0;  // gguf.cpp reads a bool as int8 and takes any non-zero byte as true
                } else if (type_ == t_float32 || type_ == t_float64) {
                    double d;
                    if (width == 4) {
                        float f;
                        const auto bits = static_cast<std::uint32_t>(v);
                        std::memcpy(&f, &bits, 4);
                        d = f;
                    } else {
                        std::memcpy(&d, &v, 8);
                    }
                    if (std::isnan(d))
                        j = nan_marker;
                    else if (std::isinf(d))
                        j = d > 0 ? inf_marker : neg_inf_marker;
                    else
                        j = d;
                } else if (type_ & 1) {                            // int8, int16, int32, int64: the odd types
                    const unsigned shift = (64 - 8 * width) & 63;  // width is 1, 2, 4 or 8 here
                    j = static_cast<std::int64_t>(v << shift) >> shift;
                } else {
                    j = v;
                }
                store(std::move(j), number_text);
                continue;
            }
            case Step::string_length:
                if (!(p = take(8))) break;
                string_length_ = load(p, 8);
                if (string_length_ > gguf_max_string_bytes)
                    fail(format("a string of {} bytes, {}: kvcalc reads strings of at most 1 MiB",
                                grouped(string_length_), where()));
                else if (!keep_) {
                    // A string of a long array (a token, a merge): skipped.
                    if (skip(string_length_, "a string")) {
                        ++index_;
                        step_ = Step::element;
                    }
                } else if (reaches(string_length_, "a string")) {
                    step_ = Step::string_body;
                }
                continue;
            case Step::string_body: {
                if (!(p = take(static_cast<std::size_t>(string_length_)))) break;
                std::string s(reinterpret_cast<const char*>(p), static_cast<std::size_t>(string_length_));
                const std::uint64_t bound = string_text(s);
                if (store(std::move(s), bound)) step_ = Step::element;
                continue;
            }
        }
        going = false;
    }
    chunk_ = {};
    if (state_ == State::done) taken_ = std::string();
    return state_;
}

GgufProgress GgufReader::progress() const {
    GgufProgress p;
    p.offset = pos_;
    p.kv_index = kv_index_;
    p.kv_count = kv_count_;
    if (step_ != Step::header && step_ != Step::counts && step_ != Step::key_length && step_ != Step::key) {
        p.key = key_;
        if (array_) {
            p.index = index_;
            p.count = count_;
        }
    }
    return p;
}

std::string GgufReader::document() const {
    json g = json::object();
    set_member(g, "version", std::uint64_t{version_});
    set_member(g, "byte_order", big_endian_ ? "big" : "little");
    set_member(g, "tensor_count", tensor_count_);
    set_member(g, "metadata_bytes", pos_);
    set_member(g, "metadata", json(metadata_));
    json doc = json::object();
    set_member(doc, "gguf", std::move(g));
    return to_text(doc);
}

Result<std::string> read_gguf_document(std::string_view bytes) {
    GgufReader r(bytes.size());
    std::uint64_t at = 0;
    while (r.feed(at, at < bytes.size() ? bytes.substr(static_cast<std::size_t>(at)) : std::string_view{}) ==
           GgufReader::State::reading)
        at = r.next_offset();
    if (r.state() == GgufReader::State::failed) return r.error();
    return r.document();
}

}  // namespace kvcalc
