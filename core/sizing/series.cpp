#include "sizing/series.hpp"

#include "config/config_fields.hpp"
#include "report.hpp"
#include "sizing/checked.hpp"
#include "sizing/sizing.hpp"
#include "sizing/speculative.hpp"

namespace kvcalc {
namespace {

constexpr std::size_t max_points = 100000;  // contexts x dtypes x variants in one call

// An array axis of at most `limit` items, or the default when absent.
Result<json> axis(const json& axes, const char* name, std::size_t limit, json fallback) {
    const json* v = member(axes, name);
    if (!v || v->is_null()) return fallback;
    if (!v->is_array() || v->empty())
        return field_error(code::bad_option, name, "must be a non-empty list, got {}", described(*v));
    if (v->size() > limit)
        return field_error(code::bad_option, name, "at most {} items, got {}", limit, v->size());
    return *v;
}

// The variant an axis item names, or an error about it.
Result<ModelSpec> variant_of(const ModelSpec& m, const json& v, const std::string& at) {
    if (v == "model") return m;
    if (v == "mla") return with_mla(m);
    const json* n = member(v, "kv_heads");
    if (!n || v.size() != 1)
        return field_error(code::bad_option, at, "must be \"model\", \"mla\" or {\"kv_heads\": N}, got {}",
                           described(v));
    auto heads = checked_integer(*n, at + ".kv_heads", false);
    if (!heads) return recode(heads.forward_error(), code::bad_option);
    return with_kv_heads(m, *heads);
}

json error_json(const Error& e) {
    return error_report(e)["error"];
}

}  // namespace

Result<ModelSpec> with_kv_heads(const ModelSpec& m, std::uint64_t kv_heads) {
    const Sourced& q = m.query_heads;
    if (kv_heads == 0 || kv_heads > q.value || q.value % kv_heads != 0)
        return fail(code::bad_option, "kv_heads", "{} KV heads do not divide {} {}", kv_heads, q.source,
                    q.value);
    ModelSpec v = m;
    const Sourced heads{kv_heads, format("{} KV heads (a variant of the model)", kv_heads)};
    for (LayerGroup& g : v.groups) {
        if (g.kind == LayerKind::mla) {
            if (!g.mla_k_head_dim.value || !g.mla_v_head_dim.value)
                return fail(code::missing_field, "qk_nope_head_dim",
                            "the config lacks qk_nope_head_dim or v_head_dim, which expand MLA into heads");
            g.kind = LayerKind::full_attention;
            g.k_head_dim = g.mla_k_head_dim;
            g.v_head_dim = g.mla_v_head_dim;
            g.latent_dim = {};
            g.indexer_bytes = {};
        }
        if (is_attention(g.kind)) g.kv_heads = heads;
    }
    return v;
}

ModelSpec with_mla(const ModelSpec& m) {
    if (m.has(LayerKind::mla)) return m;
    ModelSpec v = m;
    const Sourced latent{512 + 64,
                         "DeepSeek-V3's kv_lora_rank 512 + qk_rope_head_dim 64 (a variant of the model)"};
    const Sourced rank{512, "DeepSeek-V3's kv_lora_rank 512 (a variant of the model)"};
    for (LayerGroup& g : v.groups) {
        if (!is_attention(g.kind)) continue;
        g.kind = LayerKind::mla;
        g.latent_dim = latent;
        g.latent_v_dim = rank;
        g.window = {};
        g.kv_heads = g.k_head_dim = g.v_head_dim = {};
    }
    return v;
}

Result<json> series_report(const Model& model, const Options& options, const json& axes) {
    // The model as served: with a speculative draft's layers and longer states, if any, or as llama.cpp
    // sees it.
    SizeOptions base = size_options(options);
    auto served = as_served(model.spec, base);
    if (!served) return served.forward_error();
    const ModelSpec& m = *served;
    if (!axes.is_object() && !axes.is_null())
        return field_error(code::bad_option, "axes", "must be an object, got {}", described(axes));
    for (const auto& it : axes.items())
        if (it.key() != "contexts" && it.key() != "kv_dtypes" && it.key() != "variants")
            return fail(code::bad_option, it.key(),
                        "unknown axis \"{}\" (axes: contexts, kv_dtypes, variants)", it.key());

    json default_context = json::array();
    if (base.context) {
        default_context.push_back(*base.context);
    } else if (base.engine == Engine::llamacpp) {
        auto c = size_context(m, base);  // llama.cpp's default -c (Ollama's num_ctx)
        if (!c) return c.forward_error();
        default_context.push_back(*c);
    } else if (m.max_context.value) {
        default_context.push_back(m.max_context.value);
    }
    auto contexts = axis(axes, "contexts", max_points, default_context);
    if (!contexts) return contexts.forward_error();
    if (contexts->empty())
        return fail(code::missing_field, "context", "no max context in the config ({}): give contexts",
                    m.max_context.source);
    std::vector<std::uint64_t> cs;
    for (std::size_t i = 0; i < contexts->size(); ++i) {
        auto c = checked_integer((*contexts)[i], format("contexts[{}]", i), false);
        if (!c) return recode(c.forward_error(), code::bad_option);
        cs.push_back(*c);
    }
    // With engine llamacpp a dtype is both cache types (cache_type_k and cache_type_v), and the default the
    // options' types.
    auto dtypes = axis(axes, "kv_dtypes", 16, json::array({base.kv_dtype}));
    if (!dtypes) return dtypes.forward_error();
    for (std::size_t i = 0; i < dtypes->size(); ++i)
        if (!(*dtypes)[i].is_string())
            return field_error(code::bad_option, format("kv_dtypes[{}]", i), "must be a string, got {}",
                               described((*dtypes)[i]));
    auto variants = axis(axes, "variants", 256, json::array({"model"}));
    if (!variants) return variants.forward_error();
    if (cs.size() * dtypes->size() * variants->size() > max_points)
        return fail(code::bad_option, "contexts",
                    "at most {} points in one series call, got {} contexts x {} dtypes x {} variants",
                    max_points, cs.size(), dtypes->size(), variants->size());

    base.context.reset();  // each point has its own
    json series = json::array();
    for (std::size_t vi = 0; vi < variants->size(); ++vi) {
        const json& v = (*variants)[vi];
        Result<ModelSpec> spec = variant_of(m, v, format("variants[{}]", vi));
        if (!spec && spec.error().code == code::bad_option && spec.error().field != "kv_heads")
            return spec.forward_error();  // the axis is malformed, not the variant impossible
        for (const json& dtype : *dtypes) {
            json s;
            set_member(s, "variant", v);
            set_member(s, "kv_dtype", dtype);
            set_member(s, "kv_dtype_name", nullptr);
            set_member(s, "kv_heads", nullptr);
            set_member(s, "latent_dim", nullptr);
            set_member(s, "attention_kind", nullptr);
            set_member(s, "bytes_per_token", nullptr);
            set_member(s, "bytes_per_token_per_gpu", nullptr);
            set_member(s, "kv_bytes", nullptr);
            set_member(s, "kv_bytes_per_gpu", nullptr);
            set_member(s, "error", nullptr);
            SizeOptions o = base;
            o.kv_dtype = dtype.get<std::string>();
            if (o.engine == Engine::llamacpp && o.kv_dtype != base.kv_dtype)
                o.llamacpp.cache_type_k = o.llamacpp.cache_type_v = o.kv_dtype;
            Result<SizePlan> plan = spec ? SizePlan::make(*spec, o) : Result<SizePlan>(spec.error());
            if (!plan) {
                set_member(s, "error", error_json(plan.error()));
                series.push_back(std::move(s));
                continue;
            }
            for (const LayerGroup& g : spec->groups) {
                if (g.kind == LayerKind::mla && s["latent_dim"].is_null())
                    set_member(s, "latent_dim", g.latent_dim.value);
                if (is_attention(g.kind) && g.kind != LayerKind::mla && s["kv_heads"].is_null())
                    set_member(s, "kv_heads", g.kv_heads.value);
            }
            set_member(s, "kv_dtype_name", plan->kv_dtype().name);
            set_member(s, "attention_kind", attention_kind(*spec));
            set_member(s, "bytes_per_token", plan->bytes_per_token());
            set_member(s, "bytes_per_token_per_gpu", plan->bytes_per_token_per_gpu());
            json bytes = json::array(), bytes_gpu = json::array();
            for (std::uint64_t c : cs) {
                auto f = plan->figures(c);
                if (!f && s["error"].is_null()) set_member(s, "error", error_json(f.error()));
                bytes.push_back(f ? json(f->kv_bytes) : json(nullptr));
                bytes_gpu.push_back(f ? json(f->kv_bytes_per_gpu) : json(nullptr));
            }
            set_member(s, "kv_bytes", std::move(bytes));
            set_member(s, "kv_bytes_per_gpu", std::move(bytes_gpu));
            series.push_back(std::move(s));
        }
    }
    json out;
    set_member(out, "contexts", cs);
    set_member(out, "series", std::move(series));
    return out;
}

}  // namespace kvcalc
