// The conformance set: every real startup log in tests/fixtures/engine-logs/, checked against
// the model it served, as manifest.json describes it. A log "reproduced" has every figure the
// engine printed agree with kvcalc's derivation (the pool, the token line, the concurrency, the
// verdict, the refusal's need and estimate), and the figures kvcalc derives equal the
// arithmetic written beside them from the config's values. A log that "differs" says why, and
// its disagreements are asserted as they are, so a change in either direction is seen.
#include <set>

#include "api.hpp"
#include "arithmetic.hpp"
#include "config/json.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;

namespace {

const std::string logs_dir = std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/engine-logs/";

json read_manifest(const std::string& rel) {
    auto j = kvcalc::parse_json_text(read_file(logs_dir + rel));
    REQUIRE(j.ok());
    return *j;
}

// One table for every engine: the vLLM / SGLang manifest, then llama.cpp's, Ollama's and LM Studio's
// (llamacpp/manifest.json, whose model documents are in llamacpp/gguf/), as
// tests/expected/engine-logs.mjs joins them.
json manifest() {
    json all = read_manifest("manifest.json");
    for (json e : read_manifest("llamacpp/manifest.json")) {
        e["file"] = "llamacpp/" + e["file"].get<std::string>();
        e["config"] =
            e["gguf"].is_string() ? json("llamacpp/" + e["gguf"].get<std::string>()) : json(nullptr);
        e["llamacpp"] = true;
        all.push_back(std::move(e));
    }
    return all;
}

// "configs/x.json" is beside the logs; "../shared/configs/x.json" is the shared folder's.
std::string config_path(const std::string& rel) {
    const std::string shared = "../shared/configs/";
    if (rel.compare(0, shared.size(), shared) == 0)
        return std::string(KVCALC_SHARED_DIR) + "/configs/" + rel.substr(shared.size());
    return logs_dir + rel;
}

const json* at_pointer(const json& j, const std::string& pointer) {
    const json* cur = &j;
    std::size_t i = 1;
    while (i <= pointer.size() && cur) {
        std::size_t slash = pointer.find('/', i);
        const std::string key = pointer.substr(i, slash == std::string::npos ? std::string::npos : slash - i);
        if (cur->is_array()) {  // "/llamacpp/memory/1/cells": an index
            const std::size_t at = key.empty() ? cur->size() : std::stoul(key);
            cur = at < cur->size() ? &(*cur)[at] : nullptr;
        } else {
            cur = cur->is_object() && cur->contains(key) ? &(*cur)[key] : nullptr;
        }
        if (slash == std::string::npos) break;
        i = slash + 1;
    }
    return cur;
}

std::multiset<std::string> figures(const json& list) {
    std::multiset<std::string> out;
    for (const auto& f : list)
        out.insert(f.get<std::string>());
    return out;
}

}  // namespace

TEST_CASE("conformance: every real engine log is reproduced, or says why it differs") {
    const json m = manifest();
    REQUIRE(m.size() >= 25 + 19);
    std::size_t reproduced = 0, llama_reproduced = 0;
    for (const auto& e : m) {
        const std::string file = e["file"].get<std::string>();
        INFO(file);
        REQUIRE(e.contains("check"));
        const json& c = e["check"];
        const std::string status = c["status"].get<std::string>();
        REQUIRE((status == "reproduced" || status == "read" || status == "differs"));
        if (status != "reproduced") REQUIRE(c.contains("reason"));
        const json& cfg = !e["config"].is_null()               ? e["config"]
                          : e.contains("config_same_geometry") ? e["config_same_geometry"]
                                                               : e["config"];
        if (cfg.is_null()) {
            CHECK(status == "differs");  // nothing to check it against
            continue;
        }
        json options = c["options"];
        options["engine_log"] = read_file(logs_dir + file);
        auto out = kvcalc::parse_json_text(
            kvcalc::check_json(read_file(config_path(cfg.get<std::string>())), kvcalc::to_text(options)));
        REQUIRE(out.ok());
        const json& r = *out;
        if (c.contains("error")) {
            REQUIRE(r.contains("error"));
            CHECK(r["error"]["code"] == c["error"]);
            CHECK(status == "differs");
            continue;
        }
        INFO(kvcalc::to_text(r.contains("error") ? r["error"] : r["cross_checks"]));
        REQUIRE_FALSE(r.contains("error"));
        for (const auto& item : c["expect"].items()) {
            INFO(item.key());
            const json* got = at_pointer(r, item.key());
            REQUIRE(got != nullptr);
            const json& want = item.value();
            if (want.contains("arithmetic")) {
                INFO(want["arithmetic"].get<std::string>());
                CHECK(Arithmetic::eval(want["arithmetic"].get<std::string>()) ==
                      want["value"].get<std::uint64_t>());
            }
            CHECK(*got == want["value"]);
        }
        std::multiset<std::string> agree, disagree;
        for (const auto& x : r["cross_checks"])
            (x["agree"].get<bool>() ? agree : disagree).insert(x["figure"].get<std::string>());
        CHECK(agree == figures(c["agree"]));
        CHECK(disagree == figures(c["disagree"]));
        if (status == "reproduced") {
            CHECK_FALSE(agree.empty());  // at least one figure the engine printed, reproduced
            CHECK(disagree.empty());
            ++reproduced;
            if (e.contains("llamacpp")) ++llama_reproduced;
        }
    }
    // Issue 33: at least 12 real llama.cpp, Ollama and LM Studio logs reproduced to their printed precision.
    CHECK(llama_reproduced >= 12);
    // Of 39 vLLM / SGLang logs: the last two were Qwen3-Next with its MTP draft and Qwen3.6 under prefix
    // caching.
    CHECK(reproduced - llama_reproduced >= 33);
}
