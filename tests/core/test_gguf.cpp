// The GGUF reader (core/config/gguf.hpp): the document it writes from the test files (written
// by tests/gguf/write-gguf.mjs from tests/fixtures/gguf/*.json, in both byte orders), the same
// document whatever the chunks, the bytes it skips, its progress, and every refusal with its
// exact message.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "config/gguf.hpp"
#include "config/json.hpp"
#include "support.hpp"

using kvcalc::GgufReader;
using kvcalc::json;

namespace {

std::string gguf_file(const std::string& name) {
    return kvtest::read_file(std::string(KVCALC_GGUF_DIR) + "/" + name);
}

json parse(const std::string& text) {
    auto j = kvcalc::parse_json_text(text);
    INFO(j.error().message);
    REQUIRE(j.ok());
    return *j;
}

json document(const std::string& bytes) {
    auto d = kvcalc::read_gguf_document(bytes);
    INFO(d.error().message);
    REQUIRE(d.ok());
    return parse(*d);
}

// Reads `bytes` as a caller does: `chunk` bytes from next_offset() each time (fewer at the end,
// none past it), counting the bytes read.
struct ChunkedRead {
    GgufReader reader;
    std::uint64_t bytes_read = 0;
};
ChunkedRead read_in_chunks(const std::string& bytes, std::size_t chunk, bool size_known = true) {
    ChunkedRead r{GgufReader(size_known ? std::optional<std::uint64_t>(bytes.size()) : std::nullopt)};
    while (r.reader.state() == GgufReader::State::reading) {
        const std::uint64_t at = r.reader.next_offset();
        const std::string_view part =
            at < bytes.size() ? std::string_view(bytes).substr(static_cast<std::size_t>(at), chunk)
                              : std::string_view{};
        r.bytes_read += part.size();
        r.reader.feed(at, part);
    }
    return r;
}

// A GGUF file's bytes, little-endian, for the refusals.
struct Bytes {
    std::string s;
    Bytes& raw(std::string_view b) {
        s += b;
        return *this;
    }
    Bytes& u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i)
            s += static_cast<char>((v >> (8 * i)) & 0xFF);
        return *this;
    }
    Bytes& u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i)
            s += static_cast<char>((v >> (8 * i)) & 0xFF);
        return *this;
    }
    Bytes& str(std::string_view v) {
        u64(v.size());
        return raw(v);
    }
    // magic, version 3, no tensors, `pairs` key-value pairs
    static Bytes header(std::uint64_t pairs) {
        Bytes b;
        b.raw("GGUF").u32(3).u64(0).u64(pairs);
        return b;
    }
};

constexpr std::uint32_t t_uint32 = 4, t_string = 8, t_array = 9;

kvcalc::Error refusal(const std::string& bytes) {
    auto d = kvcalc::read_gguf_document(bytes);
    REQUIRE_FALSE(d.ok());
    return d.error();
}

const char* const fixtures[] = {"llama-3-8b-instruct", "qwen3-32b",       "lfm2-1.2b",       "gpt-oss-120b",
                                "gemma-3n-e2b",        "deepseek-r1-mla", "codellama-7b-v2", "every-type"};

}  // namespace

