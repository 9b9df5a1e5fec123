#include "options.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

#include "config/config_fields.hpp"

namespace kvcalc {
namespace {

constexpr unsigned size_check_table = size_command | check_command | table_command;

// A row of the table: OptionSpec's fields with the texts for people (default_text, help) between,
// in the order the rows are written (a compile-time table: its padding costs nothing at run time).
struct OptionRow {  // NOLINT(clang-analyzer-optin.performance.Padding)
    const char* name;
    OptionType type;
    const char* values;
    const char* default_text;  // what applies when the option is not given
    const char* help;
    unsigned commands;
    OptionSlot slot;
    unsigned engines = for_all_engines;
};

// In the order the usage lists them: what each command needs first. The defaults that are
// plain values are those of SizeOptions and pool.hpp; a test checks that the texts here say
// the same.
constexpr OptionRow rows[] = {
    {"context", OptionType::count, "N",
     "the model's max context; llama.cpp: llama-server's -c default, Ollama's num_ctx 4096, LM Studio's 4096",
     "tokens in one sequence; llamacpp: -c, the whole cache split among the slots; ollama: num_ctx, a slot's",
     size_command | check_command, &Options::context},
    {"batch", OptionType::count, "N", "1", "sequences held at once", size_command, &Options::batch,
     for_serving},
    {"contexts", OptionType::contexts, "N,N,...", "4096,32768,131072", "the contexts of the table's columns",
     table_command, &Options::contexts},
    {"format", OptionType::choice, "md html csv json", "md in the CLI; no text in the JSON API",
     "the table rendered as Markdown, HTML, CSV or JSON text", table_command, &Options::format},
    {"max_context", OptionType::count, "N", "the context the engine log states",
     "the context the deployment advertises (vLLM's --max-model-len)", check_command, &Options::max_context},
    {"pool_tokens", OptionType::count_or_zero, "N", "none: one of pool_tokens, engine_log or gpu",
     "the engine's KV pool in tokens", check_command, &Options::pool_tokens, for_serving},
    {"engine_log", OptionType::log, "FILE", "none",
     "the engine's startup log, for its pool; llama.cpp's, Ollama's or LM Studio's for the cells it served "
     "(the CLI reads the file; - for stdin)",
     check_command, &Options::engine_log},
    {"gpu", OptionType::text, "NAME", "none", "a GPU preset (kvcalc gpus lists them), to derive the pool",
     check_command, &Options::gpu, for_serving},
    {"gpu_memory", OptionType::bytes, "SIZE", "the GPU preset's",
     "memory of one GPU as CUDA reports it: bytes, or text like 80GiB", check_command, &Options::gpu_memory,
     for_serving},
    {"gpu_count", OptionType::count, "N", "tp x pp", "GPUs of the deployment", check_command,
     &Options::gpu_count, for_serving},
    {"kv_dtype", OptionType::text, "D", "auto",
     "KV cache dtype: auto (the model's, or fp8 when its quantization_config declares a KV scheme), fp32, "
     "fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, int8, int4, fp8_ds_mla",
     size_check_table, &Options::kv_dtype, for_serving},
    {"tp", OptionType::count, "N", "1",
     "tensor-parallel GPUs (KV heads split, or replicated above their count)", size_command | check_command,
     &Options::tp, for_serving},
    {"pp", OptionType::count, "N", "1", "pipeline-parallel stages (layers split as vLLM does)",
     size_command | check_command, &Options::pp, for_serving},
    {"block_size", OptionType::count, "N", "vLLM's 16 (larger for hybrid models), SGLang's page of 1",
     "vLLM's block / SGLang's page in tokens; also rounds the resident figure to whole blocks",
     size_check_table, &Options::block_size, for_serving},
    {"accounting", OptionType::choice, "naive resident vllm llamacpp",
     "resident; vllm for check; llamacpp for llama.cpp",
     "naive: every layer x every token; resident: windows capped, plus fixed state; vllm: what vLLM "
     "reserves per request; llamacpp: what llama.cpp allocates",
     size_check_table, &Options::accounting},
    {"max_num_batched_tokens", OptionType::count, "N", "8192",
     "vLLM's tokens in flight, which sliding and chunked layers keep besides their window", size_check_table,
     &Options::max_num_batched_tokens, for_serving},
    {"num_speculative_tokens", OptionType::count_or_zero, "N", "0",
     "vLLM's speculative tokens, drafted by the model's own MTP layers (Qwen3-Next, Qwen3.5, DeepSeek-V3): "
     "the draft's attention layers join the cache, and each gated-delta-net state keeps N more conv rows and "
     "N more state blocks",
     size_check_table, &Options::num_speculative_tokens, for_serving},
    {"mamba_cache_mode", OptionType::choice, "none align", "none",
     "vLLM's Mamba state for prefix caching on a hybrid model: none (one state block per request, without "
     "prefix caching) or align (two, what prefix caching uses for gated-delta-net models)",
     size_check_table, &Options::mamba_cache_mode, for_serving},
    {"indexer_kv_dtype", OptionType::choice, "bf16 fp8", "bf16",
     "vLLM's --attention-config indexer_kv_dtype: the dtype of a sparse-attention indexer's keys "
     "(MiniMax-M3: one sparse_index_dim key a token on each sparse layer), bf16 (vLLM's default) or fp8",
     size_check_table, &Options::indexer_kv_dtype, for_serving},
    {"max_num_encoder_input_tokens", OptionType::count, "N", "none: required for an encoder-decoder",
     "vLLM's encoder tokens a request's cross-attention caches (scheduler_config."
     "max_num_encoder_input_tokens): an encoder-decoder (Whisper, FireRedLID, Cohere ASR, Nemotron Parse) "
     "reserves them in every decoder layer",
     size_check_table, &Options::max_num_encoder_input_tokens, for_serving},
    {"shared_prefix", OptionType::count_or_zero, "N", "0",
     "tokens of a prefix every sequence of the batch shares, stored once", size_command,
     &Options::shared_prefix, for_serving},
    {"gpu_memory_utilization", OptionType::fraction, "F", "0.9 (vLLM's)", "vLLM's share of each GPU's memory",
     check_command, &Options::gpu_memory_utilization, for_serving},
    {"mem_fraction_static", OptionType::fraction, "F", "0.88 (SGLang's fallback)",
     "SGLang's share of each GPU's memory for weights and cache", check_command,
     &Options::mem_fraction_static, for_serving},
    {"activation_peak", OptionType::bytes, "SIZE", "1.5 GiB", "vLLM's activation peak per GPU", check_command,
     &Options::activation_peak, for_serving},
    {"non_torch", OptionType::bytes, "SIZE", "0.5 GiB", "memory outside PyTorch per GPU (NCCL, cuBLAS)",
     check_command, &Options::non_torch, for_serving},
    {"weight_dtype", OptionType::text, "D", "auto",
     "weight dtype for the weights estimate: auto (from quantization_config), bf16, fp16, fp32, fp8, int8, "
     "int4, mxfp4, nvfp4",
     check_command | table_command, &Options::weight_dtype},
    {"engine", OptionType::choice, "vllm sglang llamacpp ollama lmstudio",
     "vllm (check: or the engine the log is from)",
     "the engine whose allocation is sized; ollama and lmstudio are llama.cpp with their defaults",
     size_check_table, &Options::engine},
    {"parallel", OptionType::count, "N", "llama-server 4 unified (b6931+), else 1",
     "llama.cpp's -np: slots, each its own stream of cells unless kv_unified", size_check_table,
     &Options::parallel, for_llamacpp},
    {"cache_type_k", OptionType::choice, "f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl", "f16",
     "llama.cpp's -ctk: the K cache's type (q8_0 is 34 B per 32 values)", size_check_table,
     &Options::cache_type_k, for_llamacpp},
    {"cache_type_v", OptionType::choice, "f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl", "f16",
     "llama.cpp's -ctv: the V cache's type; a quantized V needs flash attention", size_check_table,
     &Options::cache_type_v, for_llamacpp},
    {"flash_attn", OptionType::choice, "on off auto", "auto (b6325+; off before)",
     "llama.cpp's -fa; auto counts as on when the cache is made", size_check_table, &Options::flash_attn,
     for_llamacpp},
    {"swa_full", OptionType::flag, "", "false; true for lmstudio (llama.cpp's library default)",
     "llama.cpp's --swa-full: sliding-window layers keep the whole context", size_check_table,
     &Options::swa_full, for_llamacpp},
    {"ubatch_size", OptionType::count, "N", "512",
     "llama.cpp's -ub, which sliding-window layers keep beside the window", size_check_table,
     &Options::ubatch_size, for_llamacpp},
    {"kv_unified", OptionType::flag, "", "false; true with llama-server's automatic slots",
     "llama.cpp's --kv-unified: one stream shared by all slots", size_check_table, &Options::kv_unified,
     for_llamacpp},
    {"llamacpp_build", OptionType::count, "N", "the current rules (b10573); ollama: its bundled b10488",
     "the llama.cpp build (its log's build: N) whose rules apply", size_check_table, &Options::llamacpp_build,
     for_llamacpp},
    {"ollama_version", OptionType::text, "X.Y.Z", "0.33.0", "engine ollama: its release, 0.30 or later",
     size_check_table, &Options::ollama_version, for_llamacpp},
    {"concurrency", OptionType::count, "N", "none", "requests of max_context tokens that must fit at once",
     check_command, &Options::concurrency, for_serving},
    {"verdict_from", OptionType::choice, "engine kvcalc", "engine",
     "with an engine log whose printed figures disagree with kvcalc's derivation from the memory it logs: "
     "engine (its "
     "printed pool, concurrency and refusal) or kvcalc (kvcalc's derivation)",
     check_command, &Options::verdict_from},
};

// The rows without their texts, made at compile time: only option_help() reads `rows` at run
// time, so a module that never calls it (the wasm) links none of the help.
template <std::size_t... I>
constexpr std::array<OptionSpec, sizeof...(I)> specs_of(std::index_sequence<I...>) {
    return {
        {{rows[I].name, rows[I].type, rows[I].values, rows[I].commands, rows[I].slot, rows[I].engines}...}};
}
constexpr auto specs = specs_of(std::make_index_sequence<std::size(rows)>());
const std::vector<OptionSpec> table(specs.begin(), specs.end());

// "naive, resident or vllm" from "naive resident vllm".
std::string choice_list(const char* values) {
    std::vector<std::string_view> v;
    std::string_view s = values;
    while (!s.empty()) {
        std::size_t sp = s.find(' ');
        v.push_back(s.substr(0, sp));
        s = sp == std::string_view::npos ? std::string_view() : s.substr(sp + 1);
    }
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) out += i + 1 == v.size() ? " or " : ", ";
        out += v[i];
    }
    return out;
}

