#include "engines/llamacpp/llamacpp_check.hpp"

#include <algorithm>

#include "api.hpp"
#include "check/check_log.hpp"
#include "engines/llamacpp/llamacpp_log_check.hpp"
#include "engines/llamacpp/llamacpp_report.hpp"
#include "report.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {
namespace {

constexpr std::uint64_t b_streams = 5913;  // a stream per slot, or one unified (#14363)

// A sliding-window cache: one request of M tokens needs min(M, window + ubatch) of its cells a
// stream, the window and one ubatch (llama-kv-cache-iswa.cpp sizes it so).
struct SwaCells {
    std::uint64_t cells = 0, window = 0, ubatch = 0;
    std::string from;
};

// What a slot holds, and how the slots share it.
struct Slots {
    std::uint64_t max_context = 0;
    std::string max_context_source;
    Sourced slot;  // a slot's cells, before the n_ctx_train cap
    std::uint64_t n_ctx = 0, seqs = 1;
    bool shared = false;      // one stream the slots share (kv_unified, b5913 on)
    bool split = false;       // one cache split evenly among the slots (before b5913)
    std::uint64_t train = 0;  // n_ctx_train, which llama-server caps a slot at (0: unknown)
    std::string host;         // "llama-server", "llamacpp", "ollama", "lmstudio"
    std::vector<SwaCells> swa;
};

// fits, the slot, the concurrency and the advice, in the terms of the host: llama.cpp's -c, --parallel
// and --kv-unified, Ollama's num_ctx, LM Studio's context length.
void slot_verdict(const Slots& s, json& j, json& warnings) {
    const std::uint64_t M = s.max_context, seqs = s.seqs;
    const std::uint64_t slot = s.train ? std::min(s.slot.value, s.train) : s.slot.value;
    bool fits = M <= slot;
    std::string swa_bound;
    for (const SwaCells& w : s.swa) {
        const std::uint64_t need = std::min(M, w.window + w.ubatch);
        if (need <= w.cells) continue;
        fits = false;
        swa_bound = format(
            "the sliding-window cache holds {} cells a stream ({}); a request of {} tokens "
            "needs min({}, window {} + ubatch {}) = {}",
            grouped(w.cells), w.from, grouped(M), grouped(M), grouped(w.window), grouped(w.ubatch),
            grouped(need));
    }
    // Requests of M tokens at once: each slot one, or as many as the one shared stream holds.
    const std::uint64_t at_once = !fits ? 0 : s.shared ? std::min(seqs, s.n_ctx / M) : seqs;
    const bool ollama = s.host == "ollama", lmstudio = s.host == "lmstudio";
    std::vector<std::string> advice;
    if (fits) {
        advice.push_back(
            format("Fits: each of the {} slots holds {} tokens; a request of {} fits{}.", seqs, grouped(slot),
                   grouped(M),
                   s.shared && at_once < seqs
                       ? format(", but the {} slots share {} cells: {} such requests fit at once", seqs,
                                grouped(s.n_ctx), at_once)
                       : std::string()));
    } else if (!swa_bound.empty()) {
        advice.push_back(format("Does not fit: {}.", swa_bound));
        advice.push_back("Give the sliding-window layers more cells: --ubatch-size, or --swa-full.");
    } else {
        const bool capped = s.train && s.train < s.slot.value;
        advice.push_back(format(
            "Does not fit: a slot holds {} tokens ({} cells, {}{}), a request of {} needs more.",
            grouped(slot), grouped(s.slot.value), s.slot.source,
            capped ? format(", capped at n_ctx_train {}", grouped(s.train)) : std::string(), grouped(M)));
        const std::uint64_t need = s.shared ? M : M * seqs;
        if (s.train && M > s.train)
            advice.push_back(format("The model was trained for {} tokens; llama-server caps a slot there.",
                                    grouped(s.train)));
        else if (ollama)
            advice.push_back(
                format("Set num_ctx {} (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in the Modelfile): "
                       "Ollama gives each of its {} slots num_ctx (OLLAMA_NUM_PARALLEL).",
                       M, seqs));
        else if (lmstudio)
            advice.push_back(format("Set the context length to {} (llama.cpp's -c{}).", need,
                                    seqs > 1 && !s.shared ? format(", split among {} sequences", seqs) : ""));
        else
            advice.push_back(format("Set -c {}{} (llama.cpp splits -c among {} slots{}){}.", need,
                                    s.shared ? "" : format(" = {} x {}", M, seqs), seqs,
                                    s.shared  ? ", which share one stream"
                                    : s.split ? ""
                                              : " unless --kv-unified",
                                    seqs > 1 && !s.shared
                                        ? format(", or --parallel {} so each slot gets more",
                                                 std::max<std::uint64_t>(1, s.n_ctx / M))
                                        : ""));
    }
    advice.push_back(format("Test it: a prompt of {} tokens must get an error, not a truncated answer.",
                            grouped((fits ? M : slot) + 1)));
    set_member(j, "slot_context", slot);
    set_member(j, "slot_context_source", s.slot.source);
    set_member(j, "n_seq_max", seqs);
    set_member(j, "kv_unified", s.shared);
    set_member(j, "fits", fits);
    set_member(j, "fits_by", "slot");
    set_member(j, "max_concurrency", at_once);
    set_member(j, "max_concurrency_text", format("{}", at_once));
    set_member(j, "max_safe_context", slot);
    set_member(
        j, "max_safe_context_source",
        s.train && s.train < s.slot.value ? "the model's n_ctx_train, which caps a slot" : s.slot.source);
    set_member(j, "concurrency", nullptr);
    set_member(j, "concurrency_fits", nullptr);
    set_member(j, "advice", advice);
    if (s.train && M > s.train)
        warnings.push_back({{"field", "max_context"},
                            {"message", format("the advertised context {} is above the model's own {}",
                                               grouped(M), grouped(s.train))}});
}

// The log's part of the report: what it says it served, and the lines read.
json log_json(const LlamaLog& log, const LlamaLogReading& r) {
    auto setting = [](const json& value, const std::string& from) {
        json s;
        set_member(s, "value", value);
        set_member(s, "from", from);
        return s;
    };
    json served;
    set_member(served, "build", setting(r.build, r.build_from));
    set_member(served, "n_ctx", setting(r.n_ctx.value, r.n_ctx.source));
    set_member(served, "n_seq_max", setting(r.n_seq_max.value, r.n_seq_max.source));
    set_member(served, "kv_unified", setting(r.kv_unified, r.kv_unified_from));
    set_member(served, "flash_attn", setting(r.flash_attn, r.flash_attn_from));
    set_member(served, "swa_full", setting(r.swa_full, r.swa_full_from));
    set_member(served, "cache_type_k", setting(r.type_k, r.types_from));
    set_member(served, "cache_type_v", setting(r.type_v, r.types_from));
    set_member(served, "n_ubatch", setting(r.n_ubatch.value, r.n_ubatch.source));
    set_member(served, "n_batch", setting(r.n_batch.value, r.n_batch.source));
    json j;
    set_member(j, "engine", log.engine);
    set_member(j, "version", r.version);
    set_member(j, "build_low", r.build_low);
    set_member(j, "build_high", r.build_high);
    set_member(j, "served", std::move(served));
    set_member(j, "understood", findings_json(log.understood));
    set_member(j, "notes", r.notes);
    return j;
}

}  // namespace