TEST_CASE("gguf: every value type, as the document writes it", "[gguf]") {
    const std::string bytes = gguf_file("every-type.gguf");
    const json doc = document(bytes);
    const json& g = doc["gguf"];
    CHECK(g["version"] == 3);
    CHECK(g["byte_order"] == "little");
    CHECK(g["tensor_count"] == 0);
    CHECK(g["metadata_bytes"] == bytes.size());  // no tensor infos follow
    const json& m = g["metadata"];
    CHECK(m.size() == 25);
    CHECK(m["general.architecture"] == "test");
    CHECK(m["t.uint8"] == 255);
    CHECK(m["t.int8"] == -128);
    CHECK(m["t.uint16"] == 65535);
    CHECK(m["t.int16"] == -32768);
    CHECK(m["t.uint32"] == 4294967295u);
    CHECK(m["t.int32"] == -2147483648LL);
    CHECK(m["t.uint64"].get<std::uint64_t>() == 18446744073709551615u);  // exact, as a JSON integer
    CHECK(m["t.int64"].get<std::int64_t>() == INT64_MIN);
    CHECK(m["t.float32"].get<double>() == static_cast<double>(0.1f));  // the float32's value, widened
    CHECK(m["t.float64"].get<double>() == -2.5e-300);
    CHECK(m["t.bool"] == true);
    CHECK(m["t.bool_two"] == true);  // gguf.cpp: any non-zero byte is true
    CHECK(m["t.string"] == "\xc3\xa9 \" \\ \n");
    // NaN and infinities as the markers a config's NaN reads as (json.hpp)
    CHECK(m["t.nan"] == kvcalc::nan_marker);
    CHECK(m["t.inf"] == kvcalc::inf_marker);
    CHECK(m["t.neg_inf"] == kvcalc::neg_inf_marker);
    // 41 ff 42 c3: the stray 0xff and the cut-off 0xc3 each become U+FFFD
    CHECK(m["t.invalid_utf8"] ==
          "A\xef\xbf\xbd"
          "B\xef\xbf\xbd");
    CHECK(m["t.empty"] == json::array());
    CHECK(m["t.strings"] == json({"a", "", "b"}));
    CHECK(m["t.int64s"] == json({-1, INT64_MAX}));
    CHECK(m["t.bools"] == json({true, false, true}));
    CHECK(m["t.kept"].size() == 4096);
    CHECK(m["t.kept"][4095] == 7);
    CHECK(m["t.summarised"] == json({{"gguf_array", "uint16"}, {"count", 4097}}));
    CHECK(m["t.summarised_strings"] == json({{"gguf_array", "string"}, {"count", 4097}}));
    // The text itself: integers exact, the float32 0.1 as the double it is.
    const std::string text = *kvcalc::read_gguf_document(bytes);
    CHECK(text.find("\"t.uint64\":18446744073709551615") != std::string::npos);
    CHECK(text.find("\"t.float32\":0.10000000149011612") != std::string::npos);
    CHECK(text.find("\"t.nan\":\"\\u0001NaN\"") != std::string::npos);
}

TEST_CASE("gguf: both byte orders give the same document", "[gguf]") {
    for (const char* name : fixtures) {
        INFO(name);
        const std::string le = gguf_file(std::string(name) + ".gguf"),
                          be = gguf_file(std::string(name) + ".be.gguf");
        REQUIRE(le.size() == be.size());
        json a = document(le), b = document(be);
        CHECK(a["gguf"]["byte_order"] == "little");
        CHECK(b["gguf"]["byte_order"] == "big");
        b["gguf"]["byte_order"] = "little";
        CHECK(a == b);
        CHECK(a["gguf"]["metadata_bytes"] == le.size());
    }
}

