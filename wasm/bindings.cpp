// The wasm module's surface: Embind bindings over the core's text calls (core/api.hpp). One
// Session keeps the configs the page has read, so a config seen before is not read again;
// a model handle also spares copying its text in. Every call answers JSON text, a report or
// {"error": {...}}; nothing here throws and no logic lives here: web/api.js turns the text
// into objects and errors into KvCalcError.
#include <emscripten/bind.h>
#include <malloc.h>

#include <map>
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

// Models read once, for JS to evaluate many times, known to JS by a number (a handle) until
// it closes them. Plain functions over numbers keep the glue small (no Embind class).
std::map<int, std::shared_ptr<const kvcalc::Model>>& models() {
    static std::map<int, std::shared_ptr<const kvcalc::Model>> m;
    return m;
}

// {"handle": N}, or the config's error report.
std::string open_model(const std::string& config) {
    static int next = 0;
    auto m = session().model(config);
    if (!m) return kvcalc::error_text(m.error());
    models().emplace(++next, std::move(m.value()));
    return "{\"handle\":" + std::to_string(next) + "}";
}

void close_model(int handle) {
    models().erase(handle);
}

// The call on an open model, or an error for a handle that is not (a bug in the caller).
template <class F>
std::string with_model(int handle, F call) {
    auto it = models().find(handle);
    if (it == models().end())
        return kvcalc::error_text(
            kvcalc::make_error(kvcalc::code::bad_option, "no open model " + std::to_string(handle), "model"));
    return call(it->second);
}

std::string model_size(int handle, const std::string& options) {
    return with_model(handle, [&](const auto& m) { return session().size(m, options); });
}

std::string model_check(int handle, const std::string& options) {
    return with_model(handle, [&](const auto& m) { return session().check(m, options); });
}

std::string model_series(int handle, const std::string& options, const std::string& axes) {
    return with_model(handle, [&](const auto& m) { return session().series(m, options, axes); });
}

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
    emscripten::function("openModel", &open_model);
    emscripten::function("closeModel", &close_model);
    emscripten::function("modelSize", &model_size);
    emscripten::function("modelCheck", &model_check);
    emscripten::function("modelSeries", &model_series);
}
