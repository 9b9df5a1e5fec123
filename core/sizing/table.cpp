#include "sizing/table.hpp"

#include <algorithm>

#include "config/config_fields.hpp"
#include "report.hpp"
#include "sizing/sizing.hpp"
#include "sizing/speculative.hpp"
#include "sizing/units.hpp"
#include "sizing/weights.hpp"

namespace kvcalc {
namespace {

const char* short_kind(LayerKind k) {
    switch (k) {
        case LayerKind::full_attention:
            return "full";
        case LayerKind::sliding_window:
            return "sliding";
        case LayerKind::chunked_local:
            return "chunked";
        case LayerKind::mla:
            return "latent";
        default:
            return "";
    }
}

// "8", or "8 sliding, 2 full" when the attention groups differ; MLA is "1 latent".
std::string per_group(const ModelSpec& m, bool heads) {
    std::vector<std::string> kinds, values;  // the distinct (kind, value) pairs, in order
    for (const auto& g : m.groups) {
        if (!is_attention(g.kind)) continue;
        std::string v;
        if (g.kind == LayerKind::mla) {
            v = heads ? "1" : format("{}", g.latent_dim.value);
        } else if (heads) {
            v = format("{}", g.kv_heads.value);
        } else {
            v = format(g.k_head_dim.value == g.v_head_dim.value ? "{}" : "{} K + {} V", g.k_head_dim.value,
                       g.v_head_dim.value);
        }
        const char* kind = short_kind(g.kind);
        std::size_t j = 0;
        while (j < kinds.size() && (kinds[j] != kind || values[j] != v))
            ++j;
        if (j == kinds.size()) {
            kinds.push_back(kind);
            values.push_back(std::move(v));
        }
    }
    if (kinds.empty()) return "none";
    bool same =
        std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values[0]; });
    bool mla = kinds.size() == 1 && kinds[0] == "latent";
    if (same) return format(mla ? "{} latent" : "{}", values[0]);
    std::string out;
    for (std::size_t j = 0; j < kinds.size(); ++j)
        format_to(out, out.empty() ? "{} {}" : ", {} {}", values[j], kinds[j]);
    return out;
}

std::string context_label(std::uint64_t c) {
    if (c % 1048576 == 0) return format("{}M", c / 1048576);
    if (c % 1024 == 0) return format("{}K", c / 1024);
    return group_thousands(c);
}

std::string md_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '|':
            case '\\':
            case '`':
            case '*':
            case '_':
            case '[':
            case ']':
                out += '\\';
                out += c;
                break;
            case '\n':
            case '\r':
            case '\t':
                out += ' ';
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string weights_text(const json& row) {
    if (row["weight_bytes"].is_null()) return "—";
    return format("{} ({}, {})", format_bytes(row["weight_bytes"].get<std::uint64_t>()),
                  format_param_count(row["param_count"].get<std::uint64_t>()),
                  row["weight_dtype"].get<std::string>());
}

// The text cells of one row, in column order.
std::vector<std::string> cells(const json& row) {
    std::vector<std::string> c = {
        row["model"].get<std::string>(),
        row["attention_kind"].get<std::string>(),
        format("{}", row["layers"].get<std::uint64_t>()),
        format("{} / {}", row["kv_heads_text"].get<std::string>(), row["query_heads"].get<std::uint64_t>()),
        row["head_size_text"].get<std::string>(),
        format_bytes(row["bytes_per_token"].get<std::uint64_t>())};
    for (const auto& k : row["kv_bytes"])
        c.push_back(k.is_null() ? "—" : format_bytes(k.get<std::uint64_t>()));
    c.push_back(weights_text(row));
    return c;
}

std::vector<std::string> headers(const json& t) {
    std::vector<std::string> h = {"Model",     "Attention", "Layers", "KV heads / query heads",
                                  "Head size", "Per token"};
    for (const auto& c : t["contexts"])
        h.push_back(format("{} tokens", context_label(c.get<std::uint64_t>())));
    h.push_back("Weights");
    return h;
}