TEST_CASE("gguf: the published metadata of real models, as written", "[gguf]") {
    // Llama 3 8B Instruct: 18 pairs, 8.3 MB, nearly all of it the tokenizer arrays, summarised.
    const json llama = document(gguf_file("llama-3-8b-instruct.gguf"))["gguf"];
    CHECK(llama["tensor_count"] == 291);
    CHECK(llama["metadata_bytes"] == 8330772);
    const json& lm = llama["metadata"];
    CHECK(lm.size() == 18);
    CHECK(lm["general.name"] == "Meta-Llama-3-8B-Instruct");
    CHECK(lm["llama.block_count"] == 32);
    CHECK(lm["llama.attention.head_count_kv"] == 8);
    CHECK(lm["llama.rope.freq_base"] == 500000.0);
    CHECK(lm["tokenizer.ggml.tokens"] == json({{"gguf_array", "string"}, {"count", 128256}}));
    CHECK(lm["tokenizer.ggml.scores"] == json({{"gguf_array", "float32"}, {"count", 128256}}));
    CHECK(lm["tokenizer.ggml.token_type"] == json({{"gguf_array", "int32"}, {"count", 128256}}));
    CHECK(lm["tokenizer.ggml.merges"] == json({{"gguf_array", "string"}, {"count", 280147}}));
    // LFM2-1.2B: the per-layer KV heads (gguf-parser-go issue #31).
    const json lfm2 = document(gguf_file("lfm2-1.2b.gguf"))["gguf"]["metadata"];
    CHECK(lfm2["lfm2.attention.head_count_kv"] == json({0, 0, 8, 0, 0, 8, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0}));
    CHECK(lfm2["lfm2.shortconv.l_cache"] == 3);
    // Gemma 3n E2B: the SWA pattern as a bool array, period 5.
    const json gemma = document(gguf_file("gemma-3n-e2b.gguf"))["gguf"]["metadata"];
    const json& pattern = gemma["gemma3n.attention.sliding_window_pattern"];
    REQUIRE(pattern.size() == 30);
    for (std::size_t i = 0; i < 30; ++i)
        CHECK(pattern[i] == (i % 5 != 4));
    CHECK(gemma["gemma3n.attention.shared_kv_layers"] == 10);
    CHECK(gemma["gemma3n.activation_sparsity_scale"][0].get<double>() == static_cast<double>(1.644854f));
    // DeepSeek with MLA: key_length_mla present, one latent head.
    const json ds = document(gguf_file("deepseek-r1-mla.gguf"))["gguf"]["metadata"];
    CHECK(ds["deepseek2.attention.key_length"] == 576);
    CHECK(ds["deepseek2.attention.key_length_mla"] == 192);
    CHECK(ds["deepseek2.attention.head_count_kv"] == 1);
    CHECK(ds["deepseek2.expert_weights_norm"] == true);
    // gpt-oss-120b: its sliding window, and 11.9 MB of tokenizer arrays read through.
    const json oss = document(gguf_file("gpt-oss-120b.gguf"))["gguf"];
    CHECK(oss["metadata"]["gpt-oss.attention.sliding_window"] == 128);
    CHECK(oss["metadata"]["general.tags"] == json({"vllm", "text-generation"}));
    CHECK(oss["metadata"]["tokenizer.ggml.merges"]["count"] == 446189);
    CHECK(oss["metadata_bytes"] == 11853322);
    // A version 2 file reads as version 3 does.
    const json v2 = document(gguf_file("codellama-7b-v2.gguf"))["gguf"];
    CHECK(v2["version"] == 2);
    CHECK(v2["metadata"]["llama.context_length"] == 16384);
}

TEST_CASE("gguf: any chunking gives the same document; long fixed-width arrays are skipped unread",
          "[gguf]") {
    for (const char* name : fixtures) {
        INFO(name);
        const std::string bytes = gguf_file(std::string(name) + ".gguf");
        const std::string whole = *kvcalc::read_gguf_document(bytes);
        const bool small = bytes.size() < 100000;
        for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{4096},
                                  std::size_t{65536}, std::size_t{1} << 20}) {
            if (chunk < 4096 && !small) continue;
            for (bool size_known : {true, false}) {
                INFO("chunk " << chunk << (size_known ? "" : ", size unknown"));
                ChunkedRead r = read_in_chunks(bytes, chunk, size_known);
                INFO(r.reader.error().message);
                REQUIRE(r.reader.state() == GgufReader::State::done);
                CHECK(r.reader.document() == whole);
            }
        }
    }
    // Llama 3's scores and token_type (128,256 x 4 bytes each) are skipped: a caller reading 64 KiB
    // from next_offset() reads at most one chunk of each before the reader skips the rest.
    const std::string llama = gguf_file("llama-3-8b-instruct.gguf");
    ChunkedRead r = read_in_chunks(llama, 65536);
    REQUIRE(r.reader.state() == GgufReader::State::done);
    const std::uint64_t skipped = 2 * 128256 * 4;  // 1,026,048
    CHECK(r.bytes_read <= llama.size() - skipped + 2 * 65536);
    CHECK(r.bytes_read >= llama.size() - skipped);
}

