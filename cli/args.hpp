// Command-line parsing shared by the kvcalc commands, driven by the core's table of options
// (core/options.hpp): each option of a command is --name-with-dashes VALUE (or =VALUE), and
// the usage text is written from the same table. Usage errors exit 2, bad input 1.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "config/json.hpp"
#include "options.hpp"
#include "result.hpp"

namespace kvcalc::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_bad_input = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_does_not_fit = 3;

struct Args {
    std::vector<std::string> positional;
    json options = json::object();             // the command's options as the core reads them
    bool json_output = false;                  // --json
    std::optional<std::string> usage_problem;  // exit 2
    std::optional<Error> bad_value;            // exit 1 (a value the option cannot take)
};

// `command`'s options from argv[first..]; `--json` where the command prints JSON.
Args parse_args(int argc, char** argv, int first, Command command, bool json_switch);

// A file's text, or stdin's for "-"; `field` names the option in the error.
Result<std::string> read_text(const std::string& path, const char* field);

// A config argument: a path, "-" for stdin, or a bundled preset id. The text is returned
// as given (JSON), the GGUF document for a GGUF file, or the preset id itself when it names
// a preset.
Result<std::string> read_config_arg(const std::string& arg);

// A stream's config text: its text, or, when it starts with the GGUF magic, the document of
// its metadata, read in 1 MiB chunks from where the reader asks (seeking past what it skips
// when `seekable`). `name` names it in errors; `size` is its size when known
// (cli/config_file.cpp).
Result<std::string> read_config_stream(std::istream& in, const std::string& name,
                                       std::optional<std::uint64_t> size, bool seekable);

// Prints an error: the message on stderr, and with --json the error object on stdout.
int report_error(const Error& e, bool as_json);
int usage_error(const std::string& message);
void print_usage();
void print_warnings(const json& report);

}  // namespace kvcalc::cli
