// The one table of options: what each command takes, how values are checked, and that the
// defaults the table tells people are the ones the code applies.
#include "api.hpp"
#include "check/pool.hpp"
#include "options.hpp"
#include "sizing/sizing.hpp"
#include "support.hpp"

using kvcalc::json;

TEST_CASE("options: the defaults the table states are the code's") {
    const kvcalc::SizeOptions defaults;
    auto text = [](const char* name) {
        return std::string(kvcalc::option_help(*kvcalc::find_option(name)).default_text);
    };
    CHECK(text("batch") == std::to_string(defaults.batch));
    CHECK(text("tp") == std::to_string(defaults.tp));
    CHECK(text("pp") == std::to_string(defaults.pp));
    CHECK(text("kv_dtype") == defaults.kv_dtype);
    CHECK(text("max_num_batched_tokens") == std::to_string(defaults.max_num_batched_tokens));
    CHECK(text("shared_prefix") == std::to_string(defaults.shared_prefix));
    CHECK(text("num_speculative_tokens") == std::to_string(defaults.speculative_tokens));
    CHECK(text("mamba_cache_mode") == (defaults.mamba_align ? "align" : "none"));
    CHECK(text("indexer_kv_dtype") == defaults.indexer_kv_dtype);
    CHECK(text("accounting").rfind(kvcalc::accounting_name(defaults.accounting), 0) == 0);
    CHECK(text("gpu_memory_utilization").rfind(kvcalc::default_vllm_utilization, 0) == 0);
    CHECK(text("mem_fraction_static").rfind(kvcalc::default_sglang_fraction, 0) == 0);
    CHECK(text("activation_peak") == "1.5 GiB");  // default_activation_peak_bytes = 3/2 GiB
    CHECK(kvcalc::default_activation_peak_bytes == 3ull * kvtest::GiB / 2);
    CHECK(text("non_torch") == "0.5 GiB");
    CHECK(kvcalc::default_non_torch_bytes == kvtest::GiB / 2);
}

TEST_CASE("options: names for the CLI and JS, and what each command takes") {
    const kvcalc::OptionSpec* o = kvcalc::find_option("max_num_batched_tokens");
    REQUIRE(o);
    CHECK(kvcalc::cli_flag(*o) == "--max-num-batched-tokens");
    CHECK(kvcalc::js_name(*o) == "maxNumBatchedTokens");
    auto r = kvcalc::read_options({{"pool_tokens", 4096}}, kvcalc::size_command);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "bad_option");
    CHECK(r.error().field == "pool_tokens");
    CHECK(r.error().message == "pool_tokens is an option of check, not of size");
    auto w = kvcalc::read_options({{"weight_dtype", "int4"}}, kvcalc::size_command);
    CHECK(w.error().message == "weight_dtype is an option of check and table, not of size");
    auto ok = kvcalc::read_options({{"context", 4096.0}, {"batch", nullptr}, {"accounting", "vllm"}},
                                   kvcalc::size_command);
    REQUIRE(ok.ok());
    CHECK(*ok->context == 4096);  // a whole number written with a point
    CHECK_FALSE(ok->batch);       // null: not set
    CHECK(*ok->accounting == "vllm");
    auto f = kvcalc::read_options({{"gpu_memory_utilization", 0.92}, {"gpu_memory", "80GiB"}},
                                  kvcalc::check_command);
    REQUIRE(f.ok());
    CHECK(f->gpu_memory_utilization->num == 23);  // 0.92 = 23/25
    CHECK(f->gpu_memory_utilization->den == 25);
    CHECK(*f->gpu_memory == 80ull * kvtest::GiB);
    auto cli = kvcalc::option_from_text(*kvcalc::find_option("context"), "4k");
    CHECK(cli.error().message == "--context: must be a whole number, got \"4k\"");
}

TEST_CASE("options: the table as JSON for the JS API") {
    json t = kvcalc::options_json();
    REQUIRE(t.size() == kvcalc::option_table().size());
    const json* kv = nullptr;
    for (const json& o : t)
        if (o["name"] == "kv_dtype") kv = &o;
    REQUIRE(kv);
    CHECK((*kv)["js"] == "kvDtype");
    CHECK((*kv)["cli"] == "--kv-dtype");
    CHECK_FALSE(kv->contains("help"));                            // the CLI's text, not the JS API's
    for (const kvcalc::OptionSpec& o : kvcalc::option_table()) {  // the usage's text for each
        CHECK(std::string(kvcalc::option_help(o).help).size() > 10);
        CHECK_FALSE(std::string(kvcalc::option_help(o).default_text).empty());
    }
    CHECK((*kv)["commands"] == json::array({"size", "check", "table"}));
}
