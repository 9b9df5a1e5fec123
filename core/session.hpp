// Configs read once. A Model is a config's reading (its geometry and layer plan) with the
// weights estimate at its own dtype; a Session keeps the models of the configs it has seen,
// so that a chart, a table or a dragged control evaluates a model without reading its text
// again. The text calls of the CLI and the wasm module go through one.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "config/model.hpp"
#include "sizing/weights.hpp"

namespace kvcalc {

struct Model {
    ModelSpec spec;
    Result<WeightEstimate> weights;  // at the config's own dtype; an error says why there is none
};

// Config JSON text (starts with '{' after white space), or a bundled preset id.
Result<Model> read_config(std::string_view config_or_preset);

class Session {
public:
    explicit Session(std::size_t capacity = 64) : capacity_(capacity) {}

    // The model of a config text or preset id: read the first time, then kept (the least
    // recently used goes when more than `capacity` are kept). Errors are not kept.
    Result<std::shared_ptr<const Model>> model(std::string_view config_or_preset);

    // Text in, text out: a report (snake_case JSON) or {"error": {...}}. Options are JSON
    // text ("" for none). The last reports are kept too, so asking again for the same figures
    // (every section of a page re-rendering) costs a look-up.
    std::string size(std::string_view config, std::string_view options);
    std::string check(std::string_view config, std::string_view options);
    std::string series(std::string_view config, std::string_view options, std::string_view axes);
    std::string size(const std::shared_ptr<const Model>& model, std::string_view options);
    std::string check(const std::shared_ptr<const Model>& model, std::string_view options);
    std::string series(const std::shared_ptr<const Model>& model, std::string_view options,
                       std::string_view axes);
    // configs: a JSON array of preset ids, config objects, or config texts.
    std::string table(std::string_view configs, std::string_view options);
    // [{"id", "name", "attention_kind", "max_context", "layers", "bytes_per_token"}, ...]
    const std::string& presets();

private:
    using Entry = std::pair<std::string, std::shared_ptr<const Model>>;
    std::size_t capacity_;
    std::list<Entry> recent_;                                       // most recent first
    std::map<std::string_view, std::list<Entry>::iterator> index_;  // keys point into recent_
    std::string presets_;

    // Reports by (model, call, options): the model is held, so its address is not reused.
    struct Report {
        std::shared_ptr<const Model> model;
        std::string key;  // the call's name, its options and axes
        std::string text;
    };
    std::list<Report> reports_;  // most recent first, at most report_capacity
    static constexpr std::size_t report_capacity = 64;
    template <class F>
    std::string remembered(const std::shared_ptr<const Model>& model, std::string key, F make);
};

}  // namespace kvcalc
