// One function per kvcalc command; argv[first] is the command's first argument.
#pragma once

#include <optional>

#include "args.hpp"

namespace kvcalc::cli {

// Exits for the problems parse_args found: usage (2), or a bad value (1).
std::optional<int> argument_problem(const Args& a);

int run_size(int argc, char** argv, int first);
int run_presets(int argc, char** argv, int first);
int run_check(int argc, char** argv, int first);
int run_table(int argc, char** argv, int first);
int run_gpus(int argc, char** argv, int first);
int run_architectures(int argc, char** argv, int first);

}  // namespace kvcalc::cli