TEST_CASE("gguf: progress through a tokenizer array", "[gguf]") {
    const std::string bytes = gguf_file("llama-3-8b-instruct.gguf");
    GgufReader reader(bytes.size());
    std::uint64_t last_offset = 0;
    bool in_merges = false;
    while (reader.state() == GgufReader::State::reading) {
        const std::uint64_t at = reader.next_offset();
        reader.feed(at, std::string_view(bytes).substr(static_cast<std::size_t>(at), std::size_t{1} << 20));
        const kvcalc::GgufProgress p = reader.progress();
        CHECK(p.offset > last_offset);
        last_offset = p.offset;
        CHECK(p.kv_count == 18);
        if (p.key == "tokenizer.ggml.merges") {
            in_merges = true;
            CHECK(p.count == 280147);
            CHECK(p.index > 0);
            CHECK(p.index < p.count);
            CHECK(p.kv_index == 16);
        }
    }
    CHECK(in_merges);
    CHECK(reader.state() == GgufReader::State::done);
    CHECK(last_offset == bytes.size());
}

TEST_CASE("gguf: refusals name the offset and the key", "[gguf]") {
    struct Case {
        const char* name;
        std::string bytes;
        const char* field;
        const char* message;
    };
    std::string key70000(70000, 'k');
    const Case cases[] = {
        {"empty", "", "gguf", "GGUF: the file ends at offset 0, in the header"},
        {"other magic", std::string("GGML\x03\0\0\0", 8), "gguf",
         "GGUF: not a GGUF file: it does not start with \"GGUF\""},
        {"version 1", Bytes().raw("GGUF").u32(1).u32(0).u32(0).s, "gguf",
         "GGUF: version 1 (GGUFv1) is no longer supported by llama.cpp; convert the model again with a "
         "current "
         "llama.cpp"},
        {"version 4", Bytes().raw("GGUF").u32(4).u64(0).u64(0).s, "gguf",
         "GGUF: version 4 is not one llama.cpp reads (2 or 3)"},
        {"version 0", Bytes().raw("GGUF").u32(0).u64(0).u64(0).s, "gguf",
         "GGUF: version 0 is not one llama.cpp reads (2 or 3)"},
        {"negative tensor count", Bytes().raw("GGUF").u32(3).u64(std::uint64_t{1} << 63).u64(0).s, "gguf",
         "GGUF: tensor_count 9223372036854775808 is negative as llama.cpp reads it (int64)"},
        {"more pairs than the file holds", Bytes::header(1000000).s, "gguf",
         "GGUF: metadata_kv_count's key-value pairs at offset 24 would run past the end of the file (24 "
         "bytes), in "
         "the header"},
        {"cut in the header", Bytes().raw("GGUF").u32(3).u64(0).s, "gguf",
         "GGUF: the file ends at offset 16, in the header"},
        {"cut in a key's length",
         Bytes::header(2).str("general.name").u32(t_string).str("x").raw(std::string_view("\x05\0\0", 3)).s,
         "gguf", "GGUF: the file ends at offset 60, in key-value pair 2 of 2 (its key)"},
        {"key past the end", Bytes::header(1).u64(100).raw("abcdefgh").s, "gguf",
         "GGUF: a key at offset 32 would run past the end of the file (40 bytes), in key-value pair 1 of 1 "
         "(its "
         "key)"},
        {"key over the spec's bound", Bytes::header(1).str(key70000).u32(t_uint32).u32(1).s, "gguf",
         "GGUF: a key of 70,000 bytes, in key-value pair 1 of 1 (its key): the GGUF spec allows at most "
         "65,535"},
        {"unknown type", Bytes::header(1).str("a.b").u32(13).u32(1).s, "a.b",
         "GGUF: type 13 is not a GGUF value type, in the value of a.b"},
        {"nested array", Bytes::header(1).str("a.b").u32(t_array).u32(t_array).u64(2).s, "a.b",
         "GGUF: an array of arrays, in the value of a.b (element 0 of 2): llama.cpp refuses nested arrays"},
        {"duplicate key",
         Bytes::header(2)
             .str("general.name")
             .u32(t_string)
             .str("x")
             .str("general.name")
             .u32(t_string)
             .str("y")
             .s,
         "gguf",
         "GGUF: the key general.name appears twice, in key-value pair 2 of 2 (its key): llama.cpp refuses "
         "the file"},
        {"string past the end", Bytes::header(1).str("general.name").u32(t_string).u64(1000).raw("Llama").s,
         "general.name",
         "GGUF: a string at offset 56 would run past the end of the file (61 bytes), in the value of "
         "general.name"},
        {"cut in a value",
         Bytes::header(1).str("llama.block_count").u32(t_uint32).raw(std::string_view("\x20\0", 2)).s,
         "llama.block_count", "GGUF: the file ends at offset 55, in the value of llama.block_count"},
        {"array count past the end", Bytes::header(1).str("t").u32(t_array).u32(t_uint32).u64(1ull << 62).s,
         "t",
         "GGUF: an array's elements at offset 49 would run past the end of the file (49 bytes), in the value "
         "of t "
         "(element 0 of 4,611,686,018,427,387,904)"},
        {"string array element past the end",
         Bytes::header(1).str("t.tokens").u32(t_array).u32(t_string).u64(2).str("a").u64(1u << 19).s,
         "t.tokens",
         "GGUF: a string at offset 73 would run past the end of the file (73 bytes), in the value of "
         "t.tokens "
         "(element 1 of 2)"},
        {"string over 1 MiB", Bytes::header(1).str("t").u32(t_string).u64(2u << 20).s, "t",
         "GGUF: a string of 2,097,152 bytes, in the value of t: kvcalc reads strings of at most 1 MiB"},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        const kvcalc::Error e = refusal(c.bytes);
        CHECK(e.code == "malformed_gguf");
        CHECK(e.field == c.field);
        CHECK(e.message == c.message);
    }
}

