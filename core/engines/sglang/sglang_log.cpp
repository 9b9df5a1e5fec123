// SGLang's startup log lines: the KV cache it allocated (tokens, K and V sizes), its scheduler's
// pool and limits, its split pools for sliding-window and Mamba models.
#include "check/log_reader.hpp"

namespace kvcalc {

using namespace scan;  // NOLINT: the scanner's vocabulary, throughout

void LogReader::sglang_lines(std::string_view s) {
    each_after(s, "KV Cache is allocated. #tokens:", [&](std::size_t p, std::size_t) {
        std::size_t end = 0;
        auto n = read_count(s, skip_spaces(s, p), &end);
        if (!n) return;
        sglang();
        log_.sglang_tokens = LogCount{*n, line_};
        std::string what = format("SGLang KV cache allocated: {} tokens", grouped(*n));
        auto sized = [&](const char* label, std::optional<LogMemory>& slot) {
            std::size_t q = s.find(label, end);
            if (q == npos) return;
            slot = read_memory(s, q + std::string_view(label).size(), line_);
            if (slot) format_to(what, ", {}{}", label, slot->text);
        };
        sized("K size: ", log_.k_size);
        if (log_.k_size)
            sized("V size: ", log_.v_size);
        else
            sized("KV size: ", log_.kv_size);  // MLA: one latent
        found(std::move(what));
    });
    auto count = [&](const char* key, std::optional<LogCount>& slot, const char* said) {
        each_key(s, key, [&](std::size_t p) {
            auto n = read_count(s, skip_spaces(s, p));
            if (!n) return;
            sglang();
            slot = LogCount{*n, line_};
            found(format("SGLang {} {}", said, grouped(*n)));
        });
    };
    count("max_total_num_tokens=", log_.max_total_num_tokens, "max_total_num_tokens");
    count("max_running_requests=", log_.max_running_requests, "max_running_requests");
    count("max_mamba_cache_size:", log_.mamba_cache_size, "Mamba cache: concurrent states");
    each_key(s, "context_len=", [&](std::size_t p) {
        auto n = read_count(s, p);
        if (!n) return;
        sglang();
        log_.context_len = LogCount{*n, line_};
        set_len(*n, 3, "SGLang's context_len");
        found(format("SGLang context_len {}", grouped(*n)));
    });
    each_after(s, "full_layer_tokens=", [&](std::size_t p, std::size_t) {
        auto n = read_count(s, p);
        if (!n) return;
        sglang();
        log_.full_layer_tokens = LogCount{*n, line_};
        const std::size_t q = s.find("swa_layer_tokens=", p);
        const std::uint64_t w = q != npos ? read_count(s, q + 17).value_or(0) : 0;
        if (w) log_.swa_layer_tokens = LogCount{w, line_};
        found(w ? format("SGLang sliding-window pools: {} tokens for full layers, {} for sliding layers",
                         grouped(*n), grouped(w))
                : format("SGLang sliding-window pools: {} tokens for full layers", grouped(*n)));
    });
}

// SGLang's version, where a paste holds it: the server prints none of its own, but issue reports
// carry python3 -m sglang.check_env's "sglang: 0.5.11", the template's "SGLang version: 0.5.11", a
// pip pin "sglang==0.5.9" or the image "lmsysorg/sglang:v0.5.16". And whether the server runs one side
// of prefill-decode disaggregation (its server args' disaggregation_mode, or the flag).
void LogReader::sglang_setup(std::string_view s) {
    for (const char* key : {"sglang: ", "SGLang version: ", "sglang==", "lmsysorg/sglang:v"})
        each_after(s, key, [&](std::size_t p, std::size_t at) {
            if (at > 0 && (is_word(s[at - 1]) || s[at - 1] == '-')) return;  // "sgl_kernel", "python-sglang"
            const std::string v = read_word(s, p);
            if (v.empty() || !is_digit(v[0]) || v.find('.') == std::string::npos) return;
            if (v != sglang_version_) found(format("SGLang version {}", v));
            sglang_version_ = v;
            sglang_version_line_ = line_;
        });
    for (const char* key : {"disaggregation_mode=", "--disaggregation-mode"})
        each_key(s, key, [&](std::size_t p) {
            const std::string v = read_word(s, p);
            if (v != "prefill" && v != "decode" && v != "null") return;
            if (v != log_.disaggregation_mode) found(format("SGLang disaggregation_mode {}", v));
            log_.disaggregation_mode = v;
            log_.disaggregation_mode_line = line_;
        });
}

}  // namespace kvcalc
