#include "engines/llamacpp/llamacpp_report.hpp"

#include "report.hpp"

namespace kvcalc {
namespace {

json group_json(const ModelSpec& m, const GroupFigures& f, const LlamacppGroupRows& rows) {
    const LayerGroup& g = m.groups[f.group];
    json j = group_geometry(g);
    set_member(j, "cache", llamacpp_cache_name(rows.cache));
    if (g.kind == LayerKind::mla) set_member(j, "latent_v_dim", sourced(g.latent_v_dim));
    if (is_attention(g.kind)) {
        // One cell of one layer: K and V as allocated (V padded to the widest layer without flash attention).
        set_member(j, "k_width", rows.k_width);
        set_member(j, "v_width", rows.v_width);
        set_member(j, "k_bytes_per_cell", rows.k_row);
        set_member(j, "v_bytes_per_cell", rows.v_row);
    }
    if (g.kind == LayerKind::linear_state) {
        set_member(j, "r_bytes_per_sequence", rows.state_r);
        set_member(j, "s_bytes_per_sequence", rows.state_s);
        set_member(j, "state_bytes_layer", f.state_bytes_layer);
    }
    set_member(j, "bytes_per_token_layer", f.bytes_per_token_layer);
    set_member(j, "resident_tokens", f.resident_tokens);
    set_member(j, "sequence_bytes_naive", f.sequence_bytes_naive);
    set_member(j, "sequence_bytes_resident", f.sequence_bytes_resident);
    set_member(j, "sequence_bytes_llamacpp", f.sequence_bytes_llamacpp);
    return j;
}

json memory_json(const LlamacppAllocation& a, const LlamacppSettings& s) {
    json list = json::array();
    for (const LlamacppObject& o : a.objects) {
        const bool rec = o.cache == LlamacppCache::recurrent;
        json e;
        set_member(e, "object", rec ? "llama_memory_recurrent" : "llama_kv_cache");
        set_member(e, "cache", llamacpp_cache_name(o.cache));
        set_member(e, "cells", o.cells);
        set_member(e, "cells_rule", o.cells_rule);
        set_member(e, "layers", o.layers);
        set_member(e, "seqs", a.n_seq_max);
        set_member(e, "streams", o.streams);
        set_member(e, rec ? "r_type" : "k_type", rec ? "f32" : s.type_k->name);
        set_member(e, rec ? "s_type" : "v_type", rec ? "f32" : s.type_v->name);
        set_member(e, rec ? "r_bytes" : "k_bytes", o.k_bytes);
        set_member(e, rec ? "s_bytes" : "v_bytes", o.v_bytes);
        set_member(e, "bytes", o.bytes);
        set_member(e, "log_line", llamacpp_log_line(o, a, s));
        list.push_back(std::move(e));
    }
    return list;
}

}  // namespace

json allocation_json(const LlamacppAllocation& a, const LlamacppPlan& plan) {
    const LlamacppSettings& s = plan.settings();
    json j;
    set_member(j, "host", llamacpp_host_name(s.host));
    set_member(j, "build", s.build.value);
    set_member(j, "build_source", s.build.source);
    if (s.host == LlamacppHost::ollama) set_member(j, "ollama_version", s.ollama_version);
    set_member(j, "n_ctx_requested", a.n_ctx_requested);
    set_member(j, "n_ctx", a.n_ctx);
    set_member(j, "n_ctx_seq", a.n_ctx_seq);
    set_member(j, "context_rule", a.rule);
    set_member(j, "padding", a.padding);
    set_member(j, "n_seq_max", a.n_seq_max);
    set_member(j, "n_seq_max_source", s.n_seq_max.source);
    set_member(j, "n_stream", a.n_stream);
    set_member(j, "kv_unified", s.kv_unified);
    set_member(j, "kv_unified_source", s.kv_unified_source);
    set_member(j, "n_batch", a.n_batch);
    set_member(j, "n_ubatch", a.n_ubatch);
    set_member(j, "n_ubatch_source", s.n_ubatch.source);
    set_member(j, "flash_attn", s.flash_attn);
    set_member(j, "flash_attn_source", s.flash_attn_source);
    set_member(j, "flash_attn_at_creation", s.fa_at_creation);
    set_member(j, "swa_full", s.swa_full);
    set_member(j, "swa_full_source", s.swa_full_source);
    set_member(j, "n_swa", plan.swa_window() ? json(plan.swa_window()) : json(nullptr));
    set_member(j, "cache_type_k", s.type_k->name);
    set_member(j, "cache_type_k_source", s.type_k_source);
    // A row of n values is n / block x block_bytes (ggml_row_size): the block as ggml-common.h has it.
    set_member(j, "cache_type_k_block", s.type_k->block);
    set_member(j, "cache_type_k_block_bytes", s.type_k->block_bytes);
    set_member(j, "cache_type_v", s.type_v->name);
    set_member(j, "cache_type_v_source", s.type_v_source);
    set_member(j, "cache_type_v_block", s.type_v->block);
    set_member(j, "cache_type_v_block_bytes", s.type_v->block_bytes);
    set_member(j, "memory", memory_json(a, s));
    set_member(j, "bytes", a.bytes);
    return j;
}

json llamacpp_size_report(const Model& model, const SizeResult& r) {
    const ModelSpec& m = model.spec;
    const LlamacppPlan& plan = *r.llamacpp_plan;
    const LlamacppSettings& s = plan.settings();
    json j;
    set_model_members(j, model);
    set_member(j, "engine", "llamacpp");
    set_member(j, "llamacpp_host", llamacpp_host_name(s.host));
    set_member(j, "llamacpp_arch", m.llamacpp_arch);
    set_member(j, "llamacpp_arch_source", m.llamacpp_arch_source);
    set_member(j, "bytes_per_token", r.bytes_per_token);
    set_member(j, "bytes_per_token_per_gpu", r.bytes_per_token_per_gpu);
    set_member(j, "context", r.context);
    set_member(j, "context_source", r.context_source);
    set_member(j, "kv_dtype", r.kv_dtype.name);
    set_member(j, "kv_dtype_source", r.kv_dtype.source);
    set_member(j, "cache_type_k", s.type_k->name);
    set_member(j, "cache_type_v", s.type_v->name);
    set_member(j, "accounting", accounting_name(r.accounting));
    set_member(j, "sequence_bytes_naive", r.sequence_bytes_naive);
    set_member(j, "sequence_bytes_resident", r.sequence_bytes_resident);
    set_member(j, "sequence_bytes_llamacpp", r.sequence_bytes_llamacpp);
    set_member(j, "state_bytes", r.state_bytes);
    set_member(j, "kv_bytes", r.kv_bytes);
    set_member(j, "kv_bytes_per_gpu", r.kv_bytes_per_gpu);
    set_member(j, "kv_bytes_deployment", r.kv_bytes_deployment);
    json groups = json::array();
    for (const GroupFigures& f : r.groups)
        groups.push_back(group_json(m, f, plan.groups()[f.group]));
    set_member(j, "groups", std::move(groups));
    set_member(j, "llamacpp", allocation_json(*r.llamacpp, plan));
    set_member(j, "warnings", warnings_json(r.warnings));
    return j;
}

}  // namespace kvcalc
