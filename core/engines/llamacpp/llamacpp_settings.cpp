#include "engines/llamacpp/llamacpp_settings.hpp"

#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

// Builds where a default or an option changed (LLAMACPP.md 1.3, 1.4).
constexpr std::uint64_t b_flash_attn_auto = 6325;  // -fa auto, the default (#15434)
constexpr std::uint64_t b_streams = 5913;          // kv_unified and per-slot streams (#14363)
constexpr std::uint64_t b_auto_parallel = 6931;    // llama-server's -np auto: 4 unified slots (#16736)
constexpr std::uint64_t b_ctx_train = 7416;        // llama-server's -c 0 = n_ctx_train (#16653)
constexpr std::uint64_t b_ctx_4096 = 4464;         // a build known to default -c to 4096 (from #10136)
constexpr std::uint64_t b_swa_cache = 5429;        // SWA caches and --swa-full (#13194)

// "0.33.0", "v0.30.1-rc2": major and minor.
bool read_version(const std::string& text, std::uint64_t& major, std::uint64_t& minor) {
    std::size_t i = text.size() > 1 && text[0] == 'v' ? 1 : 0;
    auto number = [&](std::uint64_t& n) {
        const std::size_t from = i;
        n = 0;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - from < 6)
            n = n * 10 + static_cast<std::uint64_t>(text[i++] - '0');
        return i > from;
    };
    if (!number(major) || i >= text.size() || text[i] != '.') return false;
    ++i;
    if (!number(minor)) return false;
    return i == text.size() || text[i] == '.' || text[i] == '-';
}

}  // namespace

const char* llamacpp_host_name(LlamacppHost h) {
    return h == LlamacppHost::ollama ? "ollama" : h == LlamacppHost::lmstudio ? "lmstudio" : "llama-server";
}