Result<json> llamacpp_check_report(const Model& model, const Options& o, const LlamaLog* log) {
    if (!log && !o.max_context)
        return field_error(code::missing_field, "max_context",
                           "missing (the context the deployment advertises to each request)");
    json j, warnings = json::array(), llamacpp, cross_checks = json::array(), log_report = nullptr;
    Slots s;
    std::uint64_t kv_bytes = 0;
    std::string pool_source, verdict_source = "kvcalc";
    if (log) {
        auto read = read_llamacpp_log(model.spec, *log, o);
        if (!read) return read.forward_error();
        const LlamaLogReading& r = *read;
        s.max_context = o.max_context ? *o.max_context : r.advertised.value;
        s.max_context_source = o.max_context ? "max_context" : r.advertised.source;
        s.slot = r.slot_cells;
        s.n_ctx = r.alloc.n_ctx;
        s.seqs = r.alloc.n_seq_max;
        s.shared = r.kv_unified && r.build >= b_streams;
        s.split = r.build < b_streams;
        s.train = r.n_ctx_train.value_or(0);
        s.host = log->engine;
        for (const LlamacppObject& obj : r.alloc.objects)
            if (obj.cache == LlamacppCache::swa)
                s.swa.push_back({obj.cells, r.plan->swa_window(), r.alloc.n_ubatch,
                                 "kvcalc's, as the log's build allocates"});
        llamacpp = allocation_json(r.alloc, *r.plan);
        kv_bytes = r.alloc.bytes;
        pool_source = format("the engine log's cells: n_ctx {} ({} x {} cells)", grouped(r.alloc.n_ctx),
                             r.alloc.n_stream, grouped(r.alloc.n_ctx_seq));
        cross_checks = cross_checks_json(r.checks);
        std::size_t disagree = 0;
        for (const CrossCheck& c : r.checks)
            disagree += c.agree ? 0 : 1;
        verdict_source =
            disagree ? "the engine's printed cells, where kvcalc's derivation differs (see cross_checks)"
                     : "the engine's printed cells, which kvcalc's derivation reproduces";
        for (const Warning& w : r.warnings)
            warnings.push_back({{"field", w.field}, {"message", w.message}});
        if (disagree)
            warnings.push_back(
                {{"field", "engine_log"},
                 {"message", format("{} of the engine's printed figures disagree{} with kvcalc's "
                                    "derivation (see cross_checks)",
                                    grouped(disagree), disagree == 1 ? "s" : "")}});
        log_report = log_json(*log, r);
    } else {
        auto size = size_report(model, o);
        if (!size) return size.forward_error();
        const json& r = *size;
        llamacpp = r["llamacpp"];
        const std::uint64_t build = llamacpp["build"].get<std::uint64_t>();
        s.max_context = *o.max_context;
        s.max_context_source = "max_context";
        s.n_ctx = llamacpp["n_ctx"].get<std::uint64_t>();
        s.seqs = llamacpp["n_seq_max"].get<std::uint64_t>();
        s.shared = llamacpp["kv_unified"].get<bool>() && build >= b_streams;
        s.split = build < b_streams;
        // Before b5913 one cache holds every sequence, and llama-server gives each slot n_ctx / n_parallel.
        s.slot = s.split ? Sourced{s.n_ctx / s.seqs,
                                   "n_ctx / n_seq_max: one cache split among the slots (before b5913)"}
                         : Sourced{llamacpp["n_ctx_seq"].get<std::uint64_t>(),
                                   s.shared ? "n_ctx_seq: one stream shared by the slots"
                                            : "n_ctx_seq: a stream of cells a slot"};
        s.train = model.spec.max_context.value;
        s.host = llamacpp["host"].get<std::string>();
        for (const json& m : llamacpp["memory"])
            if (m["cache"] == "swa")
                s.swa.push_back({m["cells"].get<std::uint64_t>(), llamacpp["n_swa"].get<std::uint64_t>(),
                                 llamacpp["n_ubatch"].get<std::uint64_t>(), "its cells"});
        kv_bytes = r["kv_bytes"].get<std::uint64_t>();
        pool_source = format("llama.cpp's cells: n_ctx {} ({} x {} cells)", grouped(s.n_ctx),
                             llamacpp["n_stream"].get<std::uint64_t>(),
                             grouped(llamacpp["n_ctx_seq"].get<std::uint64_t>()));
        warnings = r["warnings"];
        set_member(j, "model", r["model"]);
    }
    if (log) set_member(j, "model", model.spec.name);
    set_member(j, "engine", "llamacpp");
    set_member(j, "llamacpp_host", s.host);
    set_member(j, "pool_tokens", s.n_ctx);
    set_member(j, "pool_source", pool_source);
    set_member(j, "max_context", s.max_context);
    set_member(j, "max_context_source", s.max_context_source);
    set_member(j, "model_max_context", s.train ? json(s.train) : json(nullptr));
    slot_verdict(s, j, warnings);
    set_member(j, "verdict_source", verdict_source);
    set_member(j, "kv_bytes", kv_bytes);
    set_member(j, "llamacpp", std::move(llamacpp));
    set_member(j, "log", std::move(log_report));
    set_member(j, "cross_checks", std::move(cross_checks));
    set_member(j, "warnings", std::move(warnings));
    return j;
}

}  // namespace kvcalc
