#include "table.hpp"

#include <algorithm>

#include "config_fields.hpp"
#include "report.hpp"
#include "sizing.hpp"
#include "units.hpp"
#include "weights.hpp"

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

bool is_attention(LayerKind k) {
    return k == LayerKind::full_attention || k == LayerKind::mla || k == LayerKind::sliding_window ||
           k == LayerKind::chunked_local;
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

Result<std::vector<std::uint64_t>> read_contexts(const json& v) {
    std::vector<std::uint64_t> out;
    if (v.is_string()) {
        const std::string& s = v.get<std::string>();
        std::size_t i = 0;
        while (i <= s.size()) {
            std::size_t comma = s.find(',', i);
            std::string part = s.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
            bool digits = !part.empty() && part.size() <= 15 &&
                          std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
            std::uint64_t n = 0;
            for (std::size_t k = 0; digits && k < part.size(); ++k)
                n = n * 10 + static_cast<std::uint64_t>(part[k] - '0');  // at most 15 digits
            if (!digits || n == 0)
                return field_error(code::bad_option, "contexts",
                                   "must be positive whole numbers separated by commas, got \"{}\"",
                                   std::string_view(s).substr(0, 60));
            out.push_back(n);
            if (comma == std::string::npos) break;
            i = comma + 1;
        }
    } else if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i) {
            auto c = checked_integer(v[i], format("contexts[{}]", i), false);
            if (!c) return recode(c.forward_error(), code::bad_option);
            out.push_back(*c);
        }
    } else {
        return field_error(code::bad_option, "contexts", "must be a list of token counts, got {}",
                           described(v));
    }
    if (out.empty()) return fail(code::bad_option, "contexts", "contexts: give at least one context");
    if (out.size() > 16) return fail(code::bad_option, "contexts", "contexts: at most 16 contexts");
    return out;
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
    std::string s = format("KV cache of one sequence, {} accounting, KV dtype {}; 1 KiB = 1024 B.",
                           t["accounting"].get<std::string>(), t["kv_dtype"].get<std::string>());
    bool beyond = false;
    for (const auto& r : t["rows"])
        for (const auto& k : r["kv_bytes"])
            beyond |= k.is_null();
    if (beyond) s += " — : beyond the model's max context.";
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

Result<json> table_report(const std::vector<ModelSpec>& models, const json& options) {
    std::vector<std::uint64_t> contexts = {4096, 32768, 131072};  // the default
    SizeOptions base;
    std::string weight_dtype = "auto";
    if (!options.is_null() && !options.is_object())
        return field_error(code::bad_option, "options", "must be an object, got {}", described(options));
    json size_opts = json::object();
    if (options.is_object())
        for (const auto& it : options.items()) {
            const std::string& k = it.key();
            if (it.value().is_null() || k == "format") continue;
            if (k == "contexts") {
                auto c = read_contexts(it.value());
                if (!c) return c.forward_error();
                contexts = std::move(c.value());
            } else if (k == "weight_dtype") {
                if (!it.value().is_string())
                    return fail(code::bad_option, k, "weight_dtype: must be a string, got {}",
                                described(it.value()));
                weight_dtype = it.value().get<std::string>();
            } else if (k == "kv_dtype" || k == "accounting" || k == "block_size" ||
                       k == "max_num_batched_tokens") {
                size_opts[k] = it.value();
            } else {
                return fail(code::bad_option, k, "unknown option \"{}\"", k);
            }
        }
    auto so = size_options_from_json(size_opts);
    if (!so) return so.forward_error();
    base = std::move(so.value());
    if (models.empty()) return fail(code::bad_option, "configs", "table: give at least one model");

    json rows = json::array();
    for (const auto& m : models) {
        SizeOptions o = base;
        o.context = contexts[0];
        auto one = size_model(m, o);
        if (!one) return one.forward_error();
        json kv = json::array();
        for (std::uint64_t c : contexts) {
            if (m.max_context.value && c > m.max_context.value) {
                kv.push_back(nullptr);
                continue;
            }
            o.context = c;
            auto r = size_model(m, o);
            if (!r) return r.forward_error();
            kv.push_back(r->sequence_bytes(o.accounting));
        }
        auto w = estimate_weights(m, weight_dtype);
        if (!w && w.error().code == code::bad_option) return w.forward_error();
        json row;
        row["model"] = m.name;
        row["attention_kind"] = attention_kind(m);
        row["layers"] = m.num_layers.value;
        row["kv_heads_text"] = per_group(m, true);
        row["query_heads"] = m.query_heads.value;
        row["head_size_text"] = per_group(m, false);
        row["bytes_per_token"] = one->bytes_per_token;
        row["kv_bytes"] = std::move(kv);
        row["max_context"] = m.max_context.value ? json(m.max_context.value) : json(nullptr);
        row["param_count"] = w ? json(w->param_count) : json(nullptr);
        row["weight_bytes"] = w ? json(w->weight_bytes) : json(nullptr);
        row["weight_dtype"] = w ? json(w->dtype.name) : json(nullptr);
        row["kv_dtype"] = one->kv_dtype.name;
        rows.push_back(std::move(row));
    }
    json t;
    t["contexts"] = json(contexts);
    t["accounting"] = accounting_name(base.accounting);
    t["kv_dtype"] = base.kv_dtype;
    t["rows"] = std::move(rows);
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
