// libFuzzer target over the engine-log reader and the check that reads a log against a model
// (scripts/fuzz.sh runs it beside fuzz_config, with ASan and UBSan). Besides crashes, it checks
// what any accepted log must keep: every figure read comes with a line of the text, a memory
// figure's range holds its printed value, and the check always answers, with a pool in whole
// blocks where it reports one.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api.hpp"
#include "check/engine_log.hpp"
#include "config/json.hpp"

namespace {

void require(bool ok) {
    if (!ok) std::abort();
}

void check_memory(const std::optional<kvcalc::LogMemory>& m, int lines) {
    if (!m) return;
    require(m->low <= m->bytes && m->bytes <= m->high);
    require(m->line >= 1 && m->line <= lines);
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
        if (!r["pool_blocks"].is_null() && !r["log_blocks"].is_null())
            require(r["pool_bytes_per_gpu"].get<std::uint64_t>() ==
                    r["pool_blocks"].get<std::uint64_t>() *
                        r["log_blocks"]["block_bytes_per_gpu"].get<std::uint64_t>());
        for (const auto& c : r["cross_checks"])
            require(c["agree"].is_boolean() && !c["text"].get<std::string>().empty());
    }
    return 0;
}
