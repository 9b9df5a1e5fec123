// Reading a llama.cpp, Ollama or LM Studio startup log as people paste it: the KV lines of every
// llama.cpp era (LLAMACPP.md section 2.1), the context lines around them, the per-device buffer
// lines, the model's metadata dump, and Ollama's estimate and runner lines. Pastes come with
// colour codes, CRLF, timestamps ("0.00.197.403 I "), journald and docker prefixes, Ollama's
// "time=... level=INFO source=..." prefix, and lines Markdown cut or joined. Every figure keeps
// the line it came from, so the check can hold each one against what kvcalc derives from the
// model. A hand-written scanner (no std::regex: it would weigh on the wasm module).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/engine_log.hpp"  // LogCount, LogMemory, LogFinding
#include "result.hpp"

namespace kvcalc {

// Which memory object a summary line describes.
enum class LlamaCacheKind {
    attention,  // the one attention cache (every era's "KV self size", or "size =" outside iSWA)
    non_swa,    // iSWA: the cache of the full-attention layers ("creating non-SWA KV cache")
    swa,        // iSWA: the cache of the sliding-window layers
    recurrent,  // llama_memory_recurrent: recurrent and conv state, one cell per sequence
};

// One memory object's summary line, as printed. Older eras print fewer parts (LLAMACPP.md 2.1):
// "kv self size  = X MiB" (to 2023-12) has the total only; "KV self size  = X MiB, K (f16): Y MiB,
// V (f16): Z MiB" adds K and V; "size = X MiB (N cells, L layers[, S seqs | S/T seqs]), K ..."
// (b5429 on) adds cells, layers and sequences. A recurrent line gives R and S where K and V are.
struct LlamaCacheLine {
    LlamaCacheKind kind = LlamaCacheKind::attention;
    std::string function;  // the printing function: "llama_kv_cache", "llama_new_context_with_model", ...
    LogMemory total;       // MiB with two decimals (the "MB" of 2023 builds is 2^20 B too)
    std::optional<LogCount> cells, layers;
    std::optional<LogCount> seqs;     // n_seq_max ("4/1 seqs", "4 seqs")
    std::optional<LogCount> streams;  // n_stream, b5913 on ("4/1 seqs": one stream, unified)
    std::optional<LogCount> rs_seq;   // recurrent rollback snapshots per sequence, b9191 on
    std::string type_k, type_v;       // "f16", "q8_0"; recurrent: the R and S types ("f32")
    std::optional<LogMemory> k, v;    // recurrent: R and S
    int line = 0;
};

// A per-device buffer line: "CUDA0 KV buffer size = 3072.00 MiB", "Meta() RS buffer size = ...",
// or the 2023-24 "VRAM kv self = 162.50 MB". Backend alignment and CUDA's row padding make these
// larger than the summary for quantized caches (LLAMACPP.md 1.10): the summary is the one to hold
// against the arithmetic, these tell where the cache lives.
struct LlamaBufferLine {
    std::string device;      // "CUDA0", "CPU", "Metal", "Vulkan1", "VRAM"
    bool recurrent = false;  // an RS buffer (recurrent state), else a KV buffer
    LogMemory size;
    int line = 0;
};

// One key of the model's metadata dump ("llama_model_loader: - kv  12: gpt-oss.attention.head_count_kv
// u32 = 8") or of the print_info / llm_load_print_meta block ("n_layer = 24").
struct LlamaMetaLine {
    std::string key;    // "gpt-oss.block_count"; print_info's: "print_info.n_layer"
    std::string type;   // "u32", "str", "arr[i32,16]"; "" for print_info lines
    std::string value;  // as printed, trimmed ("" where a 2023 build printed no value)
    int line = 0;
};

// One start of the engine: a model load and its context. A paste may hold several (a restart, a
// second tool run, Ollama loading a model twice); each keeps its own figures.
struct LlamaRun {
    int first_line = 0, last_line = 0;
    std::optional<LogCount> build;  // "build: 6699 (c08002a1)", "main: build = 1795 (8f900ab)"
    std::string build_hash;

