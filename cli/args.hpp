// Command-line parsing shared by the kvcalc commands. Usage errors exit 2.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "json.hpp"
#include "result.hpp"

namespace kvcalc::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_bad_input = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_does_not_fit = 3;

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;  // --name value / --name=value
    std::map<std::string, bool> flags;          // --json
};

// `valued` lists the options that take a value, `switches` those that do not.
// Returns an error message for unknown options or a missing value.
std::optional<std::string> parse_args(int argc, char** argv, int first,
                                      const std::vector<std::string>& valued,
                                      const std::vector<std::string>& switches, Args& out);

// A config argument: a path, "-" for stdin, or a bundled preset id. The text is returned
// as given (JSON), or the preset id itself when it names a preset.
Result<std::string> read_config_arg(const std::string& arg);

// Options the size-like commands share, turned into the core's options object:
// --context --batch --kv-dtype --tp --pp --block-size --accounting
// --max-num-batched-tokens --shared-prefix. Numbers must be plain decimal integers.
Result<json> size_options(const Args& a);

// Prints an error: the message on stderr, and with --json the error object on stdout.
int report_error(const Error& e, bool as_json);
int usage_error(const std::string& message);

}  // namespace kvcalc::cli
