// kvcalc table: a per-model table for docs, baked at build time (md, html, csv or json).
#include <iostream>

#include "args.hpp"
#include "check_api.hpp"
#include "commands.hpp"
#include "report.hpp"

namespace kvcalc::cli {

int run_table(int argc, char** argv, int first) {
    Args a;
    if (auto err =
            parse_args(argc, argv, first,
                       {"contexts", "format", "kv-dtype", "accounting", "block-size", "weight-dtype"}, {}, a))
        return usage_error(*err);
    if (a.positional.empty()) return usage_error("table takes one or more CONFIGs");
    json configs = json::array();
    int stdin_uses = 0;
    for (const auto& arg : a.positional) {
        if (arg == "-" && ++stdin_uses > 1) return usage_error("only one CONFIG can be read from stdin");
        auto text = read_config_arg(arg);
        if (!text) return report_error(text.error(), false);
        configs.push_back(*text);
    }
    json o = {{"format", a.values.count("format") ? a.values["format"] : std::string("md")}};
    for (auto [flag, key] :
         {std::pair{"contexts", "contexts"}, std::pair{"kv-dtype", "kv_dtype"},
          std::pair{"accounting", "accounting"}, std::pair{"weight-dtype", "weight_dtype"}})
        if (a.values.count(flag)) o[key] = a.values[flag];
    if (a.values.count("block-size")) {
        const std::string& v = a.values["block-size"];
        if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
            return report_error(
                make_error(code::bad_option, "--block-size: must be a whole number, got \"" + v + "\"",
                           "block_size"),
                false);
        o["block_size"] = std::stoull(v);
    }
    auto out = parse_json_text(table_json(to_text(configs), to_text(o)));
    const json& r = *out;
    if (r.contains("error")) {
        Error e;
        e.code = r["error"]["code"].get<std::string>();
        e.message = r["error"]["message"].get<std::string>();
        e.field = r["error"]["field"].get<std::string>();
        return report_error(e, false);
    }
    std::cout << r["text"].get<std::string>();
    return exit_ok;
}

}  // namespace kvcalc::cli
