// The bundled presets keep only the config fields the core reads (cmake/embed_presets.mjs,
// cmake/preset_fields.txt). Here every preset must answer exactly as its file in
// ../shared/configs does, for size, check and table with several options: a field the core
// starts reading and the list does not name fails this test.
#include <cstdio>
#include <string>

#include "api.hpp"
#include "config/json.hpp"
#include "config/presets.hpp"
#include "support.hpp"

using kvcalc::json;

namespace {

// The shared file a preset was made from: the id with "/" written "--".
std::string preset_file_text(const std::string& id) {
    std::string name = id;
    for (std::size_t at = name.find('/'); at != std::string::npos; at = name.find('/', at + 2))
        name.replace(at, 1, "--");
    std::string dir = std::string(KVCALC_SHARED_DIR) + "/configs/";
    for (const std::string& path : {dir + name + ".json", dir + "reconstructed/" + name + ".json"}) {
        if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
            std::fclose(f);
            return kvtest::read_file(path);
        }
    }
    FAIL("no file in ../shared/configs for preset " << id);
    return {};
}

// A report without its model name: a preset is named by its id, a file by its config
// (architectures[0] and the like). Everything else must match.
json without_names(const json& j) {
    if (j.is_array()) {
        json out = json::array();
        for (const json& e : j)
            out.push_back(without_names(e));
        return out;
    }
    if (!j.is_object()) return j;
    json out = json::object();
    for (const auto& m : j.items())
        if (m.key() != "model" && m.key() != "model_source") out[m.key()] = without_names(m.value());
    return out;
}

void same_answer(const std::string& by_id, const std::string& by_file, const std::string& what) {
    auto a = kvcalc::parse_json_text(by_id);
    auto b = kvcalc::parse_json_text(by_file);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    INFO(what);
    CHECK(without_names(*a).dump(2) == without_names(*b).dump(2));
}

}  // namespace

TEST_CASE("every preset sizes, checks and tabulates exactly as its shared config file") {
    const char* size_options[] = {
        "", R"({"kv_dtype": "fp8", "tp": 2})", R"({"accounting": "vllm", "context": 5000, "batch": 4})",
        R"({"kv_dtype": "fp8_ds_mla", "pp": 2})", R"({"tp": 4, "kv_dtype": "int4"})"};
    REQUIRE(kvcalc::preset_count() == 30);  // every file of ../shared/configs and reconstructed/
    std::size_t preset_bytes = 0, file_bytes = 0;
    for (std::size_t i = 0; i < kvcalc::preset_count(); ++i) {
        const std::string id = kvcalc::preset_at(i).id;
        const std::string text = preset_file_text(id);
        const std::string quoted = json(id).dump();
        const std::string file_quoted = json(text).dump();
        preset_bytes += std::string(kvcalc::preset_at(i).config_json).size();
        file_bytes += text.size();
        for (const char* o : size_options)
            same_answer(kvcalc::size_json(id, o), kvcalc::size_json(text, o), id + " size " + o);
        same_answer(kvcalc::check_json(id, R"({"max_context": 1048576, "pool_tokens": 681280})"),
                    kvcalc::check_json(text, R"({"max_context": 1048576, "pool_tokens": 681280})"),
                    id + " check");
        same_answer(kvcalc::table_json("[" + quoted + "]", R"({"contexts": [4096, 131072]})"),
                    kvcalc::table_json("[" + file_quoted + "]", R"({"contexts": [4096, 131072]})"),
                    id + " table");
    }
    // Less than half the text: the fields the core reads, without whitespace (18,476 of
    // 39,778 bytes when this was written).
    CHECK(preset_bytes * 2 < file_bytes);
}
