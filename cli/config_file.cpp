// A CONFIG argument's text: a config.json as it is, or a GGUF file's metadata read in chunks
// until its key-value section ends, as the document the core reads (core/config/gguf.hpp).
// A GGUF file is known by its magic, not its name; a 40 GB model is read for its few
// megabytes of metadata, in memory that does not grow with the file.
#include <istream>
#include <sstream>
#include <string>

#include "args.hpp"
#include "config/gguf.hpp"

namespace kvcalc::cli {

namespace {

// The CLI's chunk: 1 MiB, read from the reader's next offset each time.
constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

std::size_t read_some(std::istream& in, std::string& buf) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    return static_cast<std::size_t>(in.gcount());
}

}  // namespace

Result<std::string> read_config_stream(std::istream& in, const std::string& name,
                                       std::optional<std::uint64_t> size, bool seekable) {
    std::string buf(chunk_bytes, '\0');
    std::size_t n = read_some(in, buf);
    if (in.bad()) return make_error(code::invalid_value, "cannot read " + name, "config");
    if (!is_gguf(std::string_view(buf.data(), n))) {
        // A config.json (or anything else the core will judge): the whole text.
        buf.resize(n);
        std::ostringstream rest;
        if (in) rest << in.rdbuf();
        if (in.bad()) return make_error(code::invalid_value, "cannot read " + name, "config");
        return buf + rest.str();
    }
    GgufReader reader(size);
    std::uint64_t at = 0;  // the offset of buf's first byte
    while (reader.feed(at, std::string_view(buf.data(), n)) == GgufReader::State::reading) {
        const std::uint64_t next = reader.next_offset();
        at += n;
        if (next > at) {
            // A long array of fixed-width values the document does not keep: not read.
            if (seekable) {
                in.clear();
                in.seekg(static_cast<std::streamoff>(next));
            } else {
                for (std::uint64_t left = next - at; left > 0 && in;)
                    left -=
                        in.ignore(static_cast<std::streamsize>(std::min<std::uint64_t>(left, chunk_bytes)))
                            .gcount();
            }
            at = next;
        }
        n = in ? read_some(in, buf) : 0;  // 0 at the end: the reader says where the file ended
        if (in.bad()) return make_error(code::invalid_value, "cannot read " + name, "config");
    }
    if (reader.state() == GgufReader::State::failed) {
        Error e = reader.error();
        e.message = name + ": " + e.message;
        return e;
    }
    return reader.document();
}

}  // namespace kvcalc::cli
