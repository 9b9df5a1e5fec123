// The sizing sweep benchmark, built natively and as wasm (run by Node): one million (model,
// context) evaluations over the bundled models, as a chart or a search evaluates them (a size
// plan per model, then the figures of each context), the same through size_model (the full
// result, planned afresh each time), and the per-call time of the text API on a config the
// session has seen (options in, report text out) and on one it has not. Prints one JSON line.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "api.hpp"
#include "config/model.hpp"
#include "config/presets.hpp"
#include "sizing/sizing.hpp"

namespace {
double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// One pass of the sweep: total (plan, context) pairs; adds each KV figure to checksum and
// answers the milliseconds it took. A function of its own, run twice: V8 runs new wasm code
// in its baseline compiler (Liftoff) and swaps in optimised code (TurboFan) for the next
// call of a function that has run hot, so the first pass shows a page's first evaluations
// and the second what a chart or a search that keeps evaluating gets.
[[gnu::noinline]] double sweep(const std::vector<kvcalc::SizePlan>& plans,
                               const std::vector<std::uint64_t>& contexts, std::size_t total,
                               std::uint64_t& checksum) {
    const double t0 = now_ms();
    for (std::size_t i = 0; i < total; ++i) {
        auto f = plans[i % plans.size()].figures(contexts[(i / plans.size()) % contexts.size()]);
        if (f) checksum += f->kv_bytes;
    }
    return now_ms() - t0;
}
}  // namespace

int main(int argc, char** argv) {
    const std::size_t total = argc > 1 ? std::stoul(argv[1]) : 1000000;
    std::vector<kvcalc::ModelSpec> models;
    for (std::size_t i = 0; i < kvcalc::preset_count(); ++i) {
        auto m = kvcalc::read_model_text(kvcalc::preset_at(i).config_json);
        if (m) models.push_back(m.value());
    }
    std::vector<kvcalc::SizePlan> plans;
    for (const auto& m : models)
        plans.push_back(kvcalc::SizePlan::make(m, kvcalc::SizeOptions{}).value());
    // Contexts from 1 to about a million, spread on a log scale.
    std::vector<std::uint64_t> contexts;
    for (std::uint64_t c = 1; contexts.size() < 997; c = c * 1014 / 1000 + 1)
        contexts.push_back(c);

    std::uint64_t checksum = 0;
    const double sweep_ms = sweep(plans, contexts, total, checksum);
    std::uint64_t warm_checksum = 0;
    const double warm_ms = sweep(plans, contexts, total, warm_checksum);
    if (warm_checksum != checksum) return 1;

    // The same pairs through size_model: a plan and a full result each time.
    const std::size_t full_total = total / 10;
    std::uint64_t full_checksum = 0;
    double t0 = now_ms();
    for (std::size_t i = 0; i < full_total; ++i) {
        kvcalc::SizeOptions o;
        o.context = contexts[(i / models.size()) % contexts.size()];
        auto r = kvcalc::size_model(models[i % models.size()], o);
        if (r) full_checksum += r->kv_bytes;
    }
    const double full_ms = now_ms() - t0;

    std::printf(
        "{\"evaluations\": %zu, \"sweep_ms\": %.1f, \"ns_per_evaluation\": %.1f, \"checksum\": %llu, "
        "\"warm_sweep_ms\": %.1f, \"warm_ns_per_evaluation\": %.1f, "
        "\"size_model_evaluations\": %zu, \"size_model_ms\": %.1f, \"size_model_ns\": %.1f, "
        "\"size_model_checksum\": %llu",
        total, sweep_ms, sweep_ms * 1e6 / static_cast<double>(total),
        static_cast<unsigned long long>(checksum), warm_ms, warm_ms * 1e6 / static_cast<double>(total),
        full_total, full_ms, full_ms * 1e6 / static_cast<double>(full_total),
        static_cast<unsigned long long>(full_checksum));

    // The text API as the JS API calls it: a config the session has seen (the usual case: a
    // reader changing an option), and a config text read afresh each time.
    const char* configs[] = {"Qwen/Qwen2.5-7B-Instruct", "deepseek-ai/DeepSeek-V3", "google/gemma-4-26B-A4B",
                             "Qwen/Qwen3-Next-80B-A3B-Instruct"};
    for (const char* kind : {"seen", "fresh"}) {
        std::printf(", \"size_%s_us\": {", kind);
        bool first = true;
        for (const char* id : configs) {
            const std::string text = kvcalc::preset_config(id);
            kvcalc::Session session;
            const int calls = 2000;
            std::size_t bytes = session.size(text, "").size();  // read once
            double s = now_ms();
            for (int k = 0; k < calls; ++k)
                bytes += std::string(kind) == "seen" ? session.size(text, "{\"context\": 32768}").size()
                                                     : kvcalc::size_json(text, "{\"context\": 32768}").size();
            double us = (now_ms() - s) * 1000.0 / calls;
            std::printf("%s\"%s\": %.2f", first ? "" : ", ", id, us);
            first = false;
            if (bytes == 0) return 1;
        }
        std::printf("}");
    }
    std::printf("}\n");
    return 0;
}
