// The one table of options: each option's name, type, default, help and the commands that
// take it, declared once. The JSON options of the text calls are read by it, the CLI's flags
// and usage text come from it (--kv-dtype), and the JS API names options from it (kvDtype).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "check/pool.hpp"
#include "config/json_fwd.hpp"

namespace kvcalc {

enum Command : unsigned { size_command = 1, check_command = 2, table_command = 4 };
const char* command_name(Command c);

// The engines an option applies to (OptionSpec::engines): vLLM's and SGLang's options are errors
// with engine llamacpp (ollama, lmstudio), and llama.cpp's with vllm or sglang.
enum EngineBits : unsigned { for_vllm = 1, for_sglang = 2, for_llamacpp = 4 };
inline constexpr unsigned for_serving = for_vllm | for_sglang;
inline constexpr unsigned for_all_engines = for_vllm | for_sglang | for_llamacpp;

// Every option a call can take, read and checked; an option not given is empty.
struct Options {
    std::optional<std::uint64_t> context, batch, tp, pp, block_size, max_num_batched_tokens, shared_prefix,
        max_context, pool_tokens, concurrency, gpu_count, gpu_memory, activation_peak, non_torch,
        num_speculative_tokens, max_num_encoder_input_tokens;
    std::optional<std::string> kv_dtype, accounting, engine, engine_log, gpu, weight_dtype, format,
        verdict_from, mamba_cache_mode, indexer_kv_dtype;
    // llama.cpp's (llama-server's names)
    std::optional<std::uint64_t> parallel, ubatch_size, llamacpp_build;
    std::optional<std::string> cache_type_k, cache_type_v, flash_attn, ollama_version;
    std::optional<bool> swa_full, kv_unified;
    std::optional<Fraction> gpu_memory_utilization, mem_fraction_static;
    std::optional<std::vector<std::uint64_t>> contexts;
};

enum class OptionType {
    count,          // a positive whole number
    count_or_zero,  // a whole number
    bytes,          // a whole number of bytes, or text like "80GiB"
    fraction,       // a decimal in (0, 1]: a number, or text like "0.9"
    text,           // a string
    choice,         // one of `values`
    contexts,       // a list of token counts, or text "4096,32768"
    log,            // an engine's log text (the CLI reads it from a file)
    flag,           // true or false; the CLI's flag alone means true (--swa-full)
};

using OptionSlot =
    std::variant<std::optional<std::uint64_t> Options::*, std::optional<std::string> Options::*,
                 std::optional<Fraction> Options::*, std::optional<std::vector<std::uint64_t>> Options::*,
                 std::optional<bool> Options::*>;

// What the code reads of an option. Its texts for people are option_help()'s.
struct OptionSpec {
    const char* name;  // the JSON key, snake_case; the CLI flag is --name-with-dashes
    OptionType type;
    // choice: the values, separated by spaces; other types: the value's name in the usage.
    const char* values;
    unsigned commands;  // Command bits
    OptionSlot slot;
    unsigned engines;  // EngineBits
};

const std::vector<OptionSpec>& option_table();
const OptionSpec* find_option(std::string_view name);

// An option's texts for people, which the CLI's usage prints: what applies when it is not given,
// and what it does. The same rows of the one table as OptionSpec's; a module that never prints
// the usage (the wasm) never calls this, and carries none of the text.
struct OptionHelp {
    const char* default_text;
    const char* help;
};
OptionHelp option_help(const OptionSpec& spec);

// The options of `command` from a JSON object (null or absent: none). Unknown keys, keys of
// another command or of another engine than `engine` names, and bad values are bad_option errors
// naming the key; null values are unset.
Result<Options> read_options(const json& options, Command command);

// One option's value from text as the CLI gives it ("--context 4096"), as JSON for
// read_options: whole numbers must be plain digits, flags true or false; everything else stays text.
Result<json> option_from_text(const OptionSpec& spec, const std::string& text);

// The engines `engine` (an option's value: vllm, sglang, llamacpp, ollama, lmstudio) stands for, as
// EngineBits; unset: vLLM or SGLang (which the check may take from a log).
unsigned engine_bits(const std::optional<std::string>& engine);
bool is_llamacpp_engine(const std::optional<std::string>& engine);

// "kv_dtype" -> "--kv-dtype"; "kv_dtype" -> "kvDtype".
std::string cli_flag(const OptionSpec& spec);
std::string js_name(const OptionSpec& spec);

// The table as JSON, for the JS API: [{"name", "js", "cli", "type", "values", "commands"}, ...]
// (no help: the JS API names options, the CLI explains them).
json options_json();

}  // namespace kvcalc
