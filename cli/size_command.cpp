// kvcalc size: the formula with the model's numbers and their sources, then the figures.
#include <iostream>

#include "api.hpp"
#include "args.hpp"
#include "commands.hpp"
#include "config/architectures.hpp"
#include "report.hpp"
#include "sizing/units.hpp"

namespace kvcalc::cli {
namespace {

std::string bytes(std::uint64_t b) {
    return group_thousands(b) + " B (" + format_bytes(b) + ")";
}

void print_plain(const json& r) {
    auto u = [&](const char* k) { return r[k].get<std::uint64_t>(); };
    std::cout << r["model"].get<std::string>() << "  (" << r["attention_kind"].get<std::string>() << "; "
              << r["num_layers"]["value"].get<std::uint64_t>() << " layers from "
              << r["num_layers"]["source"].get<std::string>() << ")\n";
    std::cout << "KV dtype " << r["kv_dtype"].get<std::string>() << " ("
              << r["kv_dtype_source"].get<std::string>() << ")\n\n";
    std::cout << "Bytes per token:\n";
    for (const auto& g : r["groups"]) {
        std::string kind = g["kind"].get<std::string>();
        std::uint64_t n = g["layers"].get<std::uint64_t>();
        std::uint64_t per = g["bytes_per_token_layer"].get<std::uint64_t>();
        std::cout << "  " << g["name"].get<std::string>() << " (" << kind << "), " << n << " layers: ";
        if (kind == "mla" && r["kv_dtype"] == "fp8_ds_mla") {
            // One fixed-size entry per token per layer, not latent x bytes per element.
            std::cout << n << " layers x " << per << " B per token per layer = " << group_thousands(n * per)
                      << " B\n"
                      << "      " << per << " B fixed by " << r["kv_dtype_source"].get<std::string>() << "\n";
        } else if (kind == "mla") {
            std::cout << n << " layers x " << g["latent_dim"]["value"].get<std::uint64_t>() << " latent x "
                      << r["kv_dtype_bits"].get<unsigned>() / 8.0 << " B";
            if (g.contains("indexer_bytes"))
                std::cout << " + " << n << " layers x " << g["indexer_bytes"]["value"].get<std::uint64_t>()
                          << " B indexer keys";
            std::cout << " = " << group_thousands(n * per) << " B\n"
                      << "      latent " << g["latent_dim"]["source"].get<std::string>() << "\n";
            if (g.contains("indexer_bytes"))
                std::cout << "      indexer keys " << g["indexer_bytes"]["source"].get<std::string>() << "\n";
        } else if (g.contains("kv_heads")) {
            std::uint64_t k = g["head_dim"]["value"].get<std::uint64_t>(),
                          v = g["v_head_dim"]["value"].get<std::uint64_t>();
            std::cout << (k == v ? "2 (K and V) x " : "") << n << " layers x "
                      << g["kv_heads"]["value"].get<std::uint64_t>() << " KV heads x ";
            if (k == v)
                std::cout << k << " head size";
            else
                std::cout << "(" << k << " + " << v << ") K+V head sizes";
            std::cout << " x " << r["kv_dtype_bits"].get<unsigned>() / 8.0 << " B";
            if (g.contains("indexer_bytes"))  // the indexer's keys, the same on every GPU
                std::cout << " + " << n << " layers x " << g["indexer_bytes"]["value"].get<std::uint64_t>()
                          << " B indexer keys";
            std::cout << " = " << group_thousands(n * per) << " B"
                      << (g.contains("cross_attention") ? " per encoder token, not in the total" : "")
                      << "\n";
            if (g.contains("cross_attention"))
                std::cout
                    << "      cross-attention: holds " << group_thousands(u("max_num_encoder_input_tokens"))
                    << " encoder tokens a request (max_num_encoder_input_tokens), whatever the context\n";
            std::cout << "      KV heads " << g["kv_heads"]["source"].get<std::string>() << "; head size "
                      << g["head_dim"]["source"].get<std::string>() << "\n";
            if (g.contains("indexer_bytes"))
                std::cout << "      indexer keys " << g["indexer_bytes"]["source"].get<std::string>() << " ("
                          << r["indexer_kv_dtype"].get<std::string>() << ")\n";
            if (g.contains("caches_per_layer")) {
                std::uint64_t c = g["caches_per_layer"].get<std::uint64_t>();
                std::cout << "      " << n << " caches: " << n / c << " layers x " << c
                          << " loop steps, one cache each\n";
            }
            if (g.contains("window"))
                std::cout << "      keeps at most "
                          << group_thousands(g["window"]["value"].get<std::uint64_t>()) << " tokens ("
                          << g["window"]["source"].get<std::string>() << ")\n";
        } else if (kind == "linear_state") {
            std::cout << "no per-token cache; fixed state "
                      << bytes(g["state_bytes_layer"].get<std::uint64_t>()) << " per layer per sequence\n"
                      << "      " << g["state_source"].get<std::string>() << "\n";
        } else {
            std::cout << "no cache\n";
        }
    }
    std::cout << "  total: " << bytes(u("bytes_per_token")) << " per token\n\n";
    std::string csrc = r["context_source"].get<std::string>();
    std::cout << "One sequence of " << group_thousands(u("context")) << " tokens ("
              << (csrc == "context" ? "given" : "the model's max, " + csrc) << "):\n"
              << "  naive     " << bytes(u("sequence_bytes_naive")) << "  every cached layer x every token\n"
              << "  resident  " << bytes(u("sequence_bytes_resident"))
              << "  windows capped, plus fixed state\n"
              << "  vllm      " << bytes(u("sequence_bytes_vllm"))
              << "  vLLM's per-request reservation (block " << u("vllm_block_size") << ")\n";
    if (u("state_bytes")) {
        std::cout << "  fixed state " << bytes(u("state_bytes")) << " per sequence (in resident and vllm)\n";
        std::uint64_t blocks = 0;  // vLLM's state blocks a request, in each linear layer
        for (const auto& g : r["groups"])
            if (g["kind"] == "linear_state") blocks = g["vllm_blocks"].get<std::uint64_t>();
        if (blocks > 1)
            std::cout << "  vllm keeps " << blocks << " state blocks a linear layer (mamba_cache_mode "
                      << r["mamba_cache_mode"].get<std::string>() << ", " << u("num_speculative_tokens")
                      << " speculative tokens)\n";
    }
    std::cout << "\nKV cache, batch " << u("batch") << ", " << r["accounting"].get<std::string>() << ": "
              << bytes(u("kv_bytes")) << "\n";
    if (u("tp") > 1 || u("pp") > 1)
        std::cout << "  per GPU (tp " << u("tp") << ", pp " << u("pp")
                  << ", heaviest stage): " << bytes(u("kv_bytes_per_gpu"))
                  << "; all GPUs: " << bytes(u("kv_bytes_deployment")) << "\n";
    std::cout << std::flush;
    print_warnings(r);
}

// Engine llamacpp: the model's cells as llama.cpp allocates them, and each memory object in its log's
// own shape beside kvcalc's exact bytes, so a user can hold it against the log.
void print_llamacpp(const json& r) {
    auto u = [&](const json& o, const char* k) { return o[k].get<std::uint64_t>(); };
    auto str = [&](const json& o, const char* k) { return o[k].get<std::string>(); };
    const json& l = r["llamacpp"];
    std::cout << str(r, "model") << "  (" << str(r, "attention_kind") << "; " << u(r["num_layers"], "value")
              << " layers from " << str(r["num_layers"], "source") << ")\n"
              << "llama.cpp architecture " << str(r, "llamacpp_arch") << " ("
              << str(r, "llamacpp_arch_source") << ")\n"
              << "engine " << str(l, "host") << ", rules of build b" << u(l, "build") << " ("
              << str(l, "build_source") << ")\n"
              << "K cache " << str(l, "cache_type_k") << " (" << str(l, "cache_type_k_source")
              << "), V cache " << str(l, "cache_type_v") << " (" << str(l, "cache_type_v_source") << ")\n\n";
    std::cout << "Bytes per cell (one token of one stream):\n";
    for (const auto& g : r["groups"]) {
        const std::string kind = str(g, "kind"), cache = str(g, "cache");
        const std::uint64_t n = u(g, "layers");
        std::cout << "  " << str(g, "name") << " (" << kind
                  << (cache == "none" ? "" : ", " + cache + " cache") << "), " << n << " layers: ";
        if (g.contains("k_width")) {
            std::cout << n << " layers x (" << group_thousands(u(g, "k_bytes_per_cell")) << " B K";
            std::cout << (u(g, "v_width") ? " + " + group_thousands(u(g, "v_bytes_per_cell")) + " B V"
                                          : ", no V")
                      << ") = " << group_thousands(n * u(g, "bytes_per_token_layer")) << " B\n";
            if (kind == "mla")
                std::cout << "      K the latent " << u(g["latent_dim"], "value") << " ("
                          << str(g["latent_dim"], "source") << ")"
                          << (u(g, "v_width") ? "; V " + std::to_string(u(g, "v_width")) + " (kv_lora_rank)"
                                              : "")
                          << "\n";
            else
                std::cout << "      K " << u(g, "k_width") << " = " << u(g["kv_heads"], "value")
                          << " KV heads x " << u(g["head_dim"], "value") << ", V " << u(g, "v_width")
                          << " values; KV heads " << str(g["kv_heads"], "source") << "; head size "
                          << str(g["head_dim"], "source") << "\n";
            if (g.contains("window"))
                std::cout << "      window " << group_thousands(u(g["window"], "value")) << " tokens ("
                          << str(g["window"], "source") << ")\n";
        } else if (kind == "linear_state") {
            std::cout << "no cells; f32 state " << bytes(u(g, "state_bytes_layer"))
                      << " per layer per sequence (R " << group_thousands(u(g, "r_bytes_per_sequence"))
                      << " B + S " << group_thousands(u(g, "s_bytes_per_sequence")) << " B)\n"
                      << "      " << str(g, "state_source") << "\n";
        } else {
            std::cout << "no cache\n";
        }
    }
    std::cout << "  total: " << bytes(u(r, "bytes_per_token")) << " per cell\n\n";
    const std::string csrc = str(r, "context_source");
    std::cout << "Context " << group_thousands(u(r, "context")) << " ("
              << (csrc == "context" ? "given" : csrc) << "): n_ctx "
              << group_thousands(u(l, "n_ctx_requested"));
    if (u(l, "n_ctx") != u(l, "n_ctx_requested")) std::cout << " -> " << group_thousands(u(l, "n_ctx"));
    std::cout << ", " << u(l, "n_seq_max") << (u(l, "n_seq_max") == 1 ? " slot" : " slots") << " ("
              << str(l, "n_seq_max_source") << "), "
              << (l["kv_unified"].get<bool>() ? "unified" : "not unified") << ": " << u(l, "n_stream")
              << (u(l, "n_stream") == 1 ? " stream" : " streams") << " of "
              << group_thousands(u(l, "n_ctx_seq")) << " cells (" << str(l, "context_rule") << ")\n"
              << "  flash attention " << str(l, "flash_attn") << " (" << str(l, "flash_attn_source")
              << "); n_ubatch " << u(l, "n_ubatch") << "; swa_full "
              << (l["swa_full"].get<bool>() ? "true" : "false") << " (" << str(l, "swa_full_source")
              << ")\n\n";
    std::cout << "What llama.cpp allocates, as its log prints it:\n";
    for (const auto& o : l["memory"]) {
        const bool rec = str(o, "cache") == "recurrent";
        std::cout << "  " << str(o, "log_line") << "\n      " << bytes(u(o, "bytes")) << ": "
                  << group_thousands(u(o, "cells")) << " cells (" << str(o, "cells_rule") << ")";
        if (!rec) std::cout << " x " << u(o, "streams") << (u(o, "streams") == 1 ? " stream" : " streams");
        std::cout << ", " << u(o, "layers") << " layers; " << (rec ? "R " : "K ")
                  << group_thousands(u(o, rec ? "r_bytes" : "k_bytes")) << " B, " << (rec ? "S " : "V ")
                  << group_thousands(u(o, rec ? "s_bytes" : "v_bytes")) << " B\n";
    }
    std::cout << "  total " << bytes(u(l, "bytes")) << "\n\n";
    std::cout << "Three accountings of the " << group_thousands(u(l, "n_ctx_requested")) << " tokens:\n"
              << "  naive     " << bytes(u(r, "sequence_bytes_naive"))
              << "  every cached layer x every token\n"
              << "  resident  " << bytes(u(r, "sequence_bytes_resident"))
              << "  windows capped (one a slot), plus each slot's state\n"
              << "  llamacpp  " << bytes(u(r, "sequence_bytes_llamacpp"))
              << "  what llama.cpp allocates (padding, slots, window + ubatch)\n";
    std::cout << "\nKV cache, " << str(r, "accounting") << ": " << bytes(u(r, "kv_bytes")) << "\n"
              << std::flush;
    print_warnings(r);
}

}  // namespace

// The reading of argv every command shares: usage problems exit 2, bad values 1.
std::optional<int> argument_problem(const Args& a) {
    if (a.usage_problem) return usage_error(*a.usage_problem);
    if (a.bad_value) return report_error(*a.bad_value, a.json_output);
    return std::nullopt;
}

int run_size(int argc, char** argv, int first) {
    Args a = parse_args(argc, argv, first, size_command, true);
    if (auto problem = argument_problem(a)) return *problem;
    if (a.positional.size() != 1) return usage_error("size takes one CONFIG");
    auto text = read_config_arg(a.positional[0]);
    if (!text) return report_error(text.error(), a.json_output);
    auto model = read_config(*text);
    if (!model) return report_error(model.error(), a.json_output);
    auto options = read_options(a.options, size_command);
    if (!options) return report_error(options.error(), a.json_output);
    auto r = size_report(*model, *options);
    if (!r) return report_error(r.error(), a.json_output);
    if (a.json_output) {
        std::cout << to_text(*r, 2) << "\n" << std::flush;
        print_warnings(*r);
    } else if (r->contains("llamacpp")) {
        print_llamacpp(*r);
    } else {
        print_plain(*r);
    }
    return exit_ok;
}

int run_presets(int argc, char** argv, int first) {
    Args a = parse_args(argc, argv, first, Command{}, true);
    if (auto problem = argument_problem(a)) return *problem;
    Session session;
    auto list = presets_report(session);
    if (a.json_output) {
        std::cout << to_text(*list, 2) << "\n";
        return exit_ok;
    }
    for (const auto& p : *list)
        std::cout << p["id"].get<std::string>() << "  " << p["attention_kind"].get<std::string>() << "\n";
    return exit_ok;
}

int run_gpus(int argc, char** argv, int first) {
    Args a = parse_args(argc, argv, first, Command{}, true);
    if (auto problem = argument_problem(a)) return *problem;
    auto list = parse_json_text(gpu_presets_json());
    if (a.json_output) {
        std::cout << to_text(*list, 2) << "\n";
        return exit_ok;
    }
    for (const auto& g : *list)
        std::cout << g["id"].get<std::string>() << "  " << g["name"].get<std::string>() << ", "
                  << g["memory_gib"].get<std::string>() << " GiB as CUDA reports it"
                  << (g["measured"].get<bool>() ? "" : " (estimated)") << "\n";
    return exit_ok;
}

int run_architectures(int argc, char** argv, int first) {
    Args a = parse_args(argc, argv, first, Command{}, true);
    if (auto problem = argument_problem(a)) return *problem;
    const json inventory = architectures_json();
    if (a.json_output) {
        std::cout << to_text(inventory, 2) << "\n";
        return exit_ok;
    }
    for (const auto& r : inventory["architectures"])
        std::cout << r["architecture"].get<std::string>() << "  " << r["support"].get<std::string>() << ": "
                  << r["caches"].get<std::string>() << "\n";
    // The defaults as --json lists them: the value is JSON (null: None, or derived as the meaning says).
    std::cout << "\nconfig-class defaults, taken when a config leaves the field out:\n";
    for (const auto& d : inventory["class_defaults"]) {
        const std::string source = d["source"].get<std::string>();
        std::cout << d["model_type"].get<std::string>() << "  " << d["config_class"].get<std::string>()
                  << "  " << d["field"].get<std::string>() << " = " << to_text(d["value"], -1) << ": "
                  << d["meaning"].get<std::string>() << (source.empty() ? "" : " (" + source + ")") << "\n";
    }
    std::cout
        << "\nthe text model class a wrapper's config builds when its text_config names no model_type:\n";
    for (const auto& w : inventory["wrapper_text_classes"])
        std::cout << w["wrapper"].get<std::string>() << "  " << w["wrapper_class"].get<std::string>()
                  << "  -> " << w["text_model_type"].get<std::string>()
                  << (w["from_root"].get<bool>() ? " (also from the root's fields)" : "") << " ("
                  << w["source"].get<std::string>() << ")\n";
    return exit_ok;
}

}  // namespace kvcalc::cli