TEST_CASE("gguf: the caps hold without a file size, and for what the document keeps", "[gguf]") {
    // A stream of unknown size: an array of 20,000,000 uint32 (80 MB) runs past the 64 MiB cap.
    const std::string big = Bytes::header(1).str("t").u32(t_array).u32(t_uint32).u64(20000000).s;
    GgufReader stream;
    CHECK(stream.feed(0, big) == GgufReader::State::failed);
    CHECK(stream.error().message ==
          "GGUF: an array's elements at offset 49 would run past 67,108,864 bytes, in the value of t "
          "(element 0 of "
          "20,000,000): kvcalc reads at most 64 MiB of GGUF metadata");
    // A stream that ends inside a skipped array (its last value) is truncated, not read: the reader
    // asks for the array's last byte.
    const std::string cut = Bytes::header(1).str("t").u32(t_array).u32(0).u64(5000).raw("abc").s;
    GgufReader unsized;
    CHECK(unsized.feed(0, cut) == GgufReader::State::reading);
    CHECK(unsized.next_offset() == 49 + 5000 - 1);
    CHECK(unsized.feed(unsized.next_offset(), "") == GgufReader::State::failed);
    CHECK(unsized.error().message ==
          "GGUF: the file ends at offset 5,048, in the value of t (element 5,000 of 5,000)");
    // 300 strings of 4,000 bytes are kept whole, and their 1.2 MB of text is over the document's bound.
    Bytes many = Bytes::header(300);
    for (int i = 0; i < 300; ++i)
        many.str("k." + std::to_string(i)).u32(t_string).str(std::string(4000, 'x'));
    const kvcalc::Error e = refusal(many.s);
    CHECK(e.field == "k.261");
    CHECK(e.message ==
          "GGUF: the metadata kept so far (every value but arrays over 4096 elements) is over 1 MiB of text, "
          "in the "
          "value of k.261");
    // Bytes fed from elsewhere than next_offset() are the caller's mistake, said so.
    GgufReader reader;
    CHECK(reader.feed(5, "GGUF") == GgufReader::State::failed);
    CHECK(reader.error().code == "invalid_value");
    CHECK(reader.error().message == "GGUF: bytes fed from offset 5, but the reader reads from offset 0 next");
}

TEST_CASE("gguf: every cut and every corrupted byte of a file is refused or read, never a crash", "[gguf]") {
    const std::string bytes = gguf_file("deepseek-r1-mla.gguf");
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        auto d = kvcalc::read_gguf_document(bytes.substr(0, cut));
        REQUIRE_FALSE(d.ok());
        CHECK(d.error().code == "malformed_gguf");
    }
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        std::string b = bytes;
        b[i] = static_cast<char>(0xFF);
        auto d = kvcalc::read_gguf_document(b);
        if (d)
            CHECK(kvcalc::parse_json_text(*d).ok());
        else
            CHECK(!d.error().message.empty());
    }
}
