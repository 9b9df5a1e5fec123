// A GGUF file's header and metadata, read incrementally into the JSON document the core takes
// as a config text (the GGUF mapping in the config reader turns it into a model):
//
//   {"gguf": {"version": 3, "byte_order": "little", "tensor_count": 291,
//             "metadata_bytes": 7812345,
//             "metadata": {"general.architecture": "llama", "llama.block_count": 32,
//                          "lfm2.attention.head_count_kv": [0, 0, 8, ...],
//                          "tokenizer.ggml.tokens": {"gguf_array": "string", "count": 128256}}}}
//
// Integers of every width are JSON integers (uint64 and int64 exact); floats are numbers, NaN
// and infinities the core's marker strings (json.hpp nan_marker, as a config's NaN reads);
// bools are bools; strings are strings (invalid UTF-8 is written as U+FFFD by to_text); arrays
// of at most gguf_max_kept_elements are JSON arrays and longer ones {"gguf_array": TYPE,
// "count": N}, never held. metadata_bytes is the offset where the key-value section ends (where
// the tensor infos start); the tensor infos are not read.
//
// The caller feeds consecutive chunks of the file (a CLI's reads, a browser's File.slice, HTTP
// Range responses) and asks next_offset() where to read next: past a long array of
// fixed-width values (token_type, scores) it is the array's last byte, so the rest is never
// read (that one byte shows that the file goes that far, its size known or not). Only the document's values
// and one partial item (at most a kept string) are held, so memory does not grow with the file or its
// tokenizer arrays.
//
// Layout and rules: the GGUF spec (ggml docs/gguf.md) and llama.cpp's reader
// (ggml/src/gguf.cpp gguf_init_from_file_impl); big-endian files are read as huggingface.js
// reads them (gguf.ts: `version & 65535 == 0` means the other byte order). See
// ../shared/LLAMACPP.md section 3.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/json.hpp"
#include "result.hpp"

namespace kvcalc {

// Bounds on what an untrusted file can make the reader do.
// The key-value section may end at most this far into the file. The largest known are about
// 13 MB (gpt-oss: 201,088 tokens and 446,189 merges, LLAMACPP.md 3.3); huggingface.js gives
// up at 50,000,000 B (HTTP_TOTAL_MAX_SIZE). 64 MiB reads every file huggingface.js reads, and
// bounds the work a corrupt count can cause (the bytes are skipped, not held).
inline constexpr std::uint64_t gguf_max_metadata_bytes = std::uint64_t{64} << 20;
// Arrays up to this many elements are kept as JSON arrays (per-layer arrays, small
// vocabularies); longer ones are summarised by type and count.
inline constexpr std::uint64_t gguf_max_kept_elements = 4096;
// The GGUF spec's bound on a key: "at most 2^16-1 (65535) bytes long".
inline constexpr std::uint64_t gguf_max_key_bytes = 65535;
// A string value (a chat template, a token) longer than the text the core reads as a config
// (max_json_bytes, 1 MiB) is refused; so is a document whose kept values would make a longer
// text: the document must stay readable as a config.
inline constexpr std::uint64_t gguf_max_string_bytes = max_json_bytes;

// True when `start` (a file's first bytes) begins with the GGUF magic "GGUF".
bool is_gguf(std::string_view start);

// Where the reader is, for a progress display.
struct GgufProgress {
    std::uint64_t offset = 0;                  // bytes of the file read through
    std::uint64_t kv_index = 0, kv_count = 0;  // the key-value pair being read (0-based), of how many
    std::string_view key;                      // its key, "" before one is read
    std::uint64_t index = 0, count = 0;        // within an array value: its element reached, of count
};

class GgufReader {
public:
    enum class State : std::uint8_t { reading, done, failed };

    // `file_size`, when known (a file's size, a Blob's, a Content-Range total), lets a count
    // or length that runs past the end be refused at once instead of at the end of input.
    explicit GgufReader(std::optional<std::uint64_t> file_size = std::nullopt);

    // Reads `bytes`, the file's bytes from `offset` on, which must be next_offset(). Empty
    // `bytes` means the file ends at `offset`. Returns the state after them: reading (feed
    // from next_offset() on), done, or failed (error()).
    State feed(std::uint64_t offset, std::string_view bytes);

    State state() const { return state_; }
    // The file offset of the next byte the reader needs.
    std::uint64_t next_offset() const { return pos_; }
    GgufProgress progress() const;
    // Why the read failed: code malformed_gguf, the message naming the offset and the key,
    // the field the key ("gguf" outside one).
    const Error& error() const { return error_; }

    // The document as JSON text, once done (see the top of this file).
    std::string document() const;

private:
    enum class Step : std::uint8_t {
        header,
        counts,
        key_length,
        key,
        type,
        array_header,
        element,
        string_length,
        string_body
    };

    std::optional<std::uint64_t> file_size_;
    std::uint64_t limit_;  // the offset no item may run past: the file's end or the metadata cap
    State state_ = State::reading;
    Step step_ = Step::header;
    bool big_endian_ = false;
    std::uint32_t version_ = 0;
    std::uint64_t tensor_count_ = 0, kv_count_ = 0, kv_index_ = 0;

    // The bytes being read: the chunk fed (valid during feed()), starting at chunk_offset_.
    std::string_view chunk_;
    std::uint64_t chunk_offset_ = 0;
    std::uint64_t pos_ = 0;     // the file offset of the next byte to read
    std::string held_;          // the first bytes of an item that runs past the chunk
    std::string taken_;         // an item gathered from several chunks, while it is read
    bool skipped_end_ = false;  // a skip past the chunk: its last byte is still to read

    // The key-value pair being read.
    std::string key_;
    std::uint32_t type_ = 0;  // the value's type; for an array, its elements'
    bool array_ = false, keep_ = false;
    std::uint64_t count_ = 0, index_ = 0, string_length_ = 0;
    json value_;

    json metadata_ = json::object();
    std::uint64_t kept_text_ = 0;  // a bound on the metadata's JSON text so far
    Error error_;

    bool read_header(const unsigned char* p);
    bool read_counts(const unsigned char* p);
    bool start_value();
    bool keep_text(std::uint64_t text_bound);
    bool store(json v, std::uint64_t text_bound);
    void end_pair();
    const unsigned char* take(std::size_t n);
    bool reaches(std::uint64_t n, const char* what);
    bool skip(std::uint64_t n, const char* what);
    std::uint64_t load(const unsigned char* p, unsigned width) const;
    std::string where() const;
    bool fail(const std::string& message);
};

// A whole file (or its first bytes) held in memory, read in one chunk: the document, or the
// reader's error. For tests and the fuzz target.
Result<std::string> read_gguf_document(std::string_view bytes);

}  // namespace kvcalc
