// llama.cpp's allocation (engine llamacpp, ollama, lmstudio) against tests/expected/llamacpp.json:
// each case's cells, streams and bytes per memory object, written as arithmetic from the config and
// LLAMACPP.md's rules, and the MiB its log line prints where a measurement states it; then what
// llama.cpp (or kvcalc) refuses, with its message.
#include "arithmetic.hpp"
#include "config/json.hpp"
#include "engines/llamacpp/ggml_type.hpp"
#include "engines/llamacpp/llamacpp_model.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;

namespace {

json llamacpp_table() {
    auto j =
        kvcalc::parse_json_text(read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/expected/llamacpp.json"));
    REQUIRE(j.ok());
    return *j;
}

std::uint64_t figure(const json& f) {
    const std::string arithmetic = f["arithmetic"].get<std::string>();
    INFO("arithmetic: " << arithmetic);
    CHECK(Arithmetic::eval(arithmetic) == f["value"].get<std::uint64_t>());  // the table agrees with itself
    return f["value"].get<std::uint64_t>();
}

// "../shared/configs/x.json" is the shared folder's; other paths are the repository's.
std::string config_text(const std::string& path) {
    const std::string shared = "../shared/configs/";
    return path.rfind(shared, 0) == 0 ? shared_config(path.substr(shared.size()))
                                      : read_file(std::string(KVCALC_SOURCE_DIR) + "/" + path);
}

json size_of(const json& c) {
    auto r = kvcalc::parse_json_text(
        kvcalc::size_json(config_text(c["config"].get<std::string>()), kvcalc::to_text(c["options"])));
    REQUIRE(r.ok());
    return *r;
}

}  // namespace

TEST_CASE("llamacpp: every case of tests/expected/llamacpp.json", "[llamacpp]") {
    const json table = llamacpp_table();
    REQUIRE(table["cases"].size() >= 15);
    for (const json& c : table["cases"]) {
        INFO(c["name"].get<std::string>());
        const json r = size_of(c);
        REQUIRE_FALSE(r.contains("error"));
        const json& l = r["llamacpp"];
        CHECK(r["engine"] == "llamacpp");
        CHECK(l["n_ctx"].get<std::uint64_t>() == figure(c["n_ctx"]));
        CHECK(l["n_ctx_seq"].get<std::uint64_t>() == figure(c["n_ctx_seq"]));
        CHECK(l["n_stream"] == c["n_stream"]);
        REQUIRE(l["memory"].size() == c["memory"].size());
        for (std::size_t i = 0; i < c["memory"].size(); ++i) {
            const json& want = c["memory"][i];
            const json& got = l["memory"][i];
            INFO("memory object " << i);
            CHECK(got["cache"] == want["cache"]);
            CHECK(got["layers"] == want["layers"]);
            CHECK(got["cells"].get<std::uint64_t>() == figure(want["cells"]));
            CHECK(got["bytes"].get<std::uint64_t>() == figure(want["bytes"]));
            if (want.contains("k_bytes")) {
                CHECK(got["k_bytes"].get<std::uint64_t>() == figure(want["k_bytes"]));
                CHECK(got["v_bytes"].get<std::uint64_t>() == figure(want["v_bytes"]));
            }
            if (c.contains("mib")) {  // as the log line prints it: "size = %7.2f MiB"
                const std::string size =
                    "size = " + std::string(7 - c["mib"][i].get<std::string>().size(), ' ') +
                    c["mib"][i].get<std::string>() + " MiB";
                CHECK(got["log_line"].get<std::string>().find(size) != std::string::npos);
            }
        }
        CHECK(l["bytes"].get<std::uint64_t>() == figure(c["bytes"]));
        CHECK(r["kv_bytes"] == l["bytes"]);  // accounting llamacpp, the default with this engine
        CHECK(r["accounting"] == "llamacpp");
    }
}

TEST_CASE("llamacpp: what llama.cpp or kvcalc refuses, by name", "[llamacpp][errors]") {
    const json table = llamacpp_table();
    for (const json& e : table["errors"]) {
        INFO(e["name"].get<std::string>());
        const json r = size_of(e);
        REQUIRE(r.contains("error"));
        CHECK(r["error"]["field"] == e["field"]);
        if (e.contains("code")) CHECK(r["error"]["code"] == e["code"]);
        if (e.contains("message")) CHECK(r["error"]["message"] == e["message"]);
    }
}

TEST_CASE("llamacpp: the three accountings of one context", "[llamacpp]") {
    // gpt-oss-20b at 131,072 tokens, one slot: 12 full + 12 SWA layers of 2,048 B a cell.
    auto r = kvcalc::parse_json_text(kvcalc::size_json(
        shared_config("openai--gpt-oss-20b.json"),
        R"({"engine": "llamacpp", "context": 131072, "parallel": 1, "accounting": "resident"})"));
    REQUIRE(r.ok());
    const json& j = *r;
    CHECK(j["bytes_per_token"] == 24 * 2048);                              // every attention layer's cell
    CHECK(j["sequence_bytes_naive"] == 24ull * 2048 * 131072);             // every layer x every token
    CHECK(j["sequence_bytes_resident"] == 12ull * 2048 * (131072 + 128));  // SWA layers keep their window
    CHECK(j["sequence_bytes_llamacpp"] == 12ull * 2048 * (131072 + 768));  // + ubatch, padded to 256
    CHECK(j["kv_bytes"] == j["sequence_bytes_resident"]);
    CHECK(j["accounting"] == "resident");
}

TEST_CASE("llamacpp: ggml's cache types and their blocks", "[llamacpp]") {
    // ggml-common.h: q8_0 sizeof(ggml_half) + 32 = 34, q4_0 2 + 16 = 18, q4_1 2 x 2 + 16 = 20, q5_0 2 + 4 +
    // 16 = 22, q5_1 2 x 2 + 4 + 16 = 24, iq4_nl 2 + 16 = 18.
    const std::pair<const char*, std::uint64_t> row_of_128[] = {
        {"f32", 512},     {"f16", 256},     {"bf16", 256},    {"q8_0", 4 * 34},  {"q4_0", 4 * 18},
        {"q4_1", 4 * 20}, {"q5_0", 4 * 22}, {"q5_1", 4 * 24}, {"iq4_nl", 4 * 18}};
    for (auto [name, bytes] : row_of_128) {
        const kvcalc::GgmlType* t = kvcalc::find_ggml_type(name);
        REQUIRE(t);
        CHECK(kvcalc::ggml_row_bytes(*t, 128) == bytes);
    }
    CHECK_FALSE(kvcalc::ggml_row_bytes(*kvcalc::find_ggml_type("q8_0"), 80));  // not whole blocks
    CHECK(kvcalc::find_ggml_type("q8_1") == nullptr);
}

TEST_CASE("llamacpp: sliding-window layers by llama.cpp's period rule", "[llamacpp]") {
    // set_swa_pattern(6): il % 6 < 5, so layers 5, 11, 17 of Gemma 3 270M are full; dense_first: il % 4 != 0.
    std::vector<std::uint32_t> full;
    for (std::uint32_t il = 0; il < 18; ++il)
        if (!kvcalc::llamacpp_swa_layer(kvcalc::SwaRule::period, 6, il)) full.push_back(il);
    CHECK(full == std::vector<std::uint32_t>{5, 11, 17});
    CHECK_FALSE(kvcalc::llamacpp_swa_layer(kvcalc::SwaRule::dense_first, 4, 8));
    CHECK(kvcalc::llamacpp_swa_layer(kvcalc::SwaRule::dense_first, 4, 9));
    // Mistral 7B v0.1's sliding_window 4096: llama.cpp's llama architecture keeps no SWA cache.
    auto r = kvcalc::parse_json_text(kvcalc::size_json(
        "mistralai/Mistral-7B-v0.1", R"({"engine": "llamacpp", "context": 32768, "parallel": 1})"));
    REQUIRE(r.ok());
    REQUIRE((*r)["llamacpp"]["memory"].size() == 1);
    CHECK((*r)["llamacpp"]["memory"][0]["cells"] == 32768);
    CHECK((*r)["layers"]["sliding_window"] == 0);
}

TEST_CASE("llamacpp: the defaults each host runs with", "[llamacpp]") {
    auto settings = [](const char* engine, const char* more = "") {
        auto r = kvcalc::parse_json_text(kvcalc::size_json(
            "Qwen/Qwen2.5-7B-Instruct",
            std::string(R"({"engine": ")") + engine + R"(", "context": 8192)" + more + "}"));
        REQUIRE(r.ok());
        REQUIRE_FALSE(r->contains("error"));
        return (*r)["llamacpp"];
    };
    const json server = settings("llamacpp");
    CHECK(server["n_seq_max"] == 4);  // llama-server's automatic -np (b6931+)
    CHECK(server["kv_unified"] == true);
    CHECK(server["flash_attn"] == "auto");
    CHECK(server["swa_full"] == false);
    CHECK(server["build"] == 10573);
    const json ollama = settings("ollama");
    CHECK(ollama["n_seq_max"] == 1);
    CHECK(ollama["kv_unified"] == false);
    CHECK(ollama["build"] == 10488);  // v0.33's bundled llama.cpp
    const json lmstudio = settings("lmstudio");
    CHECK(lmstudio["swa_full"] == true);  // llama.cpp's library default
    CHECK(lmstudio["n_batch"] == 512);
    const json old = settings("llamacpp", R"(, "llamacpp_build": 6000)");
    CHECK(old["n_seq_max"] == 1);
    CHECK(old["flash_attn"] == "off");
}