std::string note(const json& t) {
    std::string s = t.contains("engine")
                        ? format(
                              "KV cache {} allocates for a context (-c) of each column, {} accounting, cache "
                              "type {}; 1 KiB "
                              "= 1024 B.",
                              t["engine"].get<std::string>(), t["accounting"].get<std::string>(),
                              t["kv_dtype"].get<std::string>())
                        : format("KV cache of one sequence, {} accounting, KV dtype {}; 1 KiB = 1024 B.",
                                 t["accounting"].get<std::string>(), t["kv_dtype"].get<std::string>());
    bool beyond = false;
    for (const auto& r : t["rows"])
        for (const auto& k : r["kv_bytes"])
            beyond |= k.is_null();
    if (beyond) s += " — : beyond the model's max context.";
    for (const auto& r : t["rows"])
        if (r.contains("encoder_tokens")) {  // the same option for every row
            s += format(
                " An encoder-decoder's figures include its cross-attention cache of {} encoder tokens "
                "(max_num_encoder_input_tokens).",
                grouped(r["encoder_tokens"].get<std::uint64_t>()));
            break;
        }
    return s;
}

}  // namespace

std::string html_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

Result<json> table_report(const std::vector<std::shared_ptr<const Model>>& models, const Options& options) {
    const std::vector<std::uint64_t> contexts =
        options.contexts.value_or(std::vector<std::uint64_t>{4096, 32768, 131072});
    const SizeOptions base = size_options(options);
    const std::string weight_dtype = options.weight_dtype.value_or("auto");
    if (models.empty()) return fail(code::bad_option, "configs", "table: give at least one model");

    json rows = json::array();
    for (std::size_t i = 0; i < models.size(); ++i) {
        const auto& model = models[i];
        // A row the options cannot size (a model llama.cpp has no rules for) is named as a config
        // that cannot be read is, so a caller can leave that row out and keep the others.
        const auto row_error = [i](Failure f) {
            f.error->message.insert(0, format("configs[{}]: ", i));
            return f;
        };
        // The model as served: with a speculative draft's layers and longer states, if any.
        auto served = as_served(model->spec, base);
        if (!served) return row_error(served.forward_error());
        const ModelSpec& m = *served;
        SizeOptions o = base;
        o.context = contexts[0];
        auto plan = SizePlan::make(m, o);
        if (!plan) return row_error(plan.forward_error());
        json kv = json::array();
        for (std::uint64_t c : contexts) {
            if (m.max_context.value && c > m.max_context.value) {
                kv.push_back(nullptr);
                continue;
            }
            auto f = plan->figures(c);
            if (!f) return row_error(f.forward_error());
            kv.push_back(base.accounting == Accounting::naive      ? f->sequence_bytes_naive
                         : base.accounting == Accounting::vllm     ? f->sequence_bytes_vllm
                         : base.accounting == Accounting::llamacpp ? f->sequence_bytes_llamacpp
                                                                   : f->sequence_bytes_resident);
        }
        std::optional<Result<WeightEstimate>> other;  // at another dtype than the model's own
        if (weight_dtype != "auto") other = estimate_weights(model->spec, weight_dtype);
        const Result<WeightEstimate>& w = other ? *other : model->weights;
        if (!w && w.error().code == code::bad_option) return w.error();
        json row;
        set_member(row, "model", m.name);
        set_member(row, "attention_kind", attention_kind(m));
        set_member(row, "layers", m.num_layers.value);
        set_member(row, "kv_heads_text", per_group(m, true));
        set_member(row, "query_heads", m.query_heads.value);
        set_member(row, "head_size_text", per_group(m, false));
        set_member(row, "bytes_per_token", plan->bytes_per_token());
        set_member(row, "kv_bytes", std::move(kv));
        set_member(row, "max_context", m.max_context.value ? json(m.max_context.value) : json(nullptr));
        set_member(row, "param_count", w ? json(w->param_count) : json(nullptr));
        set_member(row, "weight_bytes", w ? json(w->weight_bytes) : json(nullptr));
        set_member(row, "weight_dtype", w ? json(w->dtype.name) : json(nullptr));
        set_member(row, "kv_dtype", plan->kv_dtype().name);
        for (const auto& g : m.groups)
            if (g.cross_attention) {  // its memory columns hold the encoder's tokens too
                set_member(row, "encoder_tokens", *o.encoder_tokens);
                break;
            }
        rows.push_back(std::move(row));
    }
    json t;
    set_member(t, "contexts", contexts);
    set_member(t, "accounting", accounting_name(base.accounting));
    set_member(t, "kv_dtype", base.kv_dtype);
    if (base.engine == Engine::llamacpp) {  // the cache types, and which llama.cpp host
        std::string types;
        for (const auto& r : rows)
            if (types.empty()) types = r["kv_dtype"].get<std::string>();
        set_member(t, "kv_dtype", types);
        set_member(t, "engine", llamacpp_host_name(base.llamacpp.host));
    }
    set_member(t, "rows", std::move(rows));
    return t;
}

