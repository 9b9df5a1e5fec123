// Every shared config against tests/expected/configs.json: bytes per token and the three
// sequence figures at 4,096 tokens and at the model's max context. The table writes each
// figure as arithmetic from the config's values; both the arithmetic and kvcalc must agree.
#include <cstdio>
#include <optional>
#include <set>

#include "arithmetic.hpp"
#include "config/json.hpp"
#include "config/presets.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;

namespace {

json expected_table() {
    std::string text = read_file(std::string(KVCALC_SOURCE_DIR) + "/tests/expected/configs.json");
    auto j = kvcalc::parse_json_text(text);
    REQUIRE(j.ok());
    return *j;
}

std::uint64_t figure(const json& f) {
    std::uint64_t value = f["value"].get<std::uint64_t>();
    std::string arithmetic = f["arithmetic"].get<std::string>();
    INFO("arithmetic: " << arithmetic);
    CHECK(Arithmetic::eval(arithmetic) == value);  // the table agrees with itself
    return value;
}

void check_at(const std::string& file, const json& at, std::optional<std::uint64_t> context) {
    kvcalc::SizeOptions o;
    o.context = context;
    auto r = size(file, o);
    INFO(file << " at " << r.context);
    CHECK(r.context == at["context"].get<std::uint64_t>());
    CHECK(r.sequence_bytes_naive == figure(at["naive"]));
    CHECK(r.sequence_bytes_resident == figure(at["resident"]));
    CHECK(r.sequence_bytes_vllm == figure(at["vllm"]));
    CHECK(r.state_bytes == figure(at["state"]));
    CHECK(r.kv_bytes == r.sequence_bytes_resident);  // batch 1, resident accounting by default
}

}  // namespace

TEST_CASE("every shared config has its expected figures") {
    json table = expected_table();
    std::size_t checked = 0;
    for (const auto& e : table["configs"]) {
        std::string file = e["file"].get<std::string>();
        SECTION(file) {
            auto r = size(file, at(4096));
            CHECK(r.bytes_per_token == figure(e["bytes_per_token"]));
            check_at(file, e["at_4096"], 4096);
            if (e["at_max"].is_null()) {
                // No max-context field: sizing without a context is an error, not a guess.
                auto none = kvcalc::size_model(model(file), kvcalc::SizeOptions{});
                REQUIRE_FALSE(none.ok());
                CHECK(none.error().field == "context");
            } else {
                check_at(file, e["at_max"], std::nullopt);  // the default context is the model's max
            }
        }
        ++checked;
    }
    CHECK(checked == table["configs"].size());
}

TEST_CASE("the table covers every bundled config, and the presets are those files") {
    json table = expected_table();
    std::set<std::string> files;
    for (const auto& e : table["configs"])
        files.insert(e["file"].get<std::string>());
    CHECK(kvcalc::preset_count() == 30);  // 24 verbatim + 6 reconstructed files in ../shared/configs
    for (std::size_t i = 0; i < kvcalc::preset_count(); ++i) {
        std::string id = kvcalc::preset_at(i).id;
        std::string name = id.substr(0, id.find('/')) + "--" + id.substr(id.find('/') + 1) + ".json";
        INFO(id);
        CHECK((files.count(name) == 1 || files.count("reconstructed/" + name) == 1));
    }
    CHECK(files.size() == kvcalc::preset_count());
}

TEST_CASE("every fixture config has its expected figures, or its refusal") {
    // tests/fixtures/configs: real published configs of the families vLLM serves (SOURCES.md),
    // sized as the expected table's arithmetic says, or refused by name.
    json table = expected_table();
    REQUIRE(table["fixtures"].size() >= 25);
    for (const auto& e : table["fixtures"]) {
        const std::string file = e["file"].get<std::string>();
        SECTION(file) {
            auto m = kvcalc::read_model_text(read_file(std::string(KVCALC_SOURCE_DIR) + "/" + file));
            if (e.contains("refused")) {
                REQUIRE_FALSE(m.ok());
                CHECK(m.error().code == e["refused"]["code"]);
                CHECK(m.error().field == e["refused"]["field"]);
                CHECK(m.error().message == e["refused"]["message"]);
                continue;
            }
            INFO(file << ": " << (m ? "" : m.error().message));
            REQUIRE(m.ok());
            // An encoder-decoder's entry gives the encoder length its figures assume.
            const auto options = [&](std::uint64_t context) {
                kvcalc::SizeOptions o = kvtest::at(context);
                if (e.contains("max_num_encoder_input_tokens"))
                    o.encoder_tokens = e["max_num_encoder_input_tokens"].get<std::uint64_t>();
                return o;
            };
            for (const auto& it : e.items()) {
                if (it.key().rfind("at_", 0) != 0) continue;
                const json& at = it.value();
                auto r = kvcalc::size_model(*m, options(at["context"].get<std::uint64_t>()));
                REQUIRE(r.ok());
                CHECK(r->bytes_per_token == figure(e["bytes_per_token"]));
                CHECK(r->sequence_bytes_naive == figure(at["naive"]));
                CHECK(r->sequence_bytes_resident == figure(at["resident"]));
                CHECK(r->sequence_bytes_vllm == figure(at["vllm"]));
                CHECK(r->state_bytes == figure(at["state"]));
            }
            const json& tp8 = e["tp8"];
            kvcalc::SizeOptions o =
                options(tp8.value("context", std::uint64_t{4096}));  // its own when shorter
            o.tp = 8;
            auto r = kvcalc::size_model(*m, o);
            if (tp8.contains("refused")) {
                REQUIRE_FALSE(r.ok());
                CHECK(r.error().field == tp8["refused"]["field"]);
            } else {
                REQUIRE(r.ok());
                CHECK(r->kv_bytes_per_gpu == figure(tp8["kv_bytes_per_gpu"]));
            }
        }
    }
}