Result<LlamacppSettings> llamacpp_settings(const LlamacppOptions& o) {
    LlamacppSettings s;
    s.host = o.host;
    const bool ollama = o.host == LlamacppHost::ollama, lmstudio = o.host == LlamacppHost::lmstudio;
    if (o.ollama_version && !ollama)
        return fail(code::bad_option, "ollama_version", "ollama_version applies to engine ollama only");
    if (ollama) {
        // Ollama v0.30.0 (#16031) runs llama-server itself; before, its own runners sized the cache
        // (llm/memory.go, kvcache/causal.go: LLAMACPP.md 4.1), which kvcalc does not model.
        s.ollama_version = o.ollama_version.value_or("0.33.0");
        std::uint64_t major = 0, minor = 0;
        if (!read_version(s.ollama_version, major, minor))
            return fail(code::bad_option, "ollama_version",
                        "ollama_version: must be a release like 0.33.0, got \"{}\"",
                        std::string_view(s.ollama_version).substr(0, 40));
        if (major == 0 && minor < 30)
            return fail(
                code::bad_option, "ollama_version",
                "ollama_version {}: Ollama before 0.30 sized the cache in its own runners, which kvcalc "
                "does not model; 0.30 and later run llama-server",
                s.ollama_version);
    }
    // The build whose rules apply: given, else the current rules (Ollama: its bundled build).
    if (o.build) {
        if (*o.build == 0 || *o.build > 1000000)
            return field_error(code::bad_option, "llamacpp_build", "must be a build number like 6981, got {}",
                               *o.build);
        s.build = {*o.build, "llamacpp_build"};
    } else if (ollama) {
        s.build = {ollama_bundled_build, "Ollama 0.33's llama.cpp"};
    } else {
        s.build = {llamacpp_current_build, "the current rules (b10573)"};
    }
    const std::uint64_t b = s.build.value;

    // Slots: -np; llama-server's -np auto (-1) is 4 unified slots since b6931 (tools/server/server.cpp
    // :152-157, #16736), and an explicit -np leaves kv_unified false (common/common.h:563). Ollama passes
    // -np num_parallel (OLLAMA_NUM_PARALLEL, default 1 since v0.9.7); LM Studio runs the library's
    // n_seq_max 1 (its 0.3.23 log).
    if (o.parallel) {
        if (*o.parallel == 0 || *o.parallel > llamacpp_max_seq)
            return fail(code::bad_option, "parallel",
                        "parallel {}: llama.cpp takes 1 to {} sequences (\"n_seq_max must be <= 256\")",
                        *o.parallel, llamacpp_max_seq);
        s.n_seq_max = {*o.parallel, "parallel"};
        s.kv_unified_source = "-np given: not unified";
    } else if (ollama) {
        s.n_seq_max = {1, "Ollama's OLLAMA_NUM_PARALLEL default"};
        s.kv_unified_source = "Ollama passes -np: not unified";
    } else if (lmstudio) {
        s.n_seq_max = {1, "LM Studio (llama.cpp's library default)"};
        s.kv_unified_source = "LM Studio (llama.cpp's library default)";
    } else if (b >= b_auto_parallel) {
        s.n_seq_max = {4, "llama-server's automatic -np (b6931+)"};
        s.kv_unified = true;
        s.kv_unified_source = "llama-server's automatic -np (b6931+)";
    } else {
        s.n_seq_max = {1, "llama-server's default"};
        s.kv_unified_source = "llama.cpp's default";
    }
    if (o.kv_unified) {
        if (b < b_streams)
            return fail(code::bad_option, "kv_unified",
                        "kv_unified: build {} predates it (b5913): one cache for all sequences", b);
        if (ollama && *o.kv_unified)
            return fail(code::bad_option, "kv_unified", "kv_unified: Ollama runs llama-server without it");
        s.kv_unified = *o.kv_unified;
        s.kv_unified_source = "kv_unified";
    }

    // Cache types: -ctk/-ctv, f16 by default (common/common.h:340-341). Ollama sets both from
    // OLLAMA_KV_CACHE_TYPE (llm/llama_server.go:394-396).
    s.type_k = find_ggml_type(o.cache_type_k.value_or("f16"));
    s.type_v = find_ggml_type(o.cache_type_v.value_or("f16"));
    if (!s.type_k || !s.type_v)  // the option table checks the names; a series' kv_dtypes axis does not
        return fail(code::bad_option, s.type_k ? "cache_type_v" : "cache_type_k",
                    "{}: must be f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1 or iq4_nl, got \"{}\"",
                    s.type_k ? "cache_type_v" : "cache_type_k",
                    std::string_view(s.type_k ? *o.cache_type_v : *o.cache_type_k).substr(0, 40));
    s.type_k_source = o.cache_type_k ? "cache_type_k" : "default";
    s.type_v_source = o.cache_type_v ? "cache_type_v" : "default";
    if (ollama && s.type_k != s.type_v)
        return fail(code::bad_option, o.cache_type_v ? "cache_type_v" : "cache_type_k",
                    "Ollama gives K and V one type (OLLAMA_KV_CACHE_TYPE), not {} and {}", s.type_k->name,
                    s.type_v->name);
    if (ollama && o.cache_type_k) s.type_k_source = s.type_v_source = "OLLAMA_KV_CACHE_TYPE";
    if (ollama && o.cache_type_v) s.type_k_source = s.type_v_source = "OLLAMA_KV_CACHE_TYPE";

    // Flash attention: -fa on|off|auto, auto by default since b6325 (#15434); before, a switch, off by
    // default. What counts is cparams.flash_attn when the cache is created: flash_attn_type !=
    // DISABLED, so auto is on there (src/llama-context.cpp).
    if (o.flash_attn) {
        if (*o.flash_attn == "auto" && b < b_flash_attn_auto)
            return fail(code::bad_option, "flash_attn",
                        "flash_attn auto: build {} predates it (b6325): give on or off", b);
        s.flash_attn = *o.flash_attn;
        s.flash_attn_source = "flash_attn";
    } else if (b >= b_flash_attn_auto) {
        s.flash_attn = "auto";
        s.flash_attn_source = ollama ? "Ollama's default on GPUs with flash attention" : "default (b6325+)";
    } else {
        s.flash_attn = "off";
        s.flash_attn_source = "default before b6325";
    }
    s.fa_at_creation = s.flash_attn != "off";
    // A quantized V cache needs flash attention: "V cache quantization requires flash_attn" (#7527, b3183);
    // now src/llama-context.cpp:3596-3605 turns auto on for it and refuses off.
    if (s.type_v->quantized() && !s.fa_at_creation)
        return fail(
            code::bad_option, "cache_type_v",
            "cache_type_v {}: llama.cpp refuses a quantized V cache without flash attention (\"V cache "
            "quantization requires flash_attn\"): give flash_attn on or auto",
            s.type_v->name);

    // Sliding-window caches: small unless --swa-full (common/common.h:562 false); llama.cpp's library
    // default is true (src/llama-context.cpp:3547), which LM Studio runs with ("using full-size SWA
    // cache" in its 0.3.23 log).
    if (o.swa_full) {
        if (b < b_swa_cache)
            return fail(code::bad_option, "swa_full",
                        "swa_full: build {} predates sliding-window caches (b5429)", b);
        s.swa_full = *o.swa_full;
        s.swa_full_source = "swa_full";
    } else if (lmstudio) {
        s.swa_full = true;
        s.swa_full_source = "LM Studio (llama.cpp's library default)";
    } else {
        s.swa_full_source = "llama-server's default";
    }

    // Batches: -b 2048 and -ub 512 (common/common.h:443-444); LM Studio's n_batch 512 (its 0.3.23 log).
    if (o.ubatch_size && *o.ubatch_size == 0)
        return field_error(code::bad_option, "ubatch_size", "must be a positive integer, got {}",
                           *o.ubatch_size);
    s.n_ubatch = o.ubatch_size ? Sourced{*o.ubatch_size, "ubatch_size"} : Sourced{512, "default"};
    s.n_batch = lmstudio ? Sourced{512, "LM Studio's"} : Sourced{2048, "default"};
    if (lmstudio && !o.build)
        s.warnings.push_back(
            {"llamacpp_build", "LM Studio's llama.cpp build is not known: the current rules apply"});
    return s;
}

