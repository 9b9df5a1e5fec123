// kvcalc check: the advertised context against the KV pool; exit 3 when it does not fit,
// so a CI job can gate a deployment on it.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "api.hpp"
#include "args.hpp"
#include "check/check_report.hpp"
#include "commands.hpp"
#include "report.hpp"
#include "sizing/units.hpp"

namespace kvcalc::cli {
namespace {

// The lines the reader used, and every figure the engine printed against kvcalc's.
void print_log(const json& r) {
    if (r["log"].is_null()) return;
    std::cout << "engine log, lines used:\n";
    for (const auto& u : r["log"]["understood"]) {
        std::cout << "  line " << u["line"].get<int>() << ": " << u["what"].get<std::string>();
        if (u["repeats"].get<int>() > 0) std::cout << " (and " << u["repeats"].get<int>() << " more lines)";
        std::cout << "\n";
    }
    if (!r["cross_checks"].empty()) {
        std::cout << "\nthe engine's figures against kvcalc's:\n";
        for (const auto& c : r["cross_checks"])
            std::cout << "  " << (c["agree"].get<bool>() ? "agree" : "DIFFER") << "  "
                      << c["text"].get<std::string>() << "\n";
    }
    std::cout << "\nverdict: " << r["verdict_source"].get<std::string>() << "\n\n";
}

void print_plain(const json& r) {
    auto u = [&](const char* k) { return group_thousands(r[k].get<std::uint64_t>()); };
    std::cout << r["model"].get<std::string>() << ": " << r["engine"].get<std::string>() << " pool "
              << u("pool_tokens") << " tokens (" << r["pool_source"].get<std::string>() << ")\n"
              << "advertised context " << u("max_context") << " tokens ("
              << r["max_context_source"].get<std::string>() << ")\n\n";
    print_log(r);
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

// Engine llamacpp: the slot each request gets, against the context advertised.
void print_llamacpp(const json& r) {
    auto u = [&](const char* k) { return group_thousands(r[k].get<std::uint64_t>()); };
    std::cout << r["model"].get<std::string>() << ": " << r["llamacpp_host"].get<std::string>() << ", "
              << r["pool_source"].get<std::string>() << "\n"
              << "advertised context " << u("max_context") << " tokens ("
              << r["max_context_source"].get<std::string>() << "); a slot holds " << u("slot_context") << " ("
              << u("n_seq_max") << (r["kv_unified"].get<bool>() ? " slots sharing the cells" : " slots")
              << ")\n\n"
              << (r["log"].is_null() ? "what llama.cpp allocates:\n"
                                     : "what llama.cpp allocates with the log's settings, by kvcalc:\n");
    for (const auto& o : r["llamacpp"]["memory"])
        std::cout << "  " << o["log_line"].get<std::string>() << "\n";
    std::cout << "\n";
    print_log(r);
    std::cout << (r["fits"].get<bool>() ? "FITS" : "DOES NOT FIT") << ": " << u("max_concurrency")
              << " requests of " << u("max_context") << " tokens at once\nmax safe context "
              << u("max_safe_context") << " tokens (" << r["max_safe_context_source"].get<std::string>()
              << ")\n\nadvice:\n";
    for (const auto& a : r["advice"])
        std::cout << "  - " << a.get<std::string>() << "\n";
}

}  // namespace

int run_check(int argc, char** argv, int first) {
    // An engine log and the config cannot both come from stdin: look before reading either.
    for (int i = first; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--engine-log" && std::string(argv[i + 1]) == "-")
            for (int j = first; j < argc; ++j)
                if (std::string(argv[j]) == "-" && j != i + 1)
                    return usage_error("CONFIG and --engine-log cannot both be read from stdin");
    Args a = parse_args(argc, argv, first, check_command, true);
    if (auto problem = argument_problem(a)) return *problem;
    if (a.positional.size() != 1) return usage_error("check takes one CONFIG");
    const json& o = a.options;
    int pools = static_cast<int>(o.contains("pool_tokens") + o.contains("engine_log")) +
                (o.contains("gpu") || o.contains("gpu_memory") ? 1 : 0);
    // llama.cpp's cells are sized from its own options (-c, -np): no pool to give.
    const bool llamacpp = o.contains("engine") && is_llamacpp_engine(o["engine"].get<std::string>());
    if (pools != 1 && !llamacpp)
        return usage_error(
            "check needs one pool: --pool-tokens N, --engine-log FILE, or --gpu NAME (with --tp)");
    if (!o.contains("max_context") && !o.contains("engine_log"))
        return usage_error("check needs --max-context N (the context the deployment advertises)");

    auto text = read_config_arg(a.positional[0]);
    if (!text) return report_error(text.error(), a.json_output);
    auto model = read_config(*text);
    if (!model) return report_error(model.error(), a.json_output);
    auto options = read_options(o, check_command);
    if (!options) return report_error(options.error(), a.json_output);
    auto r = check_report(*model, *options);
    if (!r) return report_error(r.error(), a.json_output);
    if (a.json_output)
        std::cout << to_text(*r, 2) << "\n";
    else if (r->contains("llamacpp"))
        print_llamacpp(*r);
    else
        print_plain(*r);
    print_warnings(*r);
    const json& rep = *r;
    bool fits =
        rep["fits"].get<bool>() && (rep["concurrency_fits"].is_null() || rep["concurrency_fits"].get<bool>());
    return fits ? exit_ok : exit_does_not_fit;
}

}  // namespace kvcalc::cli
