#include "api.hpp"

#include "presets.hpp"
#include "report.hpp"
#include "sizing.hpp"

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

}  // namespace

Result<json> parse_options_text(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
        ++i;
    if (i == text.size()) return json::object();
    auto o = parse_json_text(text);
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

std::string size_json(std::string_view config, std::string_view options_json) {
    auto m = load_config(config);
    if (!m) return error_text(m.error());
    auto oj = parse_options_text(options_json);
    if (!oj) return error_text(oj.error());
    auto opts = size_options_from_json(*oj);
    if (!opts) return error_text(opts.error());
    auto r = size_model(*m, *opts);
    if (!r) return error_text(r.error());
    return to_text(size_report(*m, *r));
}

std::string presets_json() {
    json list = json::array();
    for (std::size_t i = 0; i < preset_count(); ++i) {
        const Preset& p = preset_at(i);
        auto m = load_config(p.id);
        if (!m) continue;  // every bundled config is tested to load; skip rather than abort
        json entry;
        entry["id"] = p.id;
        entry["name"] = m->name;
        entry["attention_kind"] = attention_kind(*m);
        entry["max_context"] = m->max_context.value ? json(m->max_context.value) : json(nullptr);
        entry["layers"] = m->num_layers.value;
        SizeOptions o;
        o.context = 1;
        auto r = size_model(*m, o);
        entry["bytes_per_token"] = r ? json(r->bytes_per_token) : json(nullptr);
        list.push_back(std::move(entry));
    }
    return to_text(list);
}

std::string preset_config(std::string_view id) {
    const Preset* p = find_preset(id);
    return p ? p->config_json : "";
}

}  // namespace kvcalc
