#include "api.hpp"

#include <optional>

#include "check/check_report.hpp"
#include "check/gpu_presets.hpp"
#include "config/presets.hpp"
#include "engines/llamacpp/gguf_model.hpp"
#include "report.hpp"
#include "sizing/series.hpp"
#include "sizing/sizing.hpp"
#include "sizing/speculative.hpp"
#include "sizing/table.hpp"
#include "sizing/units.hpp"

namespace kvcalc {

namespace {

bool looks_like_json(std::string_view s) {
    std::size_t i = 0;
    if (s.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 byte-order mark
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        ++i;
    if (i == s.size()) return false;
    std::string_view rest = s.substr(i);
    // Preset ids never hold braces or quotes: text with them is (broken) JSON.
    if (rest.find_first_of("{}\"") != std::string_view::npos) return true;
    // Any JSON value: a non-object is then refused as "must be a JSON object".
    return std::string_view("{[\"-0123456789").find(rest[0]) != std::string_view::npos ||
           rest.substr(0, 4) == "null" || rest.substr(0, 4) == "true" || rest.substr(0, 5) == "false";
}

std::string text_of(const Result<json>& r) {
    return r ? to_text(*r) : error_text(r.error());
}

// A call's options: the text read as JSON, then as the command's options.
Result<Options> options_of(std::string_view text, Command command) {
    auto o = parse_options_text(text);
    if (!o) return o.forward_error();
    return read_options(*o, command);
}

}  // namespace

Result<json> parse_options_text(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
        ++i;
    if (i == text.size()) return json::object();
    auto o = parse_json_text(text, max_options_bytes);  // an engine log as pasted, of megabytes
    if (!o) {
        Failure f = o.forward_error();
        f.error->code = code::bad_option;
        f.error->message.insert(0, "options: ");
        f.error->field = "options";
        return f;
    }
    if (!o->is_object() && !o->is_null())
        return field_error(code::bad_option, "options", "must be an object, got {}", described(*o));
    return o->is_null() ? json::object() : *o;
}

Result<ModelSpec> load_config(std::string_view config) {
    if (const Preset* p = find_preset(config)) {
        auto m = read_model_text(p->config_json);
        if (m && m->name_source != "_name_or_path") {
            m.value().name = p->id;
            m.value().name_source = "preset id";
        }
        return m;
    }
    if (looks_like_json(config)) return read_model_text(config);
    bool blank = true;
    for (char c : config)
        blank = blank && (c == ' ' || c == '\t' || c == '\n' || c == '\r');
    if (blank)
        return fail(code::malformed_json, "config",
                    "the config is empty: give config.json text or a bundled preset id");
    return fail(code::unknown_preset, "config",
                "\"{}\" is neither config JSON nor a bundled preset id (see presets)", config.substr(0, 80));
}

Result<Model> read_config(std::string_view config) {
    auto m = load_config(config);
    if (!m) return m.forward_error();
    // The weights estimate reads a config.json's fields; a GGUF's weights are its tensors, which its metadata
    // document does not give.
    Result<WeightEstimate> w =
        is_gguf_document(m->root())
            ? Result<WeightEstimate>(
                  fail(code::invalid_value, "gguf",
                       "a GGUF's weights are its tensors, which its metadata does not size"))
            : estimate_weights(*m);
    return Model{std::move(m.value()), std::move(w)};
}

Result<json> size_report(const Model& model, const Options& options) {
    // The model as served: with a speculative draft's layers and longer states, if any, or as llama.cpp
    // sees it.
    const SizeOptions o = size_options(options);
    auto spec = as_served(model.spec, o);
    if (!spec) return spec.forward_error();
    const Model served{std::move(spec.value()), model.weights};
    auto r = size_model(served.spec, o);
    if (!r) return r.forward_error();
    return size_report(served, *r);
}

Result<ModelFigures> size_figures(const Model& model, const Options& options) {
    // The model as served, as size_report has it; the model itself when no draft is asked for
    // (with_speculative_tokens would copy it).
    const SizeOptions o = size_options(options);
    std::optional<ModelSpec> drafted;
    if (options.num_speculative_tokens.value_or(0) || o.engine == Engine::llamacpp) {
        auto spec = as_served(model.spec, o);
        if (!spec) return spec.forward_error();
        drafted = std::move(spec.value());
    }
    const ModelSpec& served = drafted ? *drafted : model.spec;
    auto context = size_context(served, o);
    if (!context) return context.forward_error();
    auto plan = SizePlan::make(served, o);
    if (!plan) return plan.forward_error();
    auto at = plan->figures(*context);
    if (!at) return at.forward_error();
    ModelFigures f{*at};
    f.context = *context;
    f.batch = o.batch;
    f.tp = o.tp;
    f.pp = o.pp;
    f.accounting = o.accounting;
    f.kv_dtype_bits = plan->kv_dtype().bits;
    f.bytes_per_token = plan->bytes_per_token();
    f.bytes_per_token_per_gpu = plan->bytes_per_token_per_gpu();
    f.state_bytes = plan->state_bytes_per_sequence();
    return f;
}

Result<ModelFigures> size_figures(const Model& model, std::string_view options) {
    auto o = options_of(options, size_command);
    if (!o) return o.forward_error();
    return size_figures(model, *o);
}

Result<json> presets_report(Session& session) {
    json list = json::array();
    for (std::size_t i = 0; i < preset_count(); ++i) {
        const Preset& p = preset_at(i);
        auto model = session.model(p.id);  // read once: a table of the presets reuses it
        if (!model) continue;              // every bundled config is tested to load; skip rather than abort
        const ModelSpec& m = (*model)->spec;
        json entry;
        set_member(entry, "id", p.id);
        set_member(entry, "name", m.name);
        set_member(entry, "attention_kind", attention_kind(m));
        set_member(entry, "max_context", m.max_context.value ? json(m.max_context.value) : json(nullptr));
        set_member(entry, "layers", m.num_layers.value);
        auto plan = SizePlan::make(m, SizeOptions{});
        set_member(entry, "bytes_per_token", plan ? json(plan->bytes_per_token()) : json(nullptr));
        list.push_back(std::move(entry));
    }
    return list;
}

Result<std::shared_ptr<const Model>> Session::model(std::string_view config) {
    if (auto it = index_.find(config); it != index_.end()) {
        recent_.splice(recent_.begin(), recent_, it->second);  // now the most recent
        return recent_.front().second;
    }
    auto m = read_config(config);
    if (!m) return m.forward_error();
    recent_.emplace_front(std::string(config), std::make_shared<const Model>(std::move(m.value())));
    index_.emplace(recent_.front().first, recent_.begin());
    if (recent_.size() > capacity_) {
        index_.erase(recent_.back().first);
        recent_.pop_back();
    }
    return recent_.front().second;
}

std::string size_text(const Model& model, std::string_view options) {
    auto o = options_of(options, size_command);
    if (!o) return error_text(o.error());
    return text_of(size_report(model, *o));
}

std::string check_text(const Model& model, std::string_view options) {
    auto o = options_of(options, check_command);
    if (!o) return error_text(o.error());
    return text_of(check_report(model, *o));
}

std::string series_text(const Model& model, std::string_view options, std::string_view axes) {
    auto o = options_of(options, size_command);
    if (!o) return error_text(o.error());
    auto a = parse_json_text(
        axes.find_first_not_of(" \t\r\n") == std::string_view::npos ? std::string_view("{}") : axes);
    if (!a) {
        Failure f = a.forward_error();
        f.error->code = code::bad_option;
        f.error->message.insert(0, "axes: ");
        f.error->field = "axes";
        return error_text(f);
    }
    return text_of(series_report(model, *o, *a));
}

template <class F>
std::string Session::remembered(const std::shared_ptr<const Model>& model, std::string key, F make) {
    for (auto it = reports_.begin(); it != reports_.end(); ++it)
        if (it->model == model && it->key == key) {
            reports_.splice(reports_.begin(), reports_, it);
            return it->text;
        }
    reports_.push_front({model, std::move(key), make()});
    if (reports_.size() > report_capacity) reports_.pop_back();
    return reports_.front().text;
}

std::string Session::size(const std::shared_ptr<const Model>& m, std::string_view options) {
    return remembered(m, format("size\n{}", options), [&] { return size_text(*m, options); });
}

std::string Session::check(const std::shared_ptr<const Model>& m, std::string_view options) {
    return remembered(m, format("check\n{}", options), [&] { return check_text(*m, options); });
}

std::string Session::series(const std::shared_ptr<const Model>& m, std::string_view options,
                            std::string_view axes) {
    return remembered(m, format("series\n{}\n{}", options, axes),
                      [&] { return series_text(*m, options, axes); });
}

std::string Session::size(std::string_view config, std::string_view options) {
    auto m = model(config);
    return m ? size(*m, options) : error_text(m.error());
}

std::string Session::check(std::string_view config, std::string_view options) {
    auto m = model(config);
    return m ? check(*m, options) : error_text(m.error());
}

std::string Session::series(std::string_view config, std::string_view options, std::string_view axes) {
    auto m = model(config);
    return m ? series(*m, options, axes) : error_text(m.error());
}

std::string Session::table(std::string_view configs_text, std::string_view options) {
    auto configs = parse_json_text(configs_text);
    if (!configs) {
        Failure f = configs.forward_error();
        f.error->message.insert(0, "configs: ");
        f.error->field = "configs";
        return error_text(f);
    }
    if (!configs->is_array())
        return error_text(field_error(code::bad_option, "configs",
                                      "must be a list of preset ids or configs, got {}",
                                      described(*configs)));
    std::vector<std::shared_ptr<const Model>> models;
    for (std::size_t i = 0; i < configs->size(); ++i) {
        const json& c = (*configs)[i];
        Result<std::shared_ptr<const Model>> m =
            c.is_string()   ? model(c.get_ref<const std::string&>())
            : c.is_object() ? model(to_text(c))
                            : Result<std::shared_ptr<const Model>>(
                                  fail(code::bad_option, "", "must be a preset id or a config object"));
        if (!m) {
            Failure f = m.forward_error();
            std::string at = format("configs[{}]", i);
            f.error->message.insert(0, format("{}: ", at));
            if (f.error->field.empty()) f.error->field = at;
            return error_text(f);
        }
        models.push_back(std::move(m.value()));
    }
    auto o = options_of(options, table_command);
    if (!o) return error_text(o.error());
    auto t = table_report(models, *o);
    if (!t) return error_text(t.error());
    json& out = t.value();  // rendered below before it gains format and text
    if (o->format) {
        auto text = render_table(*t, *o->format);
        if (!text) return error_text(text.error());
        set_member(out, "format", *o->format);
        set_member(out, "text", *text);
    }
    return to_text(out);
}

const std::string& Session::presets() {
    if (presets_.empty()) presets_ = text_of(presets_report(*this));
    return presets_;
}

std::string size_json(std::string_view config, std::string_view options) {
    return Session().size(config, options);
}

std::string check_json(std::string_view config, std::string_view options) {
    return Session().check(config, options);
}

std::string table_json(std::string_view configs, std::string_view options) {
    return Session().table(configs, options);
}

std::string preset_config(std::string_view id) {
    const Preset* p = find_preset(id);
    return p ? p->config_json : "";
}

std::string gpu_presets_json() {
    json list = json::array();
    for (std::size_t i = 0; i < gpu_preset_count(); ++i) {
        const GpuPreset& g = gpu_preset_at(i);
        json o;
        set_member(o, "id", g.id);
        set_member(o, "name", g.name);
        set_member(o, "nominal", g.nominal);
        set_member(o, "memory_bytes", gpu_memory_bytes(g));
        set_member(o, "memory_gib", fixed_point(g.memory_gib_hundredths, 2));
        set_member(o, "measured", g.measured);
        set_member(o, "source", g.source);
        list.push_back(std::move(o));
    }
    return to_text(list);
}

std::string gguf_status_text(const GgufReader& reader) {
    if (reader.state() == GgufReader::State::failed) return error_text(reader.error());
    const GgufProgress p = reader.progress();
    json s = json::object();
    if (reader.state() == GgufReader::State::done) {
        set_member(s, "state", "done");
        set_member(s, "metadata_bytes", p.offset);
        set_member(s, "document", reader.document());
        return to_text(s);
    }
    set_member(s, "state", "reading");
    set_member(s, "next_offset", reader.next_offset());
    set_member(s, "offset", p.offset);
    set_member(s, "kv_index", p.kv_index);
    set_member(s, "kv_count", p.kv_count);
    set_member(s, "key", std::string(p.key));
    set_member(s, "index", p.index);
    set_member(s, "count", p.count);
    return to_text(s);
}

}  // namespace kvcalc
