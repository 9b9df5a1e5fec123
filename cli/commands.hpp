// One function per kvcalc command; argv[first] is the command's first argument.
#pragma once

namespace kvcalc::cli {

int run_size(int argc, char** argv, int first);
int run_presets(int argc, char** argv, int first);
int run_check(int argc, char** argv, int first);
int run_table(int argc, char** argv, int first);

}  // namespace kvcalc::cli
