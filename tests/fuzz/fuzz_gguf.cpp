// libFuzzer target over the GGUF reader (core/config/gguf.hpp) and the core's reading of the
// document it writes (scripts/fuzz.sh runs it beside fuzz_config and fuzz_log, with ASan and
// UBSan). Besides crashes, it checks what any input must keep: a file read whole and the same
// file fed in small chunks without its size give the same document or both fail; a document
// is JSON the core reads as a config text, within the config bound, ending no further than
// the file; a failure is a malformed_gguf error with a message.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api.hpp"
#include "config/gguf.hpp"
#include "config/json.hpp"

namespace {

void require(bool ok) {
    if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    auto whole = kvcalc::read_gguf_document(bytes);

    // The same bytes in chunks of 1 to 64 bytes (the last byte picks), the size unknown.
    const std::size_t chunk = 1 + (size ? data[size - 1] % 64 : 0);
    kvcalc::GgufReader reader;
    while (reader.state() == kvcalc::GgufReader::State::reading) {
        const std::uint64_t at = reader.next_offset();
        reader.feed(at, at < size ? std::string_view(bytes).substr(at, chunk) : std::string_view{});
        require(reader.progress().offset == reader.next_offset());
    }
    if (!whole) {
        require(whole.error().code == "malformed_gguf" && !whole.error().message.empty());
        require(reader.state() == kvcalc::GgufReader::State::failed);
        return 0;
    }
    require(reader.state() == kvcalc::GgufReader::State::done && reader.document() == *whole);
    require(whole->size() <= kvcalc::max_json_bytes);
    auto doc = kvcalc::parse_json_text(*whole);
    require(doc.ok());
    require((*doc)["gguf"]["metadata_bytes"].get<std::uint64_t>() <= size);
    // The core reads the document as any config text, and answers.
    kvcalc::Session session;
    require(!session.size(*whole, "{\"context\": 4096}").empty());
    return 0;
}