Result<Sourced> llamacpp_default_context(const LlamacppSettings& s, const ModelSpec& m,
                                         std::vector<Warning>& warnings) {
    const std::uint64_t b = s.build.value;
    if (s.host == LlamacppHost::ollama) {
        // num_ctx by VRAM since v0.15.5: 262144 at 47 GiB or more, 32768 at 23 GiB, else 4096
        // (server/routes.go:2051-2058, envconfig/config.go:229-230).
        warnings.push_back(
            {"context",
             "Ollama's num_ctx default is 4,096 below 23 GiB of VRAM, 32,768 below 47, 262,144 "
             "above: 4,096 assumed"});
        return Sourced{4096, "Ollama's num_ctx default"};
    }
    if (s.host == LlamacppHost::lmstudio) {
        warnings.push_back({"context", "LM Studio's context length is a load setting: 4,096 assumed"});
        return Sourced{4096, "LM Studio's default"};
    }
    if (b >= b_ctx_train) {
        // -c 0: n_ctx_train (common/common.h:442, #16653); --fit, on by default, may then lower it.
        if (!m.max_context.value)
            return fail(code::missing_field, "context",
                        "no context length in the model ({}) for llama-server's default -c: give a context",
                        m.max_context.source);
        warnings.push_back({"context",
                            "llama-server's --fit (b7416+) may lower this default, to 4,096 at "
                            "least, where the model does not fit the free memory"});
        return Sourced{m.max_context.value,
                       format("llama-server's default -c: n_ctx_train ({})", m.max_context.source)};
    }
    if (b >= b_ctx_4096) return Sourced{4096, "llama-server's default -c"};
    return fail(code::missing_field, "context",
                "llama-server's default -c at build {} is not known: give a context", b);
}

Result<std::uint64_t> llamacpp_n_ctx(const LlamacppSettings& s, const ModelSpec& m, std::uint64_t context,
                                     std::vector<Warning>* warnings) {
    if (s.host != LlamacppHost::ollama) return context;
    std::uint64_t num_ctx = context;
    if (m.max_context.value && num_ctx > m.max_context.value) {
        num_ctx = m.max_context.value;
        if (warnings)
            warnings->push_back(
                {"context", format("Ollama clamps num_ctx {} to the model's context length {} "
                                   "(\"requested context size too large for model\")",
                                   grouped(context), grouped(num_ctx))});
    }
    auto n = mul(num_ctx, s.n_seq_max.value);
    if (!n)
        return field_error(code::overflow, "context", "num_ctx x parallel exceeds 2^53 - 1, got {}", context);
    return *n;
}

}  // namespace kvcalc
