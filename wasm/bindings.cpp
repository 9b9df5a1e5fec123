// The wasm module's surface: Embind bindings over the core's text calls (core/api.hpp). One
// Session keeps the configs the page has read, so a config seen before is not read again;
// a model handle also spares copying its text in. Every call answers JSON text, a report or
// {"error": {...}} (modelFigures: numbers in the wasm memory, or the error; ggufFeed: a GGUF
// reader's state); nothing here throws and no logic lives here: web/api/api-calls.js turns the
// text into objects and errors into KvCalcError.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api.hpp"
#include "report.hpp"
#include "sizing/checked.hpp"

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

// size()'s headline figures as numbers, with no report text to build or parse: model_figures
// writes them into `figures`, in the order of figure_table, and JS reads them straight from
// the wasm memory (figuresAddress(), figureNames()). A double is exact up to 2^53 - 1, which
// the core's checked arithmetic keeps every figure within; checked again here, since a double
// above it would be rounded silently.
struct Figure {
    const char* name;  // its JS key: the size report's, in camelCase
    std::uint64_t kvcalc::ModelFigures::*value;
};
using F = kvcalc::ModelFigures;
constexpr Figure figure_table[] = {
    {"context", &F::context},
    {"batch", &F::batch},
    {"tp", &F::tp},
    {"pp", &F::pp},
    {"kvDtypeBits", &F::kv_dtype_bits},
    {"bytesPerToken", &F::bytes_per_token},
    {"bytesPerTokenPerGpu", &F::bytes_per_token_per_gpu},
    {"stateBytes", &F::state_bytes},
    {"sequenceBytesNaive", &F::sequence_bytes_naive},
    {"sequenceBytesResident", &F::sequence_bytes_resident},
    {"sequenceBytesVllm", &F::sequence_bytes_vllm},
    {"sequenceBytesLlamacpp", &F::sequence_bytes_llamacpp},
    {"kvBytes", &F::kv_bytes},
    {"kvBytesPerGpu", &F::kv_bytes_per_gpu},
    {"kvBytesDeployment", &F::kv_bytes_deployment},
};
constexpr std::size_t figure_count = sizeof figure_table / sizeof figure_table[0];
double figures[figure_count];

// The figures' accounting ("resident"), the figures written; or the error's report.
std::string model_figures(int handle, const std::string& options) {
    return with_model(handle, [&](const auto& m) {
        auto r = kvcalc::size_figures(*m, options);
        if (!r) return kvcalc::error_text(r.error());
        for (const Figure& f : figure_table)
            if ((*r).*f.value > kvcalc::max_exact)
                return kvcalc::error_text(kvcalc::make_error(
                    kvcalc::code::overflow,
                    std::string(f.name) + " is above 2^53 - 1, which JS cannot hold exactly", f.name));
        for (std::size_t i = 0; i < figure_count; ++i)
            figures[i] = static_cast<double>((*r).*figure_table[i].value);
        return std::string(kvcalc::accounting_name(r->accounting));
    });
}

// "context,batch,...": the figures' keys, in the order model_figures writes them.
std::string figure_names() {
    std::string names;
    for (const Figure& f : figure_table)
        names += (names.empty() ? "" : ",") + std::string(f.name);
    return names;
}

// Where model_figures writes: a byte offset in the wasm memory.
std::uintptr_t figures_address() {
    return reinterpret_cast<std::uintptr_t>(figures);
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

// GGUF files read by JS in slices (web/api/gguf-read.js), one reader per file, known by a handle
// (its index + 1) until closed: JS feeds each slice it read and is told where to read next.
std::vector<std::unique_ptr<kvcalc::GgufReader>>& gguf_readers() {
    static std::vector<std::unique_ptr<kvcalc::GgufReader>> r;
    return r;
}

kvcalc::GgufReader* gguf_reader(int handle) {
    auto& r = gguf_readers();
    return handle > 0 && static_cast<std::size_t>(handle) <= r.size() ? r[handle - 1].get() : nullptr;
}

// A reader for a file of `file_size` bytes (a Blob's size: exact below 2^53): its handle. A
// closed reader's place is taken again.
int gguf_open(double file_size) {
    auto& r = gguf_readers();
    std::size_t i = 0;
    while (i < r.size() && r[i])
        ++i;
    if (i == r.size()) r.emplace_back();
    r[i] = std::make_unique<kvcalc::GgufReader>(static_cast<std::uint64_t>(file_size));
    return static_cast<int>(i + 1);
}

// Feeds the file's bytes from `offset` on (a Uint8Array): the reader's state as JSON text
// (kvcalc::gguf_status_text), with the document once read.
std::string gguf_feed(int handle, double offset, const std::string& bytes) {
    kvcalc::GgufReader* reader = gguf_reader(handle);
    if (!reader)
        return kvcalc::error_text(kvcalc::make_error(
            kvcalc::code::bad_option, "no open GGUF reader " + std::to_string(handle), "gguf"));
    reader->feed(static_cast<std::uint64_t>(offset), bytes);
    return kvcalc::gguf_status_text(*reader);
}

void gguf_close(int handle) {
    if (gguf_reader(handle)) gguf_readers()[handle - 1].reset();
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
    emscripten::function("modelFigures", &model_figures);
    emscripten::function("figureNames", &figure_names);
    emscripten::function("figuresAddress", &figures_address);
    emscripten::function("ggufOpen", &gguf_open);
    emscripten::function("ggufFeed", &gguf_feed);
    emscripten::function("ggufClose", &gguf_close);
}