bool is_choice(const char* values, const std::string& value) {
    std::string_view s = values;
    while (!s.empty()) {
        std::size_t sp = s.find(' ');
        if (s.substr(0, sp) == value) return true;
        s = sp == std::string_view::npos ? std::string_view() : s.substr(sp + 1);
    }
    return false;
}

Result<std::vector<std::uint64_t>> read_contexts(const json& v) {
    std::vector<std::uint64_t> out;
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        std::size_t i = 0;
        while (i <= s.size()) {
            std::size_t comma = s.find(',', i);
            std::string part = s.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
            bool digits = !part.empty() && part.size() <= 15 &&
                          std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
            std::uint64_t n = 0;
            for (std::size_t k = 0; digits && k < part.size(); ++k)
                n = n * 10 + static_cast<std::uint64_t>(part[k] - '0');  // at most 15 digits
            if (!digits || n == 0)
                return field_error(code::bad_option, "contexts",
                                   "must be positive whole numbers separated by commas, got \"{}\"",
                                   std::string_view(s).substr(0, 60));
            out.push_back(n);
            if (comma == std::string::npos) break;
            i = comma + 1;
        }
    } else if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i) {
            auto c = checked_integer(v[i], format("contexts[{}]", i), false);
            if (!c) return recode(c.forward_error(), code::bad_option);
            out.push_back(*c);
        }
    } else {
        return field_error(code::bad_option, "contexts", "must be a list of token counts, got {}",
                           described(v));
    }
    if (out.empty()) return fail(code::bad_option, "contexts", "contexts: give at least one context");
    if (out.size() > 16) return fail(code::bad_option, "contexts", "contexts: at most 16 contexts");
    return out;
}

