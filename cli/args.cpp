#include "args.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "config/presets.hpp"
#include "report.hpp"

namespace kvcalc::cli {

namespace {

// "N", "SIZE", or a choice's values as "naive|resident|vllm".
std::string value_text(const OptionSpec& o) {
    std::string v = o.values;
    if (o.type == OptionType::choice)
        for (char& c : v)
            if (c == ' ') c = '|';
    return v;
}

const OptionSpec* option_for_flag(const std::string& flag) {
    std::string name = flag;
    for (char& c : name)
        if (c == '-') c = '_';
    return find_option(name);
}

}  // namespace

Args parse_args(int argc, char** argv, int first, Command command, bool json_switch) {
    Args a;
    for (int i = first; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.size() <= 2 || arg.rfind("--", 0) != 0) {
            a.positional.push_back(arg);
            continue;
        }
        std::string flag = arg.substr(2), value;
        bool inline_value = false;
        if (auto eq = flag.find('='); eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            inline_value = true;
        }
        if (json_switch && flag == "json" && !inline_value) {
            a.json_output = true;
            continue;
        }
        const OptionSpec* spec = option_for_flag(flag);
        if (!spec || !(spec->commands & command)) {
            if (!a.usage_problem) a.usage_problem = "unknown option --" + flag;
            continue;
        }
        if (!inline_value && spec->type == OptionType::flag) {
            a.options[spec->name] = true;  // --swa-full alone; --swa-full=false to say no
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= argc) {
                if (!a.usage_problem) a.usage_problem = "--" + flag + " needs a value";
                continue;
            }
            value = argv[++i];
        }
        if (spec->type == OptionType::log) {
            auto text = read_text(value, spec->name);
            if (!text) {
                if (!a.bad_value) a.bad_value = text.error();
                continue;
            }
            value = *text;
        }
        auto v = option_from_text(*spec, value);
        if (!v) {
            if (!a.bad_value) a.bad_value = v.error();
            continue;
        }
        a.options[spec->name] = *v;
    }
    return a;
}

Result<std::string> read_text(const std::string& path, const char* field) {
    std::ostringstream ss;
    if (path == "-") {
        ss << std::cin.rdbuf();
        return ss.str();
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(code::invalid_value, "cannot read " + path, field);
    ss << in.rdbuf();
    if (in.bad()) return make_error(code::invalid_value, "cannot read " + path, field);
    return ss.str();
}

Result<std::string> read_config_arg(const std::string& arg) {
    if (arg == "-") return read_config_stream(std::cin, "stdin", std::nullopt, false);
    std::ifstream file(arg, std::ios::binary);
    if (file) {
        // Its size, so that a GGUF count or length that runs past the end is refused at once.
        file.seekg(0, std::ios::end);
        const std::streamoff size = file.tellg();
        file.seekg(0);
        return read_config_stream(file, arg, size >= 0 ? std::optional<std::uint64_t>(size) : std::nullopt,
                                  true);
    }
    if (find_preset(arg)) return arg;
    // A Hugging Face id: this CLI reads no network; the npm command, the same CLI compiled for
    // Node, fetches it (web/node/hub-config.mjs) before this code sees it.
    if (arg.rfind("hf:", 0) == 0)
        return make_error(code::invalid_value,
                          arg + ": this kvcalc reads files and bundled presets, not the network; the npm " +
                              "command fetches Hugging Face ids (npx kvcalc with the same arguments; " +
                              "HF_TOKEN and HF_ENDPOINT honoured), or download the model's config.json " +
                              "and give its path",
                          "config");
    return make_error(
        code::unknown_preset,
        "\"" + arg + "\" is neither a readable file nor a bundled preset id (kvcalc presets lists them)",
        "config");
}

int report_error(const Error& e, bool as_json) {
    std::cerr << "kvcalc: " << e.message << "\n";
    if (as_json) std::cout << to_text(error_report(e), 2) << "\n";
    return exit_bad_input;
}

void print_usage() {
    // One synopsis line per command, then every option once, from the table of options.
    struct Line {
        Command command;
        const char* head;
        const char* tail;
    };
    const Line lines[] = {{size_command, "kvcalc size CONFIG", " [--json]"},
                          {check_command, "kvcalc check CONFIG", " [--json]"},
                          {table_command, "kvcalc table CONFIG...", ""}};
    std::string out;
    const std::size_t width = 100;
    for (const Line& l : lines) {
        std::string line = std::string(out.empty() ? "usage: " : "       ") + l.head;
        const std::string indent(std::string("       ").size() + std::string(l.head).size(), ' ');
        for (const OptionSpec& o : option_table()) {
            if (!(o.commands & l.command)) continue;
            std::string item =
                " [" + cli_flag(o) + (o.type == OptionType::flag ? "" : " " + value_text(o)) + "]";
            if (line.size() + item.size() > width) {
                out += line + "\n";
                line = indent;
            }
            line += item;
        }
        out += line + l.tail + "\n";
    }
    out +=
        "       kvcalc presets [--json]\n"
        "       kvcalc gpus [--json]\n"
        "       kvcalc architectures [--json]\n"
        "CONFIG is a config.json or GGUF file's path (a GGUF file's metadata only is read), - for stdin,\n"
        "or a bundled preset id (kvcalc presets); the npm command (npx kvcalc) also takes\n"
        "hf:OWNER/NAME, fetched from the Hugging Face Hub.\n"
        "check needs --max-context (or an engine log that states it) and one pool: --pool-tokens,\n"
        "--engine-log or --gpu / --gpu-memory; it exits 3 when the context does not fit the pool.\n"
        "options:\n";
    for (const OptionSpec& o : option_table()) {
        const OptionHelp help = option_help(o);
        std::string commands;
        for (Command c : {size_command, check_command, table_command})
            if (o.commands & c) commands += std::string(commands.empty() ? "" : ", ") + command_name(c);
        out += "  " + cli_flag(o) + (o.type == OptionType::flag ? "" : " " + value_text(o)) + "  (" +
               commands + ")\n      " + help.help + "; default: " + help.default_text + "\n";
    }
    std::cerr << out;
}

int usage_error(const std::string& message) {
    std::cerr << "kvcalc: " << message << "\n";
    print_usage();
    return exit_usage;
}

void print_warnings(const json& report) {
    for (const auto& w : report["warnings"])
        std::cerr << "kvcalc: warning: " << w["field"].get<std::string>() << ": "
                  << w["message"].get<std::string>() << "\n";
}

}  // namespace kvcalc::cli
