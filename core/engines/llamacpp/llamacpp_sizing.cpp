// SizePlan with engine llamacpp: the plan of what llama.cpp allocates (llamacpp_cache), and the
// three accountings of the context it is asked for: naive (every cached layer x every token),
// resident (the tokens at the cache types' exact bytes, windows capped, plus each slot's state) and
// llamacpp (what it allocates: padding, slots, sliding-window cells, ubatch).
#include <algorithm>

#include "sizing/checked.hpp"
#include "sizing/sizing.hpp"

namespace kvcalc {

Result<SizePlan> SizePlan::make_llamacpp(const ModelSpec& m, const SizeOptions& o) {
    if (o.accounting == Accounting::vllm)
        return fail(code::bad_option, "accounting",
                    "accounting vllm is vLLM's per-request reservation; with engine llamacpp what llama.cpp "
                    "allocates is accounting llamacpp");
    for (auto [set, name] :
         {std::pair{o.batch != 1, "batch"}, std::pair{o.tp != 1, "tp"}, std::pair{o.pp != 1, "pp"},
          std::pair{o.block_size.has_value(), "block_size"}, std::pair{o.shared_prefix != 0, "shared_prefix"},
          std::pair{o.speculative_tokens != 0, "num_speculative_tokens"}})
        if (set)
            return fail(
                code::bad_option, name,
                "{} is an option of vllm and sglang, not of engine llamacpp (llama.cpp's sequences are "
                "its slots: parallel)",
                name);
    if (m.llamacpp_arch.empty())
        return fail(code::unsupported, "engine",
                    "engine llamacpp: the model was not mapped to a llama.cpp architecture (as_served)");
    auto settings = llamacpp_settings(o.llamacpp);
    if (!settings) return settings.forward_error();
    auto plan = LlamacppPlan::make(m, *settings);
    if (!plan) return plan.forward_error();
    SizePlan p;
    p.m_ = &m;
    p.o_ = o;
    for (const Warning& w : m.warnings)  // not the model dtype's: llama.cpp's cache types are given
        if (w.field != m.dtype_source && w.field.find("torch_dtype") == std::string::npos)
            p.warnings_.push_back(w);
    for (const Warning& w : settings->warnings)
        p.warnings_.push_back(w);
    if (!o.context) {
        auto d = llamacpp_default_context(*settings, m, p.warnings_);
        if (!d) return d.forward_error();
        p.llama_default_context_ = *d;
    }
    const LlamacppSettings& s = *settings;
    p.dtype_.name =
        s.type_k == s.type_v ? std::string(s.type_k->name) : format("{}/{}", s.type_k->name, s.type_v->name);
    p.dtype_.bits = 0;  // a ggml block's bytes: not a whole number of bits an element
    p.dtype_.source =
        format("K {} ({}), V {} ({})", s.type_k->name, s.type_k_source, s.type_v->name, s.type_v_source);
    p.bytes_per_token_ = p.bytes_per_token_per_gpu_ = plan->cell_bytes();
    p.state_bytes_ = plan->state_bytes();
    p.groups_.resize(m.groups.size());
    p.llama_ = std::make_shared<const LlamacppPlan>(std::move(plan.value()));
    return p;
}

Result<SizeFigures> SizePlan::evaluate_llamacpp(std::uint64_t C, SizeResult* detail) const {
    const LlamacppPlan& plan = *llama_;
    const LlamacppSettings& s = plan.settings();
    auto n_ctx = llamacpp_n_ctx(s, *m_, C, detail ? &detail->warnings : nullptr);
    if (!n_ctx) return n_ctx.forward_error();
    auto alloc = plan.allocate(*n_ctx, detail != nullptr);
    if (!alloc) return alloc.forward_error();
    const std::uint64_t T = *n_ctx, seqs = s.n_seq_max.value;
    // Resident: what T tokens hold at the cache types' bytes: a sliding-window layer at most its window
    // in each slot, a recurrent layer one state a slot; no padding, no ubatch beside the window.
    const std::uint64_t swa_tokens = std::min(T, plan.swa_window() * seqs);
    auto naive = mul(plan.cell_bytes(), T);
    auto resident =
        add(add(mul(plan.cell_bytes() - plan.swa_cell_bytes(), T), mul(plan.swa_cell_bytes(), swa_tokens)),
            mul(plan.state_bytes(), seqs));
    if (!naive || !resident)
        return fail(code::overflow, "context",
                    "the KV cache of {} tokens exceeds 2^53 - 1 bytes (8 PiB): check {}", grouped(T),
                    "context");
    SizeFigures f;
    f.sequence_bytes_naive = *naive;
    f.sequence_bytes_resident = *resident;
    f.sequence_bytes_llamacpp = alloc->bytes;
    f.kv_bytes = o_.accounting == Accounting::naive      ? *naive
                 : o_.accounting == Accounting::resident ? *resident
                                                         : alloc->bytes;
    f.kv_bytes_per_gpu = f.kv_bytes_deployment = f.kv_bytes;
    if (!detail) return f;
    // Per group: one layer's rows, what its layers hold and allocate.
    for (std::size_t i = 0; i < m_->groups.size(); ++i) {
        const LayerGroup& g = m_->groups[i];
        const LlamacppGroupRows& r = plan.groups()[i];
        GroupFigures gf;
        gf.group = static_cast<std::uint32_t>(i);
        const std::uint64_t row = r.k_row + r.v_row;
        gf.bytes_per_token_layer = gf.bytes_per_token_layer_per_gpu = row;
        gf.kv_heads_per_gpu = is_attention(g.kind) && g.kind != LayerKind::mla ? g.kv_heads.value : 0;
        gf.state_bytes_layer = gf.state_bytes_layer_per_gpu = r.state_r + r.state_s;
        const bool swa = r.cache == LlamacppCache::swa;
        gf.resident_tokens = r.cache == LlamacppCache::base ? T : swa ? swa_tokens : 0;
        gf.sequence_bytes_naive = g.count * row * T;  // within the totals checked above
        gf.sequence_bytes_resident = g.count * (row * gf.resident_tokens + (r.state_r + r.state_s) * seqs);
        for (const LlamacppObject& o : alloc->objects)
            if (o.cache == r.cache)
                gf.sequence_bytes_llamacpp = r.cache == LlamacppCache::recurrent
                                                 ? g.count * (r.state_r + r.state_s) * o.cells
                                                 : g.count * row * o.cells * o.streams;
        detail->groups.push_back(gf);
    }
    // llama.cpp's own warning (src/llama-context.cpp): n_ctx_seq above n_ctx_train.
    if (m_->max_context.value && alloc->n_ctx_seq > m_->max_context.value)
        detail->warnings.push_back(
            {"context", format("n_ctx_seq ({}) > n_ctx_train ({}) -- possible training context overflow, as "
                               "llama.cpp warns ({})",
                               alloc->n_ctx_seq, m_->max_context.value, m_->max_context.source)});
    detail->llamacpp = std::move(alloc.value());
    return f;
}

}  // namespace kvcalc
