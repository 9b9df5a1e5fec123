// The sizing sweep benchmark, built natively and as wasm (run by Node): one million
// (model, context) evaluations of size_model over the bundled models, and the per-call
// time of the text API (size_json: parse + size + report). Prints one JSON line.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "api.hpp"
#include "model.hpp"
#include "presets.hpp"
#include "sizing.hpp"

namespace {
double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int main(int argc, char** argv) {
    const std::size_t total = argc > 1 ? std::stoul(argv[1]) : 1000000;
    std::vector<kvcalc::ModelSpec> models;
    for (std::size_t i = 0; i < kvcalc::preset_count(); ++i) {
        auto m = kvcalc::read_model_text(kvcalc::preset_at(i).config_json);
        if (m) models.push_back(m.value());
    }
    // Contexts from 1 to about a million, spread on a log scale.
    std::vector<std::uint64_t> contexts;
    for (std::uint64_t c = 1; contexts.size() < 997; c = c * 1014 / 1000 + 1)
        contexts.push_back(c);

    std::uint64_t checksum = 0, done = 0;
    double t0 = now_ms();
    for (std::size_t i = 0; done < total; ++i) {
        const auto& m = models[i % models.size()];
        kvcalc::SizeOptions o;
        o.context = contexts[(i / models.size()) % contexts.size()];
        auto r = kvcalc::size_model(m, o);
        if (r) checksum += r->kv_bytes;
        ++done;
    }
    double sweep_ms = now_ms() - t0;

    // The text API, as the JS API calls it: config text in, report text out.
    const char* configs[] = {"Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-V3", "google/gemma-4-26B-A4B",
                             "Qwen/Qwen3-Next-80B-A3B-Instruct"};
    std::string json_out;
    std::printf("{\"evaluations\": %zu, \"sweep_ms\": %.1f, \"ns_per_evaluation\": %.1f, \"checksum\": %llu",
                static_cast<std::size_t>(done), sweep_ms, sweep_ms * 1e6 / static_cast<double>(done),
                static_cast<unsigned long long>(checksum));
    std::printf(", \"size_json_us\": {");
    bool first = true;
    for (const char* id : configs) {
        std::string text = kvcalc::preset_config(id);
        const int calls = 2000;
        double s = now_ms();
        std::size_t bytes = 0;
        for (int k = 0; k < calls; ++k)
            bytes += kvcalc::size_json(text, "{\"context\": 32768}").size();
        double us = (now_ms() - s) * 1000.0 / calls;
        std::printf("%s\"%s\": %.2f", first ? "" : ", ", id, us);
        first = false;
        if (bytes == 0) return 1;
    }
    std::printf("}}\n");
    return 0;
}