    // The context lines (llama_context / llama_new_context_with_model / llama_init_from_model).
    // From b4881 to b6980 n_ctx is printed before padding (LLAMACPP.md 1.3): read cells, not n_ctx.
    std::optional<LogCount> n_ctx, n_ctx_seq, n_seq_max, n_batch, n_ubatch, n_ctx_train;
    std::string flash_attn;  // as printed: "0", "1", "auto", "enabled", "disabled"
    int flash_attn_line = 0;
    std::string flash_attn_resolved;  // "Flash Attention was auto, set to enabled": "enabled"
    int flash_attn_resolved_line = 0;
    std::optional<bool> kv_unified;
    int kv_unified_line = 0;

    // The cache's creation line of b4xxx-b5428: "kv_size = 16352, type_k = 'f16', type_v = 'f16',
    // n_layer = 36, can_shift = 1, padding = 32".
    std::optional<LogCount> kv_size, kv_size_layers, padding;
    std::string init_type_k, init_type_v;
    // iSWA: "creating non-SWA KV cache, size = N cells", "creating     SWA KV cache, size = N cells".
    std::optional<LogCount> non_swa_cells, swa_cells;
    int swa_full_line = 0;  // "using full-size SWA cache"

    std::vector<LlamaCacheLine> caches;  // the summary lines, in order
    std::vector<LlamaBufferLine> buffers;

    // The server's slots: "n_slots = 4", "n_ctx_slot = 8192" (or "new slot, n_ctx = 8192",
    // "Slot 0 - max context: 512"): the context one request can use.
    std::optional<LogCount> n_slots, n_ctx_slot;

    std::vector<LlamaMetaLine> metadata;

    // Ollama, for this load: its estimate before the runner starts, the runner's command line,
    // and its measured per-device caches (v0.11.5 on).
    std::optional<LogMemory> ollama_required_kv;               // memory.required.kv="1.0 GiB" (one decimal)
    std::optional<LogCount> ollama_ctx_size, ollama_parallel;  // --ctx-size / -c, --parallel / -np
    std::string ollama_cache_type;                             // --cache-type-k of a llama-server runner
    std::vector<LlamaBufferLine> ollama_kv_devices;            // msg="kv cache" device=CUDA0 size="..."

    std::vector<std::string> failures;  // "failed to allocate buffer for kv cache" and the like

    // Whether this run states a cache: a summary, a buffer, a kv_size line, an iSWA creation
    // line, or Ollama's estimate or measurement.
    bool states_cache() const;
};

struct LlamaLog {
    // "llamacpp", "ollama" or "lmstudio", from what the lines show (Ollama's prefixes and version
    // line, LM Studio's markers); "llamacpp" when they show only llama.cpp's own lines.
    std::string engine;
    std::string ollama_version;  // "0.9.6" from "Listening on ... (version 0.9.6)"
    int ollama_version_line = 0;
    // Ollama's server config line (env="map[... OLLAMA_NUM_PARALLEL:0 ...]"), where stated.
    std::optional<LogCount> ollama_num_parallel, ollama_context_length, ollama_default_num_ctx;
    std::string ollama_kv_cache_type, ollama_flash_attention;

    std::vector<LlamaRun> runs;  // every start, in order
    // The run the figures below stand for: the last one that states a cache. A paste that holds
    // several starts describes the engine as it is after the last (a restart replaces what came
    // before); the earlier ones stay in `runs` and `notes` says they were left out.
    std::size_t chosen = 0;
    const LlamaRun& run() const { return runs[chosen]; }

    std::vector<LogFinding> understood;  // every line used, in order
    std::vector<std::string> notes;
};

// A log with no line that states a cache is an unrecognised_log error (field "engine_log") that
// says what was looked for and which lines were understood.
Result<LlamaLog> parse_llamacpp_log(std::string_view text);

// "non-SWA", "SWA", "recurrent", "attention": how messages name a memory object.
const char* cache_kind_name(LlamaCacheKind kind);

}  // namespace kvcalc
