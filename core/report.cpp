#include "report.hpp"

#include "config/config_fields.hpp"
#include "engines/llamacpp/llamacpp_report.hpp"
#include "sizing/weights.hpp"

namespace kvcalc {

json error_report(const Error& e) {
    json err;
    set_member(err, "code", e.code);
    set_member(err, "message", e.message);
    set_member(err, "field", e.field);
    if (e.line > 0) {
        set_member(err, "line", e.line);
        set_member(err, "column", e.column);
    }
    json out;
    set_member(out, "error", std::move(err));
    return out;
}

Error error_from_report(const json& r) {
    const json& e = r["error"];
    Error out = make_error(e["code"].get<std::string>().c_str(), e["message"].get<std::string>(),
                           e["field"].get<std::string>());
    if (e.contains("line")) {
        out.line = e["line"].get<int>();
        out.column = e["column"].get<int>();
    }
    return out;
}

std::string error_text(const Error& e) {
    return to_text(error_report(e));
}

std::string error_text(Failure f) {
    const ErrorPtr owner(f);
    return error_text(owner.get());
}

json warnings_json(const std::vector<Warning>& ws) {
    json a = json::array();
    for (const auto& w : ws) {
        json o;
        set_member(o, "field", w.field);
        set_member(o, "message", w.message);
        a.push_back(std::move(o));
    }
    return a;
}

std::string attention_kind(const ModelSpec& m) {
    std::string base;
    for (const auto& g : m.groups) {
        if (g.kind == LayerKind::mla) {
            base = "MLA";
            break;
        }
        if (g.kind == LayerKind::full_attention || g.kind == LayerKind::sliding_window ||
            g.kind == LayerKind::chunked_local) {
            std::uint64_t kv = g.kv_heads.value, q = m.query_heads.value;
            base = kv == q ? "MHA" : kv == 1 ? "MQA" : "GQA";
            break;
        }
    }
    if (base.empty()) base = "no attention";
    if (m.has(LayerKind::sliding_window)) base += ", sliding window";
    if (m.has(LayerKind::chunked_local)) base += ", chunked local";
    for (const auto& g : m.groups)
        if (g.kind == LayerKind::linear_state) {
            format_to(base, " + linear state ({})", g.state.mixer);
            break;
        }
    return base;
}

json sourced(const Sourced& s) {
    json j;
    set_member(j, "value", s.value);
    set_member(j, "source", s.source);
    return j;
}

json layer_counts(const ModelSpec& m) {
    json c = json::object();
    set_member(c, "total", m.num_layers.value);
    for (LayerKind k : {LayerKind::full_attention, LayerKind::mla, LayerKind::sliding_window,
                        LayerKind::chunked_local, LayerKind::linear_state, LayerKind::no_cache})
        c[layer_kind_name(k)] = m.count(k);
    return c;
}

json group_geometry(const LayerGroup& g) {
    json j;
    set_member(j, "kind", layer_kind_name(g.kind));
    set_member(j, "name", g.name);
    set_member(j, "layers", g.count);  // caches: a looped model's layers times their loop steps
    if (g.kind == LayerKind::mla) {
        set_member(j, "latent_dim", sourced(g.latent_dim));
    } else if (is_attention(g.kind)) {
        set_member(j, "kv_heads", sourced(g.kv_heads));
        set_member(j, "head_dim", sourced(g.k_head_dim));
        set_member(j, "v_head_dim", sourced(g.v_head_dim));
    }
    if (g.window.value) set_member(j, "window", sourced(g.window));
    if (g.kind == LayerKind::linear_state) {
        set_member(j, "mixer", g.state.mixer);
        set_member(j, "state_source", g.state.source);
    }
    return j;
}

void set_model_members(json& j, const Model& model) {
    const ModelSpec& m = model.spec;
    set_member(j, "model", m.name);
    set_member(j, "model_source", m.name_source);
    set_member(j, "text_config", m.text_path);
    set_member(j, "attention_kind", attention_kind(m));
    set_member(j, "num_layers", sourced(m.num_layers));
    set_member(j, "query_heads", sourced(m.query_heads));
    set_member(j, "max_context", m.max_context.value ? json(sourced(m.max_context)) : json(nullptr));
    set_member(j, "layer_plan_source", m.layer_plan_source);
    const Result<WeightEstimate>& weights = model.weights;  // the text model's, at the config's dtype
    set_member(j, "param_count", weights ? json(weights->param_count) : json(nullptr));
    set_member(j, "weight_bytes", weights ? json(weights->weight_bytes) : json(nullptr));
    set_member(j, "weight_dtype", weights ? json(weights->dtype.name) : json(nullptr));
    set_member(j, "weights_error", weights ? json(nullptr) : error_report(weights.error())["error"]);
    // why they are null
    set_member(j, "layers", layer_counts(m));
}

namespace {

json group_report(const ModelSpec& m, const GroupFigures& f) {
    const LayerGroup& g = m.groups[f.group];
    json j = group_geometry(g);
    if (g.per_layer != 1) set_member(j, "caches_per_layer", g.per_layer);
    if (g.cross_attention)
        set_member(j, "cross_attention", true);  // holds the encoder's tokens, not the context's
    // An indexer's keys beside the layer's cache (DeepSeek-V3.2's MLA, MiniMax-M3's sparse layers).
    if (f.indexer_bytes_layer)
        set_member(j, "indexer_bytes",
                   {{"value", f.indexer_bytes_layer},
                    {"source", g.indexer_dim.value ? format("{} {} x the bytes of indexer_kv_dtype",
                                                            g.indexer_dim.source, g.indexer_dim.value)
                                                   : g.indexer_bytes.source}});
    if (is_attention(g.kind) && g.kind != LayerKind::mla)
        set_member(j, "kv_heads_per_gpu", f.kv_heads_per_gpu);
    if (g.kind == LayerKind::linear_state) {
        set_member(j, "state_bytes_layer", f.state_bytes_layer);
        set_member(j, "state_bytes_layer_per_gpu", f.state_bytes_layer_per_gpu);
    }
    set_member(j, "bytes_per_token_layer", f.bytes_per_token_layer);
    set_member(j, "bytes_per_token_layer_per_gpu", f.bytes_per_token_layer_per_gpu);
    set_member(j, "resident_tokens", f.resident_tokens);
    set_member(j, "vllm_block_size", f.vllm_block_size);
    set_member(j, "vllm_blocks", f.vllm_blocks);
    set_member(j, "sequence_bytes_naive", f.sequence_bytes_naive);
    set_member(j, "sequence_bytes_resident", f.sequence_bytes_resident);
    set_member(j, "sequence_bytes_vllm", f.sequence_bytes_vllm);
    return j;
}

}  // namespace

json size_report(const Model& model, const SizeResult& r) {
    if (r.engine == Engine::llamacpp) return llamacpp_size_report(model, r);
    const ModelSpec& m = model.spec;
    json j;
    set_model_members(j, model);
    set_member(j, "bytes_per_token", r.bytes_per_token);
    set_member(j, "bytes_per_token_per_gpu", r.bytes_per_token_per_gpu);
    set_member(j, "context", r.context);
    set_member(j, "context_source", r.context_source);
    set_member(j, "batch", r.batch);
    set_member(j, "kv_dtype", r.kv_dtype.name);
    set_member(j, "kv_dtype_source", r.kv_dtype.source);
    set_member(j, "kv_dtype_bits", r.kv_dtype.bits);
    set_member(j, "accounting", accounting_name(r.accounting));
    set_member(j, "tp", r.tp);
    set_member(j, "pp", r.pp);
    set_member(j, "block_size", r.block_size);
    set_member(j, "vllm_block_size", r.vllm_block_size);
    set_member(j, "max_num_batched_tokens", r.max_num_batched_tokens);
    set_member(j, "shared_prefix", r.shared_prefix);
    set_member(j, "num_speculative_tokens", r.speculative_tokens);
    if (r.encoder_tokens) set_member(j, "max_num_encoder_input_tokens", r.encoder_tokens);
    set_member(j, "mamba_cache_mode", r.mamba_align ? "align" : "none");
    if (!r.indexer_kv_dtype.empty()) set_member(j, "indexer_kv_dtype", r.indexer_kv_dtype);
    set_member(j, "sequence_bytes_naive", r.sequence_bytes_naive);
    set_member(j, "sequence_bytes_resident", r.sequence_bytes_resident);
    set_member(j, "sequence_bytes_vllm", r.sequence_bytes_vllm);
    set_member(j, "state_bytes", r.state_bytes);
    set_member(j, "kv_bytes", r.kv_bytes);
    set_member(j, "kv_bytes_per_gpu", r.kv_bytes_per_gpu);
    set_member(j, "kv_bytes_deployment", r.kv_bytes_deployment);
    json groups = json::array();
    for (const auto& f : r.groups)
        groups.push_back(group_report(m, f));
    set_member(j, "groups", std::move(groups));
    json stages = json::array();
    for (const auto& s : r.stages) {
        json st;
        set_member(st, "first_layer", s.first_layer);
        set_member(st, "layers", s.layers);
        set_member(st, "bytes_per_token_per_gpu", s.bytes_per_token_per_gpu);
        set_member(st, "kv_bytes_per_gpu", s.kv_bytes_per_gpu);
        stages.push_back(std::move(st));
    }
    set_member(j, "stages", std::move(stages));
    set_member(j, "warnings", warnings_json(r.warnings));
    return j;
}

SizeOptions size_options(const Options& o) {
    SizeOptions s;
    s.context = o.context;
    s.block_size = o.block_size;
    if (o.batch) s.batch = *o.batch;
    if (o.tp) s.tp = *o.tp;
    if (o.pp) s.pp = *o.pp;
    if (o.max_num_batched_tokens) s.max_num_batched_tokens = *o.max_num_batched_tokens;
    if (o.shared_prefix) s.shared_prefix = *o.shared_prefix;
    if (o.num_speculative_tokens) s.speculative_tokens = *o.num_speculative_tokens;
    s.encoder_tokens = o.max_num_encoder_input_tokens;
    s.mamba_align = o.mamba_cache_mode && *o.mamba_cache_mode == "align";
    if (o.kv_dtype) s.kv_dtype = *o.kv_dtype;
    if (o.indexer_kv_dtype) s.indexer_kv_dtype = *o.indexer_kv_dtype;
    if (o.engine && *o.engine == "sglang") s.engine = Engine::sglang;
    if (is_llamacpp_engine(o.engine)) {
        s.engine = Engine::llamacpp;
        s.accounting = Accounting::llamacpp;  // what llama.cpp allocates, unless another is asked for
        LlamacppOptions& l = s.llamacpp;
        l.host = *o.engine == "ollama"     ? LlamacppHost::ollama
                 : *o.engine == "lmstudio" ? LlamacppHost::lmstudio
                                           : LlamacppHost::server;
        l.parallel = o.parallel;
        l.ubatch_size = o.ubatch_size;
        l.build = o.llamacpp_build;
        l.cache_type_k = o.cache_type_k;
        l.cache_type_v = o.cache_type_v;
        l.flash_attn = o.flash_attn;
        l.ollama_version = o.ollama_version;
        l.swa_full = o.swa_full;
        l.kv_unified = o.kv_unified;
    }
    if (o.accounting)
        s.accounting = *o.accounting == "naive"      ? Accounting::naive
                       : *o.accounting == "vllm"     ? Accounting::vllm
                       : *o.accounting == "llamacpp" ? Accounting::llamacpp
                                                     : Accounting::resident;
    return s;
}

}  // namespace kvcalc