const char* type_name(OptionType t) {
    switch (t) {
        case OptionType::count:
        case OptionType::count_or_zero:
            return "integer";
        case OptionType::bytes:
            return "size";
        case OptionType::fraction:
            return "fraction";
        case OptionType::text:
            return "text";
        case OptionType::choice:
            return "enum";
        case OptionType::contexts:
            return "list";
        case OptionType::log:
            return "log";
        case OptionType::flag:
            return "boolean";
    }
    return "text";
}

// One option's value, checked for its type and stored in its slot.
Result<bool> read_one(const OptionSpec& spec, const json& v, Options& out) {
    const std::string key = spec.name;
    auto need_string = [&]() -> Result<bool> {
        if (v.is_string() && !is_number_marker(v)) return true;
        return field_error(code::bad_option, key, "must be a string, got {}", described(v));
    };
    switch (spec.type) {
        case OptionType::count:
        case OptionType::count_or_zero: {
            auto n = checked_integer(v, key, spec.type == OptionType::count_or_zero);
            if (!n) return recode(n.forward_error(), code::bad_option);
            out.*std::get<std::optional<std::uint64_t> Options::*>(spec.slot) = *n;
            return true;
        }
        case OptionType::bytes: {
            auto n = v.is_string() ? parse_byte_size(v.get_ref<const std::string&>(), key)
                                   : Result<std::uint64_t>(checked_integer(v, key, true));
            if (!n) return recode(n.forward_error(), code::bad_option);
            out.*std::get<std::optional<std::uint64_t> Options::*>(spec.slot) = *n;
            return true;
        }
        case OptionType::fraction: {
            // A JSON number reads back as the decimal it was written as ("0.9").
            Result<Fraction> f =
                v.is_string() ? parse_fraction(v.get_ref<const std::string&>(), key)
                : v.is_number()
                    ? parse_fraction(to_text(v), key)
                    : Result<Fraction>(field_error(code::bad_option, key,
                                                   "must be a decimal like 0.9, got {}", described(v)));
            if (!f) return f.forward_error();
            out.*std::get<std::optional<Fraction> Options::*>(spec.slot) = std::move(f.value());
            return true;
        }
        case OptionType::text:
        case OptionType::log: {
            auto ok = need_string();
            if (!ok) return ok;
            out.*std::get<std::optional<std::string> Options::*>(spec.slot) = v.get<std::string>();
            return true;
        }
        case OptionType::choice: {
            if (!v.is_string() || !is_choice(spec.values, v.get_ref<const std::string&>()))
                return field_error(code::bad_option, key, "must be {}, got {}", choice_list(spec.values),
                                   described(v));
            out.*std::get<std::optional<std::string> Options::*>(spec.slot) = v.get<std::string>();
            return true;
        }
        case OptionType::flag: {
            if (!v.is_boolean())
                return field_error(code::bad_option, key, "must be true or false, got {}", described(v));
            out.*std::get<std::optional<bool> Options::*>(spec.slot) = v.get<bool>();
            return true;
        }
        case OptionType::contexts: {
            auto c = read_contexts(v);
            if (!c) return c.forward_error();
            out.*std::get<std::optional<std::vector<std::uint64_t>> Options::*>(spec.slot) =
                std::move(c.value());
            return true;
        }
    }
    return true;
}

}  // namespace

