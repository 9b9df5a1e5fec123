#include "report.hpp"

#include "config/config_fields.hpp"
#include "sizing/weights.hpp"

namespace kvcalc {

json error_report(const Error& e) {
    json err;
    err["code"] = e.code;
    err["message"] = e.message;
    err["field"] = e.field;
    if (e.line > 0) {
        err["line"] = e.line;
        err["column"] = e.column;
    }
    json out;
    out["error"] = std::move(err);
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
        o["field"] = w.field;
        o["message"] = w.message;
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

namespace {

json sourced(const Sourced& s) {
    json j;
    j["value"] = s.value;
    j["source"] = s.source;
    return j;
}

json layer_counts(const ModelSpec& m) {
    json c = json::object();
    c["total"] = m.num_layers.value;
    for (LayerKind k : {LayerKind::full_attention, LayerKind::mla, LayerKind::sliding_window,
                        LayerKind::chunked_local, LayerKind::linear_state, LayerKind::no_cache})
        c[layer_kind_name(k)] = m.count(k);
    return c;
}

json group_report(const ModelSpec& m, const GroupFigures& f) {
    const LayerGroup& g = m.groups[f.group];
    json j;
    j["kind"] = layer_kind_name(g.kind);
    j["name"] = g.name;
    j["layers"] = g.count;  // caches: a looped model's layers times their loop steps
    if (g.per_layer != 1) j["caches_per_layer"] = g.per_layer;
    if (g.cross_attention) j["cross_attention"] = true;  // holds the encoder's tokens, not the context's
    // An indexer's keys beside the layer's cache (DeepSeek-V3.2's MLA, MiniMax-M3's sparse layers).
    if (f.indexer_bytes_layer)
        j["indexer_bytes"] = {
            {"value", f.indexer_bytes_layer},
            {"source", g.indexer_dim.value ? format("{} {} x the bytes of indexer_kv_dtype",
                                                    g.indexer_dim.source, g.indexer_dim.value)
                                           : g.indexer_bytes.source}};
    if (g.kind == LayerKind::mla) {
        j["latent_dim"] = sourced(g.latent_dim);
    } else if (g.kind != LayerKind::linear_state && g.kind != LayerKind::no_cache) {
        j["kv_heads"] = sourced(g.kv_heads);
        j["head_dim"] = sourced(g.k_head_dim);
        j["v_head_dim"] = sourced(g.v_head_dim);
        j["kv_heads_per_gpu"] = f.kv_heads_per_gpu;
    }
    if (g.window.value) j["window"] = sourced(g.window);
    if (g.kind == LayerKind::linear_state) {
        j["mixer"] = g.state.mixer;
        j["state_source"] = g.state.source;
        j["state_bytes_layer"] = f.state_bytes_layer;
        j["state_bytes_layer_per_gpu"] = f.state_bytes_layer_per_gpu;
    }
    j["bytes_per_token_layer"] = f.bytes_per_token_layer;
    j["bytes_per_token_layer_per_gpu"] = f.bytes_per_token_layer_per_gpu;
    j["resident_tokens"] = f.resident_tokens;
    j["vllm_block_size"] = f.vllm_block_size;
    j["vllm_blocks"] = f.vllm_blocks;
    j["sequence_bytes_naive"] = f.sequence_bytes_naive;
    j["sequence_bytes_resident"] = f.sequence_bytes_resident;
    j["sequence_bytes_vllm"] = f.sequence_bytes_vllm;
    return j;
}

}  // namespace

json size_report(const Model& model, const SizeResult& r) {
    const ModelSpec& m = model.spec;
    json j;
    j["model"] = m.name;
    j["model_source"] = m.name_source;
    j["text_config"] = m.text_path;
    j["attention_kind"] = attention_kind(m);
    j["num_layers"] = sourced(m.num_layers);
    j["query_heads"] = sourced(m.query_heads);
    j["max_context"] = m.max_context.value ? json(sourced(m.max_context)) : json(nullptr);
    j["layer_plan_source"] = m.layer_plan_source;
    j["bytes_per_token"] = r.bytes_per_token;
    j["bytes_per_token_per_gpu"] = r.bytes_per_token_per_gpu;
    j["context"] = r.context;
    j["context_source"] = r.context_source;
    j["batch"] = r.batch;
    j["kv_dtype"] = r.kv_dtype.name;
    j["kv_dtype_source"] = r.kv_dtype.source;
    j["kv_dtype_bits"] = r.kv_dtype.bits;
    j["accounting"] = accounting_name(r.accounting);
    j["tp"] = r.tp;
    j["pp"] = r.pp;
    j["block_size"] = r.block_size;
    j["vllm_block_size"] = r.vllm_block_size;
    j["max_num_batched_tokens"] = r.max_num_batched_tokens;
    j["shared_prefix"] = r.shared_prefix;
    j["num_speculative_tokens"] = r.speculative_tokens;
    if (r.encoder_tokens) j["max_num_encoder_input_tokens"] = r.encoder_tokens;
    j["mamba_cache_mode"] = r.mamba_align ? "align" : "none";
    if (!r.indexer_kv_dtype.empty()) j["indexer_kv_dtype"] = r.indexer_kv_dtype;
    j["sequence_bytes_naive"] = r.sequence_bytes_naive;
    j["sequence_bytes_resident"] = r.sequence_bytes_resident;
    j["sequence_bytes_vllm"] = r.sequence_bytes_vllm;
    j["state_bytes"] = r.state_bytes;
    j["kv_bytes"] = r.kv_bytes;
    j["kv_bytes_per_gpu"] = r.kv_bytes_per_gpu;
    j["kv_bytes_deployment"] = r.kv_bytes_deployment;
    const Result<WeightEstimate>& weights = model.weights;  // the text model's, at the config's dtype
    j["param_count"] = weights ? json(weights->param_count) : json(nullptr);
    j["weight_bytes"] = weights ? json(weights->weight_bytes) : json(nullptr);
    j["weight_dtype"] = weights ? json(weights->dtype.name) : json(nullptr);
    j["weights_error"] = weights ? json(nullptr) : error_report(weights.error())["error"];
    // why they are null
    j["layers"] = layer_counts(m);
    json groups = json::array();
    for (const auto& f : r.groups)
        groups.push_back(group_report(m, f));
    j["groups"] = std::move(groups);
    json stages = json::array();
    for (const auto& s : r.stages) {
        json st;
        st["first_layer"] = s.first_layer;
        st["layers"] = s.layers;
        st["bytes_per_token_per_gpu"] = s.bytes_per_token_per_gpu;
        st["kv_bytes_per_gpu"] = s.kv_bytes_per_gpu;
        stages.push_back(std::move(st));
    }
    j["stages"] = std::move(stages);
    j["warnings"] = warnings_json(r.warnings);
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
    if (o.accounting)
        s.accounting = *o.accounting == "naive"  ? Accounting::naive
                       : *o.accounting == "vllm" ? Accounting::vllm
                                                 : Accounting::resident;
    return s;
}

}  // namespace kvcalc
