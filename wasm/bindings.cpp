// The wasm module's surface: Embind bindings over the core's text calls (core/api.hpp). One
// Session keeps the configs the page has read, so a config seen before is not read again;
// a Model handle also spares copying its text in. Every call answers JSON text, a report or
// {"error": {...}}; nothing here throws and no logic lives here: web/api.js turns the text
// into objects and errors into KvCalcError.
#include <emscripten/bind.h>
#include <malloc.h>

#include <memory>
#include <string>

#include "api.hpp"
#include "report.hpp"

namespace {

// The page's one session: the module's only state.
kvcalc::Session& session() {
    static kvcalc::Session s;
    return s;
}

// A config read once, for JS to evaluate many times.
class Model {
public:
    explicit Model(const std::string& config) {
        auto m = session().model(config);
        if (m)
            model_ = std::move(m.value());
        else
            error_ = kvcalc::error_text(m.error());
    }

    // "" when the config was read, else its error report.
    std::string error() const { return error_; }

    std::string size(const std::string& options) const {
        return model_ ? kvcalc::size_text(*model_, options) : error_;
    }

    std::string check(const std::string& options) const {
        return model_ ? kvcalc::check_text(*model_, options) : error_;
    }

    std::string series(const std::string& options, const std::string& axes) const {
        return model_ ? kvcalc::series_text(*model_, options, axes) : error_;
    }

private:
    std::shared_ptr<const kvcalc::Model> model_;
    std::string error_;
};

std::string size(const std::string& config, const std::string& options) {
    return session().size(config, options);
}

std::string check(const std::string& config, const std::string& options) {
    return session().check(config, options);
}

std::string table(const std::string& configs, const std::string& options) {
    return session().table(configs, options);
}

std::string presets() {
    return session().presets();
}

std::string preset_config(const std::string& id) {
    return kvcalc::preset_config(id);
}

std::string gpu_presets() {
    return kvcalc::gpu_presets_json();
}

std::string options() {
    return kvcalc::to_text(kvcalc::options_json());
}

// Bytes the allocator has handed out and not had back: a private hook for the test that
// checks the heap stays flat after many bad inputs (not part of the JS API).
double heap_in_use() {
    return static_cast<double>(mallinfo().uordblks);
}

}  // namespace

EMSCRIPTEN_BINDINGS(kvcalc) {
    emscripten::function("size", &size);
    emscripten::function("check", &check);
    emscripten::function("table", &table);
    emscripten::function("presets", &presets);
    emscripten::function("presetConfig", &preset_config);
    emscripten::function("gpuPresets", &gpu_presets);
    emscripten::function("options", &options);
    emscripten::function("heapInUse", &heap_in_use);
    emscripten::class_<Model>("Model")
        .constructor<const std::string&>()
        .function("error", &Model::error)
        .function("size", &Model::size)
        .function("check", &Model::check)
        .function("series", &Model::series);
}