Result<std::string> render_table(const json& t, const std::string& format_name) {
    const std::vector<std::string> head = headers(t);
    const std::size_t numeric_from = 2;  // Layers onwards are figures
    std::string out;
    if (format_name == "md") {
        out += "|";
        for (const auto& h : head)
            format_to(out, " {} |", md_escape(h));
        out += "\n|";
        for (std::size_t i = 0; i < head.size(); ++i)
            out += i >= numeric_from && i != 3 && i != 4 ? " ---: |" : " --- |";
        out += "\n";
        for (const auto& r : t["rows"]) {
            out += "|";
            for (const auto& c : cells(r))
                format_to(out, " {} |", md_escape(c));
            out += "\n";
        }
        format_to(out, "\n{}\n", md_escape(note(t)));
    } else if (format_name == "html") {
        format_to(out, "<table class=\"kvcalc-table\">\n<caption>{}</caption>\n<thead>\n<tr>",
                  html_escape(note(t)));
        for (const auto& h : head)
            format_to(out, "<th scope=\"col\">{}</th>", html_escape(h));
        out += "</tr>\n</thead>\n<tbody>\n";
        for (const auto& r : t["rows"]) {
            auto c = cells(r);
            format_to(out, "<tr><th scope=\"row\">{}</th>", html_escape(c[0]));
            for (std::size_t i = 1; i < c.size(); ++i)
                format_to(out, "<td>{}</td>", html_escape(c[i]));
            out += "</tr>\n";
        }
        out += "</tbody>\n</table>\n";
    } else if (format_name == "csv") {
        std::vector<std::string> h = {"model",       "attention_kind", "layers",         "kv_heads",
                                      "query_heads", "head_size",      "bytes_per_token"};
        for (const auto& c : t["contexts"])
            h.push_back(format("kv_bytes_{}", c.get<std::uint64_t>()));
        for (const char* x : {"param_count", "weight_bytes", "weight_dtype"})
            h.push_back(x);
        for (std::size_t i = 0; i < h.size(); ++i)
            format_to(out, i ? ",{}" : "{}", h[i]);
        out += "\r\n";
        for (const auto& r : t["rows"]) {
            auto num = [](const json& v) {
                return v.is_null() ? std::string() : format("{}", v.get<std::uint64_t>());
            };
            std::vector<std::string> f = {r["model"].get<std::string>(),
                                          r["attention_kind"].get<std::string>(),
                                          num(r["layers"]),
                                          r["kv_heads_text"].get<std::string>(),
                                          num(r["query_heads"]),
                                          r["head_size_text"].get<std::string>(),
                                          num(r["bytes_per_token"])};
            for (const auto& k : r["kv_bytes"])
                f.push_back(num(k));
            f.push_back(num(r["param_count"]));
            f.push_back(num(r["weight_bytes"]));
            f.push_back(r["weight_dtype"].is_null() ? "" : r["weight_dtype"].get<std::string>());
            for (std::size_t i = 0; i < f.size(); ++i)
                format_to(out, i ? ",{}" : "{}", csv_field(f[i]));
            out += "\r\n";
        }
    } else if (format_name == "json") {
        out = to_text(t, 2);
        out += '\n';
    } else {
        return field_error(code::bad_option, "format", "must be md, html, csv or json, got \"{}\"",
                           std::string_view(format_name).substr(0, 40));
    }
    return out;
}

}  // namespace kvcalc
