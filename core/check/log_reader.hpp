// The engine log reader's state over the lines of one paste (the check's internal header):
// what every engine's line readers share (the findings, the restarts, the ranks, the max
// model length by priority). The readers of each engine's lines are its members, defined in
// the engine's folder; parse_engine_log (engine_log.cpp) drives them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "check/engine_log.hpp"
#include "check/log_scan.hpp"

namespace kvcalc {

// Forgets what vLLM's lines said of the pool: a new start in the same paste replaces it, and a
// paste read as SGLang's drops it.
void forget_vllm_pool(EngineLog& log);

class LogReader {
public:
    explicit LogReader(std::string_view engine) : only_(engine) {}

    void line(std::string_view text, std::string_view next, int no);
    Result<EngineLog> finish();

private:
    EngineLog log_;
    std::string only_;  // the engine asked for, when the paste holds both
    int line_ = 0;
    std::string_view text_;
    int vllm_line_ = 0, sglang_line_ = 0;
    int len_priority_ = 0;
    bool closed_ = false;  // the current start has stated its pool: a memory line now begins the next
    std::vector<bool> tp_seen_;
    // Per process prefix: vLLM's DEBUG "Requested memory: ... X GiB" and "Total non KV cache
    // memory: Y GiB", whose difference is a rank's KV memory when it prints no INFO line of it.
    struct Rank {
        std::string prefix;
        std::optional<LogMemory> requested, non_kv;
        bool stated = false;  // printed its "Available KV cache memory"
    };
    std::vector<Rank> ranks_;
    // SGLang's version where the paste states it (its check_env, pip or image lines), kept apart from
    // vLLM's until the paste's engine is known.
    std::string sglang_version_;
    int sglang_version_line_ = 0;

    // A line used: said once, however many ranks repeat it.
    void found(std::string what) {
        for (LogFinding& f : log_.understood)
            if (f.what == what) {
                ++f.repeats;
                return;
            }
        log_.understood.push_back({line_, 0, std::move(what), scan::shown(text_)});
    }
    void vllm() { vllm_line_ = vllm_line_ ? vllm_line_ : line_; }
    void sglang() { sglang_line_ = sglang_line_ ? sglang_line_ : line_; }
    // The engine's max model length, from the most telling line that states it: what it
    // logged while running (3, 4) over its config line (2) over the arguments it was given (1).
    bool set_len(std::uint64_t n, int priority, const char* what) {
        if (priority < len_priority_ || n == 0) return false;
        const bool same = log_.max_model_len && log_.max_model_len->value == n && priority == len_priority_;
        len_priority_ = priority;
        log_.max_model_len = LogCount{n, line_};
        log_.max_model_len_what = what;
        return !same;
    }
    // A line that opens a start (its memory, its padding, a refusal) after the previous start
    // stated its pool: a restart in the same paste, whose figures replace the earlier start's.
    void lead() {
        if (!closed_) return;
        closed_ = false;
        len_priority_ = 0;
        forget_vllm_pool(log_);
        log_.padding_layers.reset();
        log_.cp_multiplier.reset();
        log_.auto_fit_from.reset();
        log_.notes.push_back(
            format("line {}: a new start begins; the figures of the start before it are left out", line_));
    }
    // Per GPU: the smallest any rank of this start states.
    void memory(const LogMemory& m, const char* what) {
        lead();
        if (!log_.kv_memory || m.high < log_.kv_memory->high) {
            log_.kv_memory = m;
            log_.kv_memory_what = what;
        }
    }
    // A line that states the pool ends a start: its ranks' memory is settled.
    void pool_line() {
        settle_ranks();
        closed_ = true;
    }
    void settle_ranks();
    Rank& rank(std::string_view text);
    void ranks(std::string_view text);

    void deployment(std::string_view s);
    // Each engine's lines, in its folder: core/engines/vllm/vllm_log.cpp, core/engines/sglang/sglang_log.cpp.
    void vllm_pool(std::string_view s);
    void vllm_memory(std::string_view s);
    void vllm_refusal(std::string_view s, std::string_view next);
    void vllm_other(std::string_view s);
    void sglang_lines(std::string_view s);
    void sglang_setup(std::string_view s);
};

}  // namespace kvcalc
