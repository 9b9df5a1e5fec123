#include "engines/llamacpp/llamacpp_log_check.hpp"

#include <algorithm>
#include <array>

#include "engines/llamacpp/llamacpp_model.hpp"
#include "sizing/checked.hpp"
#include "sizing/units.hpp"

namespace kvcalc {
namespace {

// Builds where a rule of the allocation changed (llamacpp_cache.cpp, llamacpp_model.cpp; LLAMACPP.md
// 1.3-1.8): a log whose lines fit several eras is checked at each rule's first build.
constexpr std::array<std::uint64_t, 15> rule_builds{2528, 2786, 2879, 5137, 5429, 5554, 5761, 5913,
                                                    6264, 6869, 6931, 6981, 7836, 8040, 10217};
constexpr std::uint64_t b_swa_cache = 5429, b_streams = 5913, b_fa_auto = 6325, b_padded_print = 6981,
                        b_unpadded_print = 4881;

// The builds a run's wording dates from (LLAMACPP.md 2.1, 2.2).
struct Era {
    std::uint64_t lo = 1, hi = llamacpp_current_build;
    std::string why;
    bool conflict = false;
};

Era era_of(const LlamaRun& run) {
    Era e;
    auto narrow = [&](std::uint64_t lo, std::uint64_t hi, int line, const char* wording) {
        if (lo > e.hi || hi < e.lo) {
            e.conflict = true;
            return;
        }
        e.lo = std::max(e.lo, lo);
        e.hi = std::min(e.hi, hi);
        if (e.why.empty()) e.why = format("line {}'s {}", line, wording);
    };
    for (const LlamaCacheLine& c : run.caches) {
        const std::string& f = c.function;
        if (f == "llama_kv_cache")
            narrow(6235, llamacpp_current_build, c.line, "\"llama_kv_cache:\" (b6235 on)");
        else if (f == "llama_kv_cache_unified" && c.streams)
            narrow(5913, 6234, c.line, "\"llama_kv_cache_unified: ... N/M seqs\" (b5913-b6234)");
        else if (f == "llama_kv_cache_unified" && c.seqs)
            narrow(5441, 5912, c.line, "\"llama_kv_cache_unified: ... N seqs\" (b5441-b5912)");
        else if (f == "llama_kv_cache_unified" && c.cells)
            narrow(5429, 5440, c.line, "\"llama_kv_cache_unified: size = ... cells, layers\" (b5429-b5440)");
        else if (f == "llama_kv_cache_unified")
            narrow(5265, 5428, c.line, "\"llama_kv_cache_unified: KV self size\" (b5265-b5428)");
        else if (f == "llama_memory_recurrent")
            c.rs_seq ? narrow(9191, llamacpp_current_build, c.line, "\"rs_seq\" (b9191 on)")
                     : narrow(5761, 9190, c.line, "\"llama_memory_recurrent:\" without rs_seq (b5761-b9190)");
        else if (f == "llama_context" || f == "llama_context_kv_self")
            narrow(4799, 5264, c.line, "\"llama_context: KV self size\" (b4881-b5264, a b4799 branch)");
        else if (f == "llama_init_from_model")
            narrow(4464, 4880, c.line, "\"llama_init_from_model: KV self size\" (b4464-b4880)");
        else if (f == "llama_new_context_with_model")
            narrow(1, 4463, c.line, "\"llama_new_context_with_model: KV self size\" (to b4463)");
    }
    const std::string& fa = run.flash_attn;
    if (fa == "auto" || fa == "enabled" || fa == "disabled")
        narrow(b_fa_auto, llamacpp_current_build, run.flash_attn_line,
               "\"flash_attn = auto|enabled|disabled\" (b6325 on)");
    else if (fa == "0" || fa == "1")
        narrow(2786, b_fa_auto - 1, run.flash_attn_line, "\"flash_attn = 0|1\" (b2786-b6324)");
    if (run.kv_unified)
        narrow(b_streams, llamacpp_current_build, run.kv_unified_line, "\"kv_unified\" (b5913 on)");
    return e;
}

// A setting the log states, or the candidates to try when it does not (first: the default).
struct Choice {
    std::vector<bool> values;
    std::string from;
};

Choice stated(bool v, std::string from) {
    return {{v}, std::move(from)};
}

std::string num(std::uint64_t v) {
    return format("{}", grouped(v));
}

std::string mib_text(std::uint64_t bytes) {
    return format("{} MiB", fixed_point((bytes * 100 + (std::uint64_t{1} << 19)) >> 20, 2));
}

// One trial of the settings the log leaves open, and what it gives.
struct Trial {
    std::uint64_t build = 0;
    bool fa = false, swa_full = false, unified = false;
    std::shared_ptr<const ModelSpec> view;
    std::shared_ptr<const LlamacppPlan> plan;
    LlamacppAllocation alloc;
    std::vector<CrossCheck> checks;
    std::size_t disagree = 0, agree = 0, defaults = 0;
};

const char* object_label(LlamacppCache c) {
    return c == LlamacppCache::swa         ? "SWA cache"
           : c == LlamacppCache::recurrent ? "recurrent state"
                                           : "KV cache";
}

// The printed cache lines against the trial's objects: by kind, and the attention lines the paste
// does not say the kind of (no iSWA creation line) in the order llama.cpp prints them, base then SWA.
void compare_caches(const LlamaRun& run, Trial& t) {
    std::vector<const LlamacppObject*> attention, recurrent;
    for (const LlamacppObject& o : t.alloc.objects)
        (o.cache == LlamacppCache::recurrent ? recurrent : attention).push_back(&o);
    std::size_t next_attention = 0;
    auto add = [&](const std::string& figure, const std::string& engine, const std::string& kvcalc,
                   const std::string& derived, bool agree, int line) {
        t.checks.push_back({figure, engine, kvcalc, agree, line, derived});
        ++(agree ? t.agree : t.disagree);
    };
    for (const LlamaCacheLine& c : run.caches) {
        const LlamacppObject* o = nullptr;
        if (c.kind == LlamaCacheKind::recurrent) {
            o = recurrent.empty() ? nullptr : recurrent.front();
        } else {
            const LlamacppCache want = c.kind == LlamaCacheKind::swa       ? LlamacppCache::swa
                                       : c.kind == LlamaCacheKind::non_swa ? LlamacppCache::base
                                                                           : LlamacppCache::none;
            for (const LlamacppObject* a : attention)
                if (a->cache == want) o = a;
            if (want == LlamacppCache::none && next_attention < attention.size())
                o = attention[next_attention++];
        }
        const std::string label = c.kind == LlamaCacheKind::non_swa ? "non-SWA cache"
                                  : o                               ? object_label(o->cache)
                                                                    : cache_kind_name(c.kind);
        if (!o) {
            add(label, format("{} (line {})", c.total.text, c.line),
                format("no {} cache at build {} for this model", cache_kind_name(c.kind), t.build), "none",
                false, c.line);
            continue;
        }
        auto count = [&](const char* what, const std::optional<LogCount>& printed, std::uint64_t mine) {
            if (!printed) return;
            add(format("{} {}", label, what), format("{}", num(printed->value)), num(mine), num(mine),
                printed->value == mine, printed->line);
        };
        count("cells", c.cells, o->cells);
        count("layers", c.layers, o->log_layers);
        count("seqs", c.seqs, t.alloc.n_seq_max);
        if (c.streams) count("streams", c.streams, o->streams);
        // Rollback snapshots (b9191): each sequence keeps 1 + n_rs_seq rows (llama-memory-recurrent.cpp).
        const std::uint64_t rows = c.rs_seq ? 1 + c.rs_seq->value : 1;
        auto bytes = [&](const std::string& what, const std::optional<LogMemory>& printed,
                         std::uint64_t mine) {
            if (!printed) return;
            const std::uint64_t b = mine * rows;  // below 2^53 x 257: not reached for real caches
            add(format("{} {}", label, what), printed->text, format("{} B ({})", num(b), mib_text(b)),
                mib_text(b), printed->low <= b && b <= printed->high, printed->line);
        };
        const bool rec = o->cache == LlamacppCache::recurrent;
        bytes(format("{} ({})", rec ? "R" : "K", c.type_k.empty() ? "?" : c.type_k), c.k, o->k_bytes);
        bytes(format("{} ({})", rec ? "S" : "V", c.type_v.empty() ? "?" : c.type_v), c.v, o->v_bytes);
        bytes("total", c.total, o->bytes);
    }
}

// The other lines that state what was allocated: the iSWA creation lines and the kv_size line where
// no summary prints cells, the padding, n_ctx_seq, the server's slot, the per-device buffers.
void compare_other(const LlamaRun& run, const LlamaLogReading& r, Trial& t) {
    auto add = [&](std::string figure, std::string engine, std::string kvcalc, bool agree, int line) {
        std::string derived = kvcalc;
        t.checks.push_back(
            {std::move(figure), std::move(engine), std::move(kvcalc), agree, line, std::move(derived)});
        ++(agree ? t.agree : t.disagree);
    };
    const LlamacppAllocation& a = t.alloc;
    auto object = [&](LlamacppCache c) -> const LlamacppObject* {
        for (const LlamacppObject& o : a.objects)
            if (o.cache == c) return &o;
        return nullptr;
    };
    bool cells_printed = false;
    for (const LlamaCacheLine& c : run.caches)
        cells_printed = cells_printed || c.cells.has_value();
    auto cells = [&](const char* figure, const std::optional<LogCount>& printed, LlamacppCache c) {
        if (!printed || cells_printed) return;
        const LlamacppObject* o = object(c);
        add(figure, num(printed->value), o ? num(o->cells) : "none", o && o->cells == printed->value,
            printed->line);
    };
    cells("non-SWA cache cells", run.non_swa_cells, LlamacppCache::base);
    cells("SWA cache cells", run.swa_cells, LlamacppCache::swa);
    cells("KV cache cells (kv_size)", run.kv_size, LlamacppCache::base);
    if (run.kv_size_layers && !cells_printed)
        if (const LlamacppObject* o = object(LlamacppCache::base))
            add("KV cache layers (n_layer)", num(run.kv_size_layers->value), num(o->layers),
                run.kv_size_layers->value == o->layers, run.kv_size_layers->line);
    if (run.padding)
        add("padding", num(run.padding->value), num(a.padding), run.padding->value == a.padding,
            run.padding->line);
    // n_ctx_seq (n_ctx_per_seq) as llama_context prints it: from b4881 to b6980 before the padding, of
    // the context asked for (LLAMACPP.md 1.3), else after it; before b5913 one cache is split evenly.
    if (run.n_ctx_seq) {
        const std::uint64_t seqs = a.n_seq_max;
        const std::uint64_t said =
            t.build >= b_padded_print ? a.n_ctx_seq
            : t.build >= b_unpadded_print
                ? (t.unified && t.build >= b_streams ? a.n_ctx_requested : a.n_ctx_requested / seqs)
                : a.n_ctx / seqs;
        add("n_ctx_seq", num(run.n_ctx_seq->value), num(said), run.n_ctx_seq->value == said,
            run.n_ctx_seq->line);
    }
    if (run.n_ctx_slot) {
        const std::uint64_t v = r.slot_cells.value;
        const bool capped = r.n_ctx_train && run.n_ctx_slot->value == std::min(v, *r.n_ctx_train);
        add("slot context", num(run.n_ctx_slot->value), num(v), run.n_ctx_slot->value == v || capped,
            run.n_ctx_slot->line);
    }
    // The per-device buffers add up to the summary for unquantized types; CUDA pads quantized rows and
    // backends align buffers (LLAMACPP.md 1.10), so those are not held to the bytes.
    const bool quantized = find_ggml_type(r.type_k)->quantized() || find_ggml_type(r.type_v)->quantized();
    if (!run.buffers.empty() && !quantized) {
        std::uint64_t kv = 0, rs = 0, kv_lo = 0, kv_hi = 0, rs_lo = 0, rs_hi = 0;
        int kv_line = 0, rs_line = 0;
        std::string kv_text, rs_text;
        for (const LlamaBufferLine& b : run.buffers) {
            // "Meta()" is the device of a tensor-split run (-sm tensor), whose buffer holds the devices'
            // shares: not a device of its own to add.
            if (b.device.compare(0, 5, "Meta(") == 0) continue;
            (b.recurrent ? rs_lo : kv_lo) += b.size.low;
            (b.recurrent ? rs_hi : kv_hi) += b.size.high;
            std::string& text = b.recurrent ? rs_text : kv_text;
            format_to(text, text.empty() ? "{} {}" : " + {} {}", b.device, b.size.text);
            (b.recurrent ? rs_line : kv_line) = b.line;
        }
        for (const LlamacppObject& o : a.objects)
            (o.cache == LlamacppCache::recurrent ? rs : kv) += o.bytes;
        if (kv_line)
            add("KV buffers, all devices", kv_text, format("{} B ({})", num(kv), mib_text(kv)),
                kv_lo <= kv && kv <= kv_hi, kv_line);
        if (rs_line)
            add("RS buffers, all devices", rs_text, format("{} B ({})", num(rs), mib_text(rs)),
                rs_lo <= rs && rs <= rs_hi, rs_line);
    }
}

// Ollama's pre-load estimate (fs/ggml/ggml.go GraphSize @ f560bd077^, LLAMACPP.md 4.2), which is not
// llama.cpp's allocation: per layer context x (key_length + value_length) x head_count_kv x bytes per
// element, with q8_0 at 1 byte and q4_0 at half, no padding; gemma3's and gpt-oss's sliding layers
// at parallel x window + batch; a recurrent layer's state once. In half bytes, for q4_0's 0.5.
Result<std::uint64_t> ollama_estimate(const ModelSpec& v, std::uint64_t context, std::uint64_t parallel,
                                      std::uint64_t batch, const std::string& type) {
    const std::uint64_t halves = type == "q8_0" ? 2 : type == "q4_0" ? 1 : type == "f32" ? 8 : 4;
    const bool gemma3 = v.llamacpp_arch == "gemma3", gpt_oss = v.llamacpp_arch == "gpt-oss";
    opt_u64 total = 0;
    for (const LayerGroup& g : v.groups) {
        if (g.kind == LayerKind::linear_state) {
            if (g.state.mixer == "short_conv")
                return fail(code::unsupported, "engine_log", "Ollama's estimate of LFM2's short-conv state");
            const std::uint64_t state =
                (g.state.conv_rows * g.state.conv_channels + g.state.ssm_heads * g.state.ssm_head_elements) *
                4 * 2;
            total = add(total, mul(state, g.count));
            continue;
        }
        if (g.kind == LayerKind::mla || !is_attention(g.kind))
            return fail(code::unsupported, "engine_log", "Ollama's estimate of {} layers", g.name);
        std::uint64_t ctx = context;
        if (g.kind == LayerKind::sliding_window && (gemma3 || gpt_oss)) {
            // gemma3: its sliding layers keep parallel x sliding_window + batch; gpt-oss: 4096, not its 128.
            auto held = add(mul(parallel, gpt_oss ? 4096 : g.window.value), batch);
            if (!held) return fail(code::overflow, "engine_log", "Ollama's estimate");
            ctx = *held;
        }
        total = add(total, mul(mul(mul(ctx, g.k_head_dim.value + g.v_head_dim.value), g.kv_heads.value),
                               mul(halves, g.count)));
    }
    if (!total) return fail(code::overflow, "engine_log", "Ollama's estimate exceeds 2^53 - 1 bytes");
    return *total / 2;
}

}  // namespace

Result<LlamaLogReading> read_llamacpp_log(const ModelSpec& model, const LlamaLog& log, const Options& o) {
    const LlamaRun& run = log.run();
    LlamaLogReading r;
    r.engine = log.engine;
    const bool ollama = log.engine == "ollama", lmstudio = log.engine == "lmstudio";
    if (model.max_context.value) r.n_ctx_train = model.max_context.value;
    auto line = [](int n) { return format("line {}", n); };
    // A setting given beside the log: it wins, and a warning says where the two differ.
    auto given = [&](const char* name, const std::string& mine, const std::string& logged, int at) {
        if (!logged.empty() && logged != mine)
            r.warnings.push_back(
                {name, format("the engine log states {} {} (line {}); checked with {} {} as given", name,
                              logged, at, name, mine)});
    };

    // The build: printed, given, or the era the wording dates from.
    Era era = era_of(run);
    if (era.conflict) {
        r.notes.push_back(
            "the lines' wording fits no single llama.cpp era (a paste of several builds?): every "
            "era's rules were tried");
        era = Era{};
    }
    if (o.llamacpp_build) {
        if (run.build)
            given("llamacpp_build", format("{}", *o.llamacpp_build), format("{}", run.build->value),
                  run.build->line);
        era = {*o.llamacpp_build, *o.llamacpp_build, "llamacpp_build", false};
    } else if (run.build) {
        era = {run.build->value, run.build->value,
               format("line {} (build: {})", run.build->line, run.build->value), false};
    } else if (era.why.empty()) {
        era.why = "no line dates the build";
    }
    r.build_low = era.lo;
    r.build_high = era.hi;
    if (ollama && !log.ollama_version.empty()) r.version = format("Ollama {}", log.ollama_version);
    if (run.build) r.version += format("{}build {}", r.version.empty() ? "" : ", ", run.build->value);

    // The context asked for (-c; Ollama: num_ctx x parallel), and the sequences.
    std::optional<LogCount> cells_line;
    std::uint64_t streams_printed = 0;
    for (const LlamaCacheLine& c : run.caches)
        if (c.kind != LlamaCacheKind::recurrent && c.cells && !cells_line) {
            cells_line = c.cells;
            streams_printed = c.streams ? c.streams->value : 0;
        }
    std::optional<LogCount> seqs_line = run.n_seq_max;
    for (const LlamaCacheLine& c : run.caches)
        if (!seqs_line && c.seqs) seqs_line = c.seqs;
    if (!seqs_line) seqs_line = run.n_slots;
    if (!seqs_line) seqs_line = run.ollama_parallel;
    if (o.parallel) {
        if (seqs_line)
            given("parallel", format("{}", *o.parallel), format("{}", seqs_line->value), seqs_line->line);
        r.n_seq_max = {*o.parallel, "parallel"};
    } else if (seqs_line) {
        r.n_seq_max = {seqs_line->value, format("n_seq_max, {}", line(seqs_line->line))};
    } else {
        r.n_seq_max = {1, "assumed: the log states no sequences (n_seq_max, seqs, n_slots): give parallel"};
        r.warnings.push_back({"parallel",
                              "the engine log states no sequence count (n_seq_max, seqs or n_slots): 1 "
                              "assumed; give parallel"});
    }
    if (o.context) {
        if (run.n_ctx)
            given("context", format("{}", *o.context), format("{}", run.n_ctx->value), run.n_ctx->line);
        r.n_ctx = {*o.context, "context"};
    } else if (run.n_ctx) {
        r.n_ctx = {run.n_ctx->value, format("n_ctx, {}", line(run.n_ctx->line))};
    } else if (run.ollama_ctx_size) {
        r.n_ctx = {run.ollama_ctx_size->value,
                   format("the runner's --ctx-size, {}", line(run.ollama_ctx_size->line))};
    } else if (run.kv_size) {
        r.n_ctx = {run.kv_size->value, format("kv_size, {}", line(run.kv_size->line))};
    } else if (cells_line) {
        r.n_ctx = {cells_line->value * std::max<std::uint64_t>(streams_printed, 1),
                   format("the cache's cells, {}", line(cells_line->line))};
    } else if (run.n_ctx_seq) {
        r.n_ctx = {run.n_ctx_seq->value * r.n_seq_max.value,
                   format("n_ctx_seq, {}, x {} sequences", line(run.n_ctx_seq->line), r.n_seq_max.value)};
    } else if (run.non_swa_cells) {
        r.n_ctx = {run.non_swa_cells->value,
                   format("the non-SWA cache's cells, {}", line(run.non_swa_cells->line))};
    }
    if (!r.n_ctx.value)
        return fail(code::missing_field, "context",
                    "the engine log states no context (n_ctx, kv_size, a cache's cells or Ollama's "
                    "--ctx-size): give context (llama.cpp's -c)");
    if (r.n_seq_max.value == 0 || r.n_seq_max.value > llamacpp_max_seq)
        return fail(code::invalid_value, "engine_log",
                    "the engine log's {} sequences: llama.cpp takes 1 to 256", r.n_seq_max.value);

    // Batches: printed, else the host's (LM Studio's n_batch 512; -b 2048 and -ub 512 elsewhere).
    if (o.ubatch_size) {
        if (run.n_ubatch)
            given("ubatch_size", format("{}", *o.ubatch_size), format("{}", run.n_ubatch->value),
                  run.n_ubatch->line);
        r.n_ubatch = {*o.ubatch_size, "ubatch_size"};
    } else {
        r.n_ubatch =
            run.n_ubatch ? Sourced{run.n_ubatch->value, line(run.n_ubatch->line)} : Sourced{512, "default"};
    }
    r.n_batch = run.n_batch ? Sourced{run.n_batch->value, line(run.n_batch->line)}
                : lmstudio  ? Sourced{512, "LM Studio's"}
                            : Sourced{2048, "default"};

    // Cache types: the summary's K (type) and V (type), the kv_size line's, Ollama's, or given.
    std::string tk, tv;
    int types_line = 0;
    for (const LlamaCacheLine& c : run.caches)
        if (c.kind != LlamaCacheKind::recurrent && !c.type_k.empty() && tk.empty()) {
            tk = c.type_k;
            tv = c.type_v;
            types_line = c.line;
        }
    if (tk.empty() && !run.init_type_k.empty()) {
        tk = run.init_type_k;
        tv = run.init_type_v;
        types_line = run.kv_size ? run.kv_size->line : 0;
    }
    r.types_from = types_line ? line(types_line) : "";
    if (tk.empty() && ollama) {
        tk = tv = !run.ollama_cache_type.empty() ? run.ollama_cache_type : log.ollama_kv_cache_type;
        r.types_from = tk.empty() ? "" : "Ollama's cache type";
    }
    if (o.cache_type_k) given("cache_type_k", *o.cache_type_k, tk, types_line);
    if (o.cache_type_v) given("cache_type_v", *o.cache_type_v, tv, types_line);
    r.type_k = o.cache_type_k ? *o.cache_type_k : tk.empty() ? "f16" : tk;
    r.type_v = o.cache_type_v ? *o.cache_type_v : tv.empty() ? "f16" : tv;
    if (o.cache_type_k || o.cache_type_v) r.types_from = "given";
    if (r.types_from.empty()) r.types_from = "assumed: f16, the default (the log prints no type)";
    if (!find_ggml_type(r.type_k) || !find_ggml_type(r.type_v))
        return fail(code::unsupported, "engine_log",
                    "the engine log's cache type {}: not one of llama.cpp's nine",
                    find_ggml_type(r.type_k) ? r.type_v : r.type_k);

    // Flash attention at the cache's creation (auto counts as on), swa_full, unified: stated, or tried.
    Choice fa, swa, unified;
    const std::string& f = run.flash_attn;
    if (o.flash_attn) {
        fa = stated(*o.flash_attn != "off", "flash_attn");
    } else if (!f.empty()) {
        fa = stated(f == "1" || f == "enabled" || f == "auto" || f == "on",
                    format("flash_attn = {}, {}{}", f, line(run.flash_attn_line),
                           f == "auto" ? " (on when the cache is made)" : ""));
    } else {
        fa = {{era.lo >= b_fa_auto, era.lo < b_fa_auto}, "not printed: both tried"};
    }
    if (o.swa_full) {
        swa = stated(*o.swa_full, "swa_full");
    } else if (run.swa_full_line) {
        swa = stated(true, format("\"using full-size SWA cache\", {}", line(run.swa_full_line)));
    } else if (run.swa_cells || run.non_swa_cells) {
        swa = stated(false, format("the iSWA creation lines without \"using full-size SWA cache\", {}",
                                   line(run.swa_cells ? run.swa_cells->line : run.non_swa_cells->line)));
    } else {
        // Library users get llama.cpp's default, full-size (LM Studio; Ollama's runner before v0.30).
        const bool library = lmstudio || ollama;
        swa = {{library, !library}, "not printed: both tried"};
    }
    if (o.kv_unified) {
        unified = stated(*o.kv_unified, "kv_unified");
    } else if (run.kv_unified) {
        unified = stated(*run.kv_unified, format("kv_unified, {}", line(run.kv_unified_line)));
    } else if (streams_printed && r.n_seq_max.value > 1) {
        unified =
            stated(streams_printed == 1, format("{} streams, {}", streams_printed, line(cells_line->line)));
    } else {
        unified = {{false, true}, "not printed: both tried"};
    }

    // Every candidate: each era's first build, each open setting.
    std::vector<std::uint64_t> builds{era.lo};
    for (std::uint64_t b : rule_builds)
        if (b > era.lo && b <= era.hi) builds.push_back(b);
    std::optional<Trial> best;
    std::vector<std::pair<std::uint64_t, std::size_t>> fits_by_build;  // each trial's build and disagreements
    std::optional<Error> first_error;  // of the newest candidate: the one to report
    for (auto bi = builds.rbegin(); bi != builds.rend(); ++bi) {
        const std::uint64_t b = *bi;
        auto view = llamacpp_model(model, b);
        if (!view) {
            if (!first_error) first_error = view.error();
            continue;
        }
        auto shared = std::make_shared<const ModelSpec>(std::move(view.value()));
        for (std::size_t fi = 0; fi < fa.values.size(); ++fi)
            for (std::size_t si = 0; si < swa.values.size(); ++si)
                for (std::size_t ui = 0; ui < unified.values.size(); ++ui) {
                    const bool has_swa = b >= b_swa_cache, streams = b >= b_streams;
                    if ((si && !has_swa) || (ui && (!streams || r.n_seq_max.value == 1))) continue;
                    LlamacppOptions lo;
                    lo.build = b;
                    lo.parallel = r.n_seq_max.value;
                    lo.cache_type_k = r.type_k;
                    lo.cache_type_v = r.type_v;
                    lo.flash_attn = fa.values[fi] ? "on" : "off";
                    if (has_swa) lo.swa_full = swa.values[si];
                    if (streams) lo.kv_unified = unified.values[ui];
                    lo.ubatch_size = r.n_ubatch.value;
                    auto s = llamacpp_settings(lo);
                    if (!s) {
                        if (!first_error) first_error = s.error();
                        continue;
                    }
                    s.value().n_batch = r.n_batch;
                    auto plan = LlamacppPlan::make(*shared, *s);
                    if (!plan) {
                        if (!first_error) first_error = plan.error();
                        continue;
                    }
                    auto alloc = plan->allocate(r.n_ctx.value, true);
                    if (!alloc) {
                        if (!first_error) first_error = alloc.error();
                        continue;
                    }
                    Trial t;
                    t.build = b;
                    t.fa = fa.values[fi];
                    t.swa_full = has_swa && swa.values[si];
                    t.unified = streams && unified.values[ui];
                    t.view = shared;
                    t.plan = std::make_shared<const LlamacppPlan>(std::move(plan.value()));
                    t.alloc = std::move(alloc.value());
                    t.defaults = (fi == 0) + (si == 0) + (ui == 0);
                    compare_caches(run, t);
                    fits_by_build.push_back({b, t.disagree});
                    if (!best || t.disagree < best->disagree ||
                        (t.disagree == best->disagree && t.defaults > best->defaults))
                        best = std::move(t);
                }
    }
    if (!best) return to_failure(std::move(*first_error));
    Trial& t = *best;
    r.build = t.build;
    // The eras whose rules fit the figures as well as the best: from the first such era's build to the end
    // of the last one's.
    std::uint64_t fit_lo = 0, fit_hi = 0;
    for (std::size_t i = 0; i < builds.size(); ++i)
        for (const auto& [b, d] : fits_by_build)
            if (b == builds[i] && d == t.disagree) {
                if (!fit_lo) fit_lo = b;
                fit_hi = i + 1 < builds.size() ? builds[i + 1] - 1 : era.hi;
            }
    r.build_from = era.lo == era.hi ? era.why
                   : fit_lo == era.lo && fit_hi == era.hi
                       ? format("{}: builds b{} to b{}, whose rules agree here", era.why, era.lo, era.hi)
                       : format("{}: builds b{} to b{}; the figures fit the rules of b{} to b{}{}", era.why,
                                era.lo, era.hi, fit_lo, fit_hi, t.disagree ? " best" : "");
    r.flash_attn = t.fa;
    r.flash_attn_from =
        fa.values.size() == 1 ? fa.from : format("not printed: {} fits the figures", t.fa ? "on" : "off");
    r.swa_full = t.swa_full;
    r.swa_full_from = swa.values.size() == 1 ? swa.from
                      : t.plan->swa_window()
                          ? format("not printed: {} fits the figures", t.swa_full ? "true" : "false")
                          : "no sliding-window layers";
    r.kv_unified = t.unified;
    r.kv_unified_from = t.build < b_streams          ? "one cache for all sequences (before b5913)"
                        : unified.values.size() == 1 ? unified.from
                        : r.n_seq_max.value == 1
                            ? "one sequence"
                            : format("not printed: {} fits the figures", t.unified ? "true" : "false");

    // A slot's context: the server's own figure, else its cells. Before b5913 one cache holds every
    // sequence and llama-server gives each slot n_ctx / n_parallel; from b5913 a slot holds n_ctx_seq cells
    // of its stream (the whole cache when unified).
    const std::uint64_t seqs = t.alloc.n_seq_max;
    std::uint64_t slot = t.build < b_streams ? t.alloc.n_ctx / seqs : t.alloc.n_ctx_seq;
    std::string slot_from = t.build < b_streams
                                ? "n_ctx / n_seq_max: one cache split among the slots (before b5913)"
                            : t.unified ? "n_ctx_seq: one stream shared by the slots"
                                        : "n_ctx_seq: a stream of cells a slot";
    // The engine's printed cells, where kvcalc's derivation differs: the verdict follows what it
    // allocated (verdict_from kvcalc: kvcalc's).
    const LlamacppObject* base = nullptr;
    for (const LlamacppObject& obj : t.alloc.objects)
        if (obj.cache == LlamacppCache::base) base = &obj;
    const std::optional<LogCount> printed = cells_line    ? cells_line
                                            : run.kv_size ? run.kv_size
                                                          : run.non_swa_cells;
    const bool follow_kvcalc = o.verdict_from && *o.verdict_from == "kvcalc";
    if (base && printed && printed->value != base->cells && !follow_kvcalc &&
        t.alloc.n_ctx == base->cells * base->streams) {
        slot = t.build < b_streams ? printed->value / seqs : printed->value;
        slot_from = format("the engine's printed cells, line {} (kvcalc derives {})", printed->line,
                           num(base->cells));
    }
    if (run.n_ctx_slot) {
        slot = run.n_ctx_slot->value;
        slot_from = format("the server's slot context, {}", line(run.n_ctx_slot->line));
    }
    r.slot_cells = {slot, slot_from};
    compare_other(run, r, t);

    // Ollama's estimate, where the log prints one: its own formula, not llama.cpp's allocation.
    if (run.ollama_required_kv) {
        const std::uint64_t context = run.ollama_ctx_size ? run.ollama_ctx_size->value : r.n_ctx.value;
        const std::uint64_t parallel = run.ollama_parallel ? run.ollama_parallel->value : r.n_seq_max.value;
        const std::string type = !run.ollama_cache_type.empty()      ? run.ollama_cache_type
                                 : !log.ollama_kv_cache_type.empty() ? log.ollama_kv_cache_type
                                                                     : "f16";
        const std::uint64_t batch =
            std::min<std::uint64_t>(context / std::max<std::uint64_t>(parallel, 1), 512);
        auto est = ollama_estimate(*t.view, context, parallel, batch, type);
        const LogMemory& m = *run.ollama_required_kv;
        if (est) {
            t.checks.push_back({"Ollama's estimate (memory.required.kv)", m.text,
                                format("{} B ({}) by Ollama's own formula (GraphSize: {} tokens, {} at {} B "
                                       "an element, no padding), "
                                       "an estimate before loading, not what llama.cpp allocates",
                                       num(*est), mib_text(*est), num(context), type,
                                       type == "q8_0"   ? "1"
                                       : type == "q4_0" ? "0.5"
                                       : type == "f32"  ? "4"
                                                        : "2"),
                                m.low <= *est && *est <= m.high, m.line, mib_text(*est)});
        } else {
            r.notes.push_back(
                format("Ollama's estimate memory.required.kv {} (line {}) is not checked: kvcalc does not "
                       "reproduce {}",
                       m.text, m.line, est.error().message.substr(0, 80)));
        }
    }
    if (run.caches.empty() && run.buffers.empty() && !run.kv_size && !run.swa_cells && !run.non_swa_cells)
        r.notes.push_back(format(
            "the log prints no llama.cpp cache line: kvcalc's allocation is by the rules of b{}", t.build));
    r.view = t.view;
    r.plan = t.plan;
    r.alloc = std::move(t.alloc);
    r.checks = std::move(t.checks);

    // The context served a request when none is given: Ollama's num_ctx (a slot's), else -c.
    if (ollama && run.ollama_ctx_size && run.ollama_parallel)
        r.advertised = {
            run.ollama_ctx_size->value / run.ollama_parallel->value,
            format("Ollama's num_ctx: --ctx-size {} / --parallel {}, {}", run.ollama_ctx_size->value,
                   run.ollama_parallel->value, line(run.ollama_ctx_size->line))};
    else if (ollama && run.n_ctx_seq)
        r.advertised = {run.n_ctx_seq->value,
                        format("Ollama's num_ctx: n_ctx_seq, {}", line(run.n_ctx_seq->line))};
    else if (ollama)
        r.advertised = {r.n_ctx.value / seqs,
                        format("Ollama's num_ctx: n_ctx / {} slots ({})", seqs, r.n_ctx.source)};
    else
        r.advertised = {r.n_ctx.value, format("llama.cpp's -c as the log states it ({})", r.n_ctx.source)};
    r.notes.insert(r.notes.begin(), log.notes.begin(), log.notes.end());
    return r;
}

}  // namespace kvcalc