const char* command_name(Command c) {
    return c == size_command ? "size" : c == check_command ? "check" : "table";
}

const std::vector<OptionSpec>& option_table() {
    return table;
}

OptionHelp option_help(const OptionSpec& spec) {
    for (const OptionRow& r : rows)
        if (std::string_view(spec.name) == r.name) return {r.default_text, r.help};
    return {"", ""};  // not reached: every OptionSpec is a row's
}

const OptionSpec* find_option(std::string_view name) {
    for (const auto& o : table)
        if (name == o.name) return &o;
    return nullptr;
}

Result<Options> read_options(const json& options, Command command) {
    Options out;
    if (options.is_null()) return out;
    if (!options.is_object())
        return field_error(code::bad_option, "options", "must be an object, got {}", described(options));
    for (const auto& it : options.items()) {
        const std::string& k = it.key();
        if (it.value().is_null()) continue;  // an unset option
        const OptionSpec* spec = find_option(k);
        if (!spec) return fail(code::bad_option, k, "unknown option \"{}\"", k);
        if (!(spec->commands & command)) {
            std::string takers;
            for (Command c : {size_command, check_command, table_command})
                if (spec->commands & c) format_to(takers, takers.empty() ? "{}" : " and {}", command_name(c));
            return fail(code::bad_option, k, "{} is an option of {}, not of {}", k, takers,
                        command_name(command));
        }
        auto r = read_one(*spec, it.value(), out);
        if (!r) return r.forward_error();
    }
    // An option of another engine than the one chosen (or, with none, of llama.cpp's).
    const unsigned engine = engine_bits(out.engine);
    for (const auto& it : options.items()) {
        const OptionSpec* spec = find_option(it.key());
        if (it.value().is_null() || (spec->engines & engine)) continue;
        const std::string& k = it.key();
        if (spec->engines == for_llamacpp)
            return out.engine ? fail(code::bad_option, k,
                                     "{} is llama.cpp's option (engine llamacpp, ollama or lmstudio), not "
                                     "{}'s",
                                     k, *out.engine)
                              : fail(code::bad_option, k,
                                     "{} is llama.cpp's option: give engine llamacpp, ollama or lmstudio", k);
        return fail(code::bad_option, k, "{} is an option of vllm and sglang, not of engine {}", k,
                    *out.engine);
    }
    return out;
}

