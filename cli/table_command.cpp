// kvcalc table: a per-model table for docs, baked at build time (md, html, csv or json).
#include <iostream>

#include "api.hpp"
#include "args.hpp"
#include "commands.hpp"
#include "report.hpp"

namespace kvcalc::cli {

int run_table(int argc, char** argv, int first) {
    Args a = parse_args(argc, argv, first, table_command, false);
    if (auto problem = argument_problem(a)) return *problem;
    if (a.positional.empty()) return usage_error("table takes one or more CONFIGs");
    json configs = json::array();
    int stdin_uses = 0;
    for (const auto& arg : a.positional) {
        if (arg == "-" && ++stdin_uses > 1) return usage_error("only one CONFIG can be read from stdin");
        auto text = read_config_arg(arg);
        if (!text) return report_error(text.error(), false);
        configs.push_back(*text);
    }
    if (!a.options.contains("format")) a.options["format"] = "md";  // the CLI prints text
    auto out = parse_json_text(Session().table(to_text(configs), to_text(a.options)));
    const json& r = *out;
    if (r.contains("error")) return report_error(error_from_report(r), false);
    std::cout << r["text"].get<std::string>();
    return exit_ok;
}

}  // namespace kvcalc::cli
