// kvcalc: the native command line over the same core as the wasm module.
#include <cstring>
#include <string>

#include "args.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
    using namespace kvcalc::cli;
    if (argc < 2) return usage_error("no command given");
    std::string cmd = argv[1];
    // `kvcalc size --help` as well as `kvcalc --help`: the usage, and success.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) cmd = "help";
    }
    if (cmd == "size") return run_size(argc, argv, 2);
    if (cmd == "presets") return run_presets(argc, argv, 2);
    if (cmd == "check") return run_check(argc, argv, 2);
    if (cmd == "table") return run_table(argc, argv, 2);
    if (cmd == "gpus") return run_gpus(argc, argv, 2);
    if (cmd == "architectures") return run_architectures(argc, argv, 2);
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        print_usage();
        return exit_ok;
    }
    return usage_error("unknown command \"" + cmd + "\"");
}
