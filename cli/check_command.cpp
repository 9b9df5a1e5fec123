// kvcalc check: the advertised context against the KV pool; exit 3 when it does not fit,
// so a CI job can gate a deployment on it.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "args.hpp"
#include "check_api.hpp"
#include "commands.hpp"
#include "report.hpp"
#include "units.hpp"

namespace kvcalc::cli {
namespace {

Result<std::string> read_text_file(const std::string& path, const char* field) {
    std::ostringstream ss;
    if (path == "-") {
        ss << std::cin.rdbuf();
        return ss.str();
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(code::invalid_value, "cannot read " + path, field);
    ss << in.rdbuf();
    return ss.str();
}

Error error_of(const json& r) {
    Error e;
    e.code = r["error"]["code"].get<std::string>();
    e.message = r["error"]["message"].get<std::string>();
    e.field = r["error"]["field"].get<std::string>();
    if (r["error"].contains("line")) {
        e.line = r["error"]["line"].get<int>();
        e.column = r["error"]["column"].get<int>();
    }
    return e;
}

void print_plain(const json& r) {
    auto u = [&](const char* k) { return group_thousands(r[k].get<std::uint64_t>()); };
    std::cout << r["model"].get<std::string>() << ": " << r["engine"].get<std::string>() << " pool "
              << u("pool_tokens") << " tokens (" << r["pool_source"].get<std::string>() << ")\n"
              << "advertised context " << u("max_context") << " tokens ("
              << r["max_context_source"].get<std::string>() << ")\n\n";
    if (!r["pool"].is_null()) {
        std::cout << "pool per GPU:\n";
        for (const auto& s : r["pool"]["steps"])
            std::cout << "  " << s.get<std::string>() << "\n";
        std::cout << "\n";
    }
    std::cout << (r["fits"].get<bool>() ? "FITS" : "DOES NOT FIT") << ": one request of " << u("max_context");
    if (r["fits_by"].get<std::string>() == "bytes")  // a model with windows or states: by the bytes
        std::cout << " tokens needs " << u("request_bytes_per_gpu") << " B per GPU; the pool has "
                  << u("pool_bytes_per_gpu") << " B\n";
    else
        std::cout << " tokens needs " << u("blocks_needed") << " blocks of " << u("block_size")
                  << " tokens; the pool has " << u("blocks_available") << "\n";
    std::cout << "max concurrency " << r["max_concurrency_text"].get<std::string>() << "x\n"
              << "max safe context " << u("max_safe_context") << " tokens ("
              << r["max_safe_context_source"].get<std::string>() << ")\n";
    if (!r["concurrency"].is_null())
        std::cout << u("concurrency")
                  << " at once: " << (r["concurrency_fits"].get<bool>() ? "fit" : "do not fit")
                  << "; at that concurrency each request can have " << u("max_context_at_concurrency")
                  << " tokens\n";
    std::cout << "\nadvice:\n";
    for (const auto& a : r["advice"])
        std::cout << "  - " << a.get<std::string>() << "\n";
}

}  // namespace

int run_check(int argc, char** argv, int first) {
    Args a;
    if (auto err = parse_args(
            argc, argv, first,
            {"max-context", "pool-tokens", "engine-log", "tp", "pp", "kv-dtype", "block-size", "gpu",
             "gpu-count", "gpu-memory", "gpu-memory-utilization", "mem-fraction-static", "activation-peak",
             "non-torch", "weight-dtype", "engine", "concurrency", "accounting", "max-num-batched-tokens"},
            {"json"}, a))
        return usage_error(*err);
    bool as_json = a.flags.count("json") > 0;
    if (a.positional.size() != 1) return usage_error("check takes one CONFIG");
    int pool_flags = static_cast<int>(a.values.count("pool-tokens") + a.values.count("engine-log")) +
                     (a.values.count("gpu") || a.values.count("gpu-memory") ? 1 : 0);
    if (pool_flags != 1)
        return usage_error(
            "check needs one pool: --pool-tokens N, --engine-log FILE, or --gpu NAME (with --tp)");
    if (!a.values.count("max-context") && !a.values.count("engine-log"))
        return usage_error("check needs --max-context N (the context the deployment advertises)");
    if (a.positional[0] == "-" && a.values.count("engine-log") && a.values["engine-log"] == "-")
        return usage_error("CONFIG and --engine-log cannot both be read from stdin");

    auto text = read_config_arg(a.positional[0]);
    if (!text) return report_error(text.error(), as_json);
    json o = json::object();
    static const std::pair<const char*, const char*> numeric[] = {
        {"max-context", "max_context"},
        {"pool-tokens", "pool_tokens"},
        {"tp", "tp"},
        {"pp", "pp"},
        {"block-size", "block_size"},
        {"gpu-count", "gpu_count"},
        {"concurrency", "concurrency"},
        {"max-num-batched-tokens", "max_num_batched_tokens"}};
    for (auto [flag, key] : numeric) {
        auto it = a.values.find(flag);
        if (it == a.values.end()) continue;
        const std::string& v = it->second;
        bool digits = !v.empty() && v.size() <= 16 &&
                      std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits)
            return report_error(
                make_error(code::bad_option,
                           std::string("--") + flag + ": must be a whole number, got \"" + v + "\"", key),
                as_json);
        o[key] = std::stoull(v);
    }
    static const std::pair<const char*, const char*> texts[] = {
        {"kv-dtype", "kv_dtype"},
        {"gpu", "gpu"},
        {"gpu-memory", "gpu_memory"},
        {"gpu-memory-utilization", "gpu_memory_utilization"},
        {"mem-fraction-static", "mem_fraction_static"},
        {"activation-peak", "activation_peak"},
        {"non-torch", "non_torch"},
        {"weight-dtype", "weight_dtype"},
        {"engine", "engine"},
        {"accounting", "accounting"}};
    for (auto [flag, key] : texts) {
        auto it = a.values.find(flag);
        if (it != a.values.end()) o[key] = it->second;
    }
    if (auto it = a.values.find("engine-log"); it != a.values.end()) {
        auto log = read_text_file(it->second, "engine_log");
        if (!log) return report_error(log.error(), as_json);
        o["engine_log"] = *log;
    }
    auto out = parse_json_text(check_json(*text, to_text(o)));
    const json& r = *out;
    if (r.contains("error")) return report_error(error_of(r), as_json);
    if (as_json)
        std::cout << to_text(r, 2) << "\n";
    else
        print_plain(r);
    for (const auto& w : r["warnings"])
        std::cerr << "kvcalc: warning: " << w["field"].get<std::string>() << ": "
                  << w["message"].get<std::string>() << "\n";
    bool fits =
        r["fits"].get<bool>() && (r["concurrency_fits"].is_null() || r["concurrency_fits"].get<bool>());
    return fits ? exit_ok : exit_does_not_fit;
}

}  // namespace kvcalc::cli
