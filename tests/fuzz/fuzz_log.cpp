// libFuzzer target over the engine-log readers (vLLM/SGLang's and llama.cpp/Ollama/LM Studio's)
// and the check that reads a log against a model (scripts/fuzz.sh runs it beside fuzz_config,
// with ASan and UBSan, seeded with every stored log under tests/fixtures/engine-logs, the
// llamacpp/ folder's included). Besides crashes, it checks what any accepted log must keep: every
// figure read comes with a line of the text, a memory figure's range holds its printed value,
// and the check always answers, with a pool in whole blocks where it reports one.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api.hpp"
#include "check/engine_log.hpp"
#include "config/json.hpp"
#include "engines/llamacpp/llamacpp_log.hpp"

namespace {

void require(bool ok) {
    if (!ok) std::abort();
}

void check_memory(const kvcalc::LogMemory& m, int lines) {
    require(m.low <= m.bytes && m.bytes <= m.high);
    require(m.line >= 1 && m.line <= lines);
}

void check_memory(const std::optional<kvcalc::LogMemory>& m, int lines) {
    if (m) check_memory(*m, lines);
}

void check_count(const std::optional<kvcalc::LogCount>& c, int lines) {
    if (c) require(c->line >= 1 && c->line <= lines);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    int lines = 1;
    for (char c : text)
        lines += c == '\n' ? 1 : 0;
    for (const char* engine : {"", "vllm", "sglang"}) {
        auto log = kvcalc::parse_engine_log(text, engine);
        if (!log) {
            require(log.error().code == "unrecognised_log" && log.error().field == "engine_log");
            require(!log.error().message.empty());
            continue;
        }
        require(log->engine == "vllm" || log->engine == "sglang");
        for (const auto& f : log->understood)
            require(f.line >= 1 && f.line <= lines && !f.what.empty() && f.text.size() <= 240);
        check_memory(log->kv_memory, lines);
        check_memory(log->k_size, lines);
        check_memory(log->v_size, lines);
        check_memory(log->kv_size, lines);
        for (const auto* c : {&log->pool_tokens, &log->gpu_blocks, &log->max_model_len, &log->tp, &log->pp,
                              &log->sglang_tokens, &log->max_total_num_tokens, &log->padding_layers,
                              &log->num_speculative_tokens})
            check_count(*c, lines);
        if (log->concurrency) require(log->concurrency->line >= 1 && log->concurrency->line <= lines);
    }
    // llama.cpp's reader: an error names the field, or the run it chose states a cache, and every
    // figure of every run carries a line of the text.
    auto llama = kvcalc::parse_llamacpp_log(text);
    if (!llama) {
        require(llama.error().code == "unrecognised_log" && llama.error().field == "engine_log");
        require(!llama.error().message.empty());
    } else {
        require(llama->engine == "llamacpp" || llama->engine == "ollama" || llama->engine == "lmstudio");
        require(!llama->runs.empty() && llama->chosen < llama->runs.size() && llama->run().states_cache());
        for (const auto& f : llama->understood)
            require(f.line >= 1 && f.line <= lines && !f.what.empty() && f.text.size() <= 240);
        for (const auto& run : llama->runs) {
            require(run.first_line >= 1 && run.first_line <= run.last_line && run.last_line <= lines);
            for (const auto& c : run.caches) {
                require(c.line >= 1 && c.line <= lines);
                check_memory(c.total, lines);
                check_memory(c.k, lines);
                check_memory(c.v, lines);
                for (const auto* n : {&c.cells, &c.layers, &c.seqs, &c.streams, &c.rs_seq})
                    check_count(*n, lines);
            }
            for (const auto& b : run.buffers)
                check_memory(b.size, lines);
            for (const auto& b : run.ollama_kv_devices)
                check_memory(b.size, lines);
            check_memory(run.ollama_required_kv, lines);
            for (const auto* n :
                 {&run.n_ctx, &run.n_ctx_seq, &run.n_seq_max, &run.n_ubatch, &run.kv_size, &run.swa_cells,
                  &run.non_swa_cells, &run.n_slots, &run.n_ctx_slot, &run.build})
                check_count(*n, lines);
            for (const auto& m : run.metadata)
                require(m.line >= 1 && m.line <= lines && !m.key.empty());
        }
    }
    // The check of that log against a plain and a hybrid model answers, whatever the log says.
    const std::string options = kvcalc::to_text(kvcalc::json{{"engine_log", text}, {"max_context", 8192}});
    // Qwen3.5 also takes the speculative tokens and the Mamba cache mode a log's arguments state.
    for (const char* model : {"meta-llama/Llama-3.1-8B", "openai/gpt-oss-20b", "Qwen/Qwen3.5-27B"}) {
        auto out = kvcalc::parse_json_text(kvcalc::check_json(model, options));
        require(out.ok());
        const kvcalc::json& r = *out;
        if (r.contains("error")) {
            require(r["error"]["code"].is_string() && !r["error"]["message"].get<std::string>().empty());
            continue;
        }
        // A llama.cpp log's report has no vLLM blocks: read a member only where it is (operator[] of a
        // const json on a missing key is undefined, and ASan saw it read freed memory).
        require(r.contains("cross_checks") && r["cross_checks"].is_array());
        if (r.contains("pool_blocks") && r.contains("log_blocks") && !r["pool_blocks"].is_null() &&
            !r["log_blocks"].is_null())
            require(r["pool_bytes_per_gpu"].get<std::uint64_t>() ==
                    r["pool_blocks"].get<std::uint64_t>() *
                        r["log_blocks"]["block_bytes_per_gpu"].get<std::uint64_t>());
        for (const auto& c : r["cross_checks"])
            require(c["agree"].is_boolean() && !c["text"].get<std::string>().empty());
    }
    return 0;
}
