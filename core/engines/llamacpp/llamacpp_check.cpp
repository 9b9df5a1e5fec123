#include "engines/llamacpp/llamacpp_check.hpp"

#include <algorithm>

#include "api.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {

Result<json> llamacpp_check_report(const Model& model, const Options& o) {
    if (!o.max_context)
        return field_error(code::missing_field, "max_context",
                           "missing (the context the deployment advertises to each request)");
    auto size = size_report(model, o);
    if (!size) return size.forward_error();
    const json& r = *size;
    const json& l = r["llamacpp"];
    const std::uint64_t M = *o.max_context, seqs = l["n_seq_max"].get<std::uint64_t>(),
                        slot_cells = l["n_ctx_seq"].get<std::uint64_t>(),
                        n_ctx = l["n_ctx"].get<std::uint64_t>();
    const bool unified = l["kv_unified"].get<bool>();
    // A slot serves n_ctx_seq tokens, capped at n_ctx_train (tools/server/server-context.cpp: "the slot
    // context exceeds the training context of the model - capping").
    const std::uint64_t train = model.spec.max_context.value;
    const std::uint64_t slot = train ? std::min(slot_cells, train) : slot_cells;
    const bool fits = M <= slot;
    // Requests of M tokens at once: each slot one (its own stream), or as many as the shared cells hold.
    const std::uint64_t at_once = !fits ? 0 : unified ? std::min(seqs, n_ctx / M) : seqs;
    std::vector<std::string> advice;
    const std::string host = l["host"].get<std::string>();
    const bool ollama = host == "ollama";
    if (fits) {
        advice.push_back(
            format("Fits: each of the {} slots holds {} tokens; a request of {} fits{}.", seqs, grouped(slot),
                   grouped(M),
                   unified && at_once < seqs
                       ? format(", but the {} slots share {} cells: {} such requests fit at once", seqs,
                                grouped(n_ctx), at_once)
                       : std::string()));
    } else {
        const std::uint64_t need = unified ? M : M * seqs;
        advice.push_back(
            format("Does not fit: a slot holds {} tokens ({} cells{}), a request of {} needs more.",
                   grouped(slot), grouped(slot_cells),
                   train && train < slot_cells ? format(", capped at n_ctx_train {}", grouped(train))
                                               : std::string(),
                   grouped(M)));
        if (train && M > train)
            advice.push_back(format("The model was trained for {} tokens; llama-server caps a slot there.",
                                    grouped(train)));
        else
            advice.push_back(
                ollama ? format("Set num_ctx {} (Ollama gives each of its {} slots num_ctx).", M, seqs)
                       : format("Set -c {}{} (llama.cpp splits -c among {} slots unless --kv-unified).", need,
                                unified ? "" : format(" = {} x {}", M, seqs), seqs));
    }
    advice.push_back(format("Test it: a prompt of {} tokens must get an error, not a truncated answer.",
                            grouped((fits ? M : slot) + 1)));
    json j;
    set_member(j, "model", r["model"]);
    set_member(j, "engine", "llamacpp");
    set_member(j, "llamacpp_host", host);
    set_member(j, "pool_tokens", n_ctx);
    set_member(j, "pool_source",
               format("llama.cpp's cells: n_ctx {} ({} x {} cells)", grouped(n_ctx),
                      l["n_stream"].get<std::uint64_t>(), grouped(slot_cells)));
    set_member(j, "max_context", M);
    set_member(j, "max_context_source", "max_context");
    set_member(j, "model_max_context", train ? json(train) : json(nullptr));
    set_member(j, "slot_context", slot);
    set_member(j, "n_seq_max", seqs);
    set_member(j, "kv_unified", unified);
    set_member(j, "fits", fits);
    set_member(j, "fits_by", "slot");
    set_member(j, "max_concurrency", at_once);
    set_member(j, "max_concurrency_text", format("{}", at_once));
    set_member(j, "max_safe_context", slot);
    set_member(j, "max_safe_context_source",
               train && train < slot_cells ? "the model's n_ctx_train, which caps a slot"
                                           : "a slot's cells (n_ctx_seq)");
    set_member(j, "concurrency", nullptr);
    set_member(j, "concurrency_fits", nullptr);
    set_member(j, "advice", advice);
    set_member(j, "kv_bytes", r["kv_bytes"]);
    set_member(j, "llamacpp", l);
    set_member(j, "log", nullptr);
    set_member(j, "cross_checks", json::array());
    json warnings = r["warnings"];
    if (train && M > train)
        warnings.push_back({{"field", "max_context"},
                            {"message", format("the advertised context {} is above the model's own {}",
                                               grouped(M), grouped(train))}});
    set_member(j, "warnings", std::move(warnings));
    return j;
}

}  // namespace kvcalc
