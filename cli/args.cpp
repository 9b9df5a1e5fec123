#include "args.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "presets.hpp"
#include "report.hpp"

namespace kvcalc::cli {

std::optional<std::string> parse_args(int argc, char** argv, int first,
                                      const std::vector<std::string>& valued,
                                      const std::vector<std::string>& switches, Args& out) {
    auto has = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) != v.end();
    };
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            bool inline_value = false;
            if (auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                inline_value = true;
            }
            if (has(switches, name) && !inline_value) {
                out.flags[name] = true;
            } else if (has(valued, name)) {
                if (!inline_value) {
                    if (i + 1 >= argc) return "--" + name + " needs a value";
                    value = argv[++i];
                }
                out.values[name] = value;
            } else {
                return "unknown option --" + name;
            }
        } else {
            out.positional.push_back(a);
        }
    }
    return std::nullopt;
}

Result<std::string> read_config_arg(const std::string& arg) {
    if (arg == "-") {
        std::ostringstream ss;
        ss << std::cin.rdbuf();
        return ss.str();
    }
    std::ifstream in(arg, std::ios::binary);
    if (in) {
        std::ostringstream ss;
        ss << in.rdbuf();
        if (in.bad()) return make_error(code::invalid_value, "cannot read " + arg, "config");
        return ss.str();
    }
    if (find_preset(arg)) return arg;
    return make_error(code::unknown_preset,
                      "\"" + arg +
                          "\" is neither a readable file nor a bundled preset id "
                          "(kvcalc presets lists them)",
                      "config");
}

Result<json> size_options(const Args& a) {
    json o = json::object();
    static const std::pair<const char*, const char*> numeric[] = {
        {"context", "context"},
        {"batch", "batch"},
        {"tp", "tp"},
        {"pp", "pp"},
        {"block-size", "block_size"},
        {"max-num-batched-tokens", "max_num_batched_tokens"},
        {"shared-prefix", "shared_prefix"}};
    for (auto [flag, key] : numeric) {
        auto it = a.values.find(flag);
        if (it == a.values.end()) continue;
        const std::string& v = it->second;
        bool digits = !v.empty() && v.size() <= 16 &&
                      std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits)
            return make_error(code::bad_option,
                              std::string("--") + flag + ": must be a whole number, got \"" + v + "\"", key);
        o[key] = std::stoull(v);
    }
    for (auto [flag, key] : {std::pair{"kv-dtype", "kv_dtype"}, std::pair{"accounting", "accounting"}}) {
        auto it = a.values.find(flag);
        if (it != a.values.end()) o[key] = it->second;
    }
    return o;
}

int report_error(const Error& e, bool as_json) {
    std::cerr << "kvcalc: " << e.message << "\n";
    if (as_json) std::cout << to_text(error_report(e), 2) << "\n";
    return exit_bad_input;
}

int usage_error(const std::string& message) {
    std::cerr
        << "kvcalc: " << message << "\n"
        << "usage: kvcalc size CONFIG [--context N] [--batch N] [--kv-dtype D] [--tp N] [--pp N]\n"
           "                    [--block-size N] [--accounting naive|resident|vllm]\n"
           "                    [--max-num-batched-tokens N] [--shared-prefix N] [--json]\n"
           "       kvcalc check CONFIG --max-context N (--pool-tokens N | --engine-log FILE |\n"
           "                    --gpu NAME [--gpu-memory SIZE]) [--tp N] [--pp N] [--kv-dtype D]\n"
           "                    [--block-size N] [--engine vllm|sglang] [--concurrency N]\n"
           "                    [--gpu-memory-utilization F | --mem-fraction-static F]\n"
           "                    [--activation-peak SIZE] [--non-torch SIZE] [--weight-dtype D]\n"
           "                    [--gpu-count N] [--accounting A] [--max-num-batched-tokens N] [--json]\n"
           "                    exit 3 when the context does not fit the pool\n"
           "       kvcalc table CONFIG... [--contexts 4096,32768,131072] [--format md|html|csv|json]\n"
           "                    [--kv-dtype D] [--accounting A] [--weight-dtype D]\n"
           "       kvcalc presets [--json]\n"
           "CONFIG is a config.json path, - for stdin, or a bundled preset id.\n";
    return exit_usage;
}

}  // namespace kvcalc::cli