unsigned engine_bits(const std::optional<std::string>& engine) {
    if (!engine) return for_serving;
    if (*engine == "vllm") return for_vllm;
    if (*engine == "sglang") return for_sglang;
    return for_llamacpp;  // llamacpp, ollama, lmstudio (read_options checked the value)
}

bool is_llamacpp_engine(const std::optional<std::string>& engine) {
    return engine_bits(engine) == for_llamacpp;
}

Result<json> option_from_text(const OptionSpec& spec, const std::string& text) {
    if (spec.type == OptionType::flag) {
        if (text == "true" || text == "false") return json(text == "true");
        return fail(code::bad_option, spec.name, "{}: must be true or false, got \"{}\"", cli_flag(spec),
                    std::string_view(text).substr(0, 40));
    }
    if (spec.type != OptionType::count && spec.type != OptionType::count_or_zero) return json(text);
    bool digits = !text.empty() && text.size() <= 16 &&
                  std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits)
        return fail(code::bad_option, spec.name, "{}: must be a whole number, got \"{}\"", cli_flag(spec),
                    std::string_view(text).substr(0, 40));
    std::uint64_t n = 0;
    for (char c : text)
        n = n * 10 + static_cast<std::uint64_t>(c - '0');
    return json(n);
}

std::string cli_flag(const OptionSpec& spec) {
    std::string s = "--";
    for (const char* c = spec.name; *c; ++c)
        s += *c == '_' ? '-' : *c;
    return s;
}

std::string js_name(const OptionSpec& spec) {
    std::string s;
    bool upper = false;
    for (const char* c = spec.name; *c; ++c) {
        if (*c == '_') {
            upper = true;
            continue;
        }
        s += upper && *c >= 'a' && *c <= 'z' ? static_cast<char>(*c - 'a' + 'A') : *c;
        upper = false;
    }
    return s;
}

json options_json() {
    json list = json::array();
    for (const auto& o : table) {
        json commands = json::array();
        for (Command c : {size_command, check_command, table_command})
            if (o.commands & c) commands.push_back(command_name(c));
        json e;
        set_member(e, "name", o.name);
        set_member(e, "js", js_name(o));
        set_member(e, "cli", cli_flag(o));
        set_member(e, "type", type_name(o.type));
        set_member(e, "values", o.values);
        set_member(e, "commands", std::move(commands));
        list.push_back(std::move(e));
    }
    return list;
}

}  // namespace kvcalc
