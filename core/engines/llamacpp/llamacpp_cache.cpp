#include "engines/llamacpp/llamacpp_cache.hpp"

#include <algorithm>

#include "sizing/checked.hpp"
#include "sizing/units.hpp"

namespace kvcalc {
namespace {

// Builds where the allocation changed (LLAMACPP.md 1.3, 1.6-1.8, with the PR of each).
constexpr std::uint64_t b_pad32 = 2528;       // PAD(n_ctx, 32) (#6177)
constexpr std::uint64_t b_pad256 = 2786;      // PAD(n_ctx, 256) (#5021)
constexpr std::uint64_t b_pad_fa = 2879;      // PAD(n_ctx, FA ? 256 : 32) (#7257)
constexpr std::uint64_t b_swa_cache = 5429;   // SWA caches: PAD(n_swa x n_seq + n_batch) (#13194)
constexpr std::uint64_t b_swa_ubatch = 5554;  // ... + n_ubatch (#13833)
constexpr std::uint64_t b_streams = 5913;   // a stream per slot unless unified; V padded without FA (#14363)
constexpr std::uint64_t b_no_pad = 6869;    // no padding, ceil(n_ctx / n_seq) a slot (#16812)
constexpr std::uint64_t b_floor = 6931;     // floor(n_ctx / n_seq) a slot (#16736)
constexpr std::uint64_t b_current = 6981;   // PAD(n_ctx, 256), PAD(n_ctx / n_seq, 256) (#17046)
constexpr std::uint64_t b_mla = 5137;       // MLA files: K the latent, V kv_lora_rank (#12801)
constexpr std::uint64_t b_mla_no_v = 7836;  // MLA without V (#19067)
constexpr std::uint64_t b_hybrid_fix = 8040;    // hybrids' attention cache n_ctx_seq, not n_ctx (#19559)
constexpr std::uint64_t b_mla_same_kv = 10217;  // MLA refuses different K and V types (#25871)

std::uint64_t pad(std::uint64_t x, std::uint64_t n) {  // GGML_PAD
    return cdiv(x, n) * n;
}

Failure overflow(const char* what) {
    return fail(code::overflow, "context", "{} exceeds 2^53 - 1 bytes (8 PiB): check context and parallel",
                what);
}

std::string mib(std::uint64_t bytes) {
    return fixed_point((bytes * 100 + (std::uint64_t{1} << 19)) >> 20, 2);
}

std::string right(std::string s, std::size_t width) {
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
}

}  // namespace

const char* llamacpp_cache_name(LlamacppCache c) {
    switch (c) {
        case LlamacppCache::base:
            return "base";
        case LlamacppCache::swa:
            return "swa";
        case LlamacppCache::recurrent:
            return "recurrent";
        case LlamacppCache::none:
            break;
    }
    return "none";
}

Result<LlamacppPlan> LlamacppPlan::make(const ModelSpec& m, const LlamacppSettings& s) {
    LlamacppPlan p;
    p.m_ = &m;
    p.s_ = s;
    const std::uint64_t b = s.build.value;
    const GgmlType& tk = *s.type_k;
    const GgmlType& tv = *s.type_v;
    p.rows_.resize(m.groups.size());
    // K and V elements per cell of each attention group, as llama_kv_cache's constructor allocates them
    // (src/llama-kv-cache.cpp:64-300): n_embd_k_gqa = head_k x n_head_kv, V likewise; an MLA layer one
    // latent as K and (b5137-b7835) kv_lora_rank as V, none since b7836 (has_v = !is_mla, #19067).
    std::uint64_t v_max = 0;
    bool mla = false, attention = false, recurrent = false;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        const LayerGroup& g = m.groups[i];
        LlamacppGroupRows& r = p.rows_[i];
        if (g.kind == LayerKind::mla) {
            if (b < b_mla)
                return fail(code::bad_option, "llamacpp_build",
                            "llamacpp_build {}: MLA layers need llama.cpp b5137 or later", b);
            mla = true;
            r.k_width = g.latent_dim.value;
            r.v_width = b < b_mla_no_v ? g.latent_v_dim.value : 0;
            if (b < b_mla_no_v && !r.v_width)
                return fail(
                    code::missing_field, "kv_lora_rank",
                    "kv_lora_rank: missing: llama.cpp before b7836 allocates it as the MLA layers' V");
        } else if (is_attention(g.kind)) {
            r.k_width = g.kv_heads.value * g.k_head_dim.value;  // both below 2^32: no overflow
            r.v_width = g.kv_heads.value * g.v_head_dim.value;
        } else if (g.kind == LayerKind::linear_state) {
            // f32 R and S rows, one per sequence (src/llama-hparams.cpp:183-229 n_embd_r, n_embd_s;
            // the types hard-coded in llama-model.cpp create_memory): the conv state's (kernel - 1) x
            // channels (LFM2's shortconv: n_embd x (l_cache - 1)), the SSM's state x inner.
            const StateShape& st = g.state;
            const std::uint64_t channels = st.mixer == "short_conv" ? m.hidden_size.value : st.conv_channels;
            auto rr = mul(mul(st.conv_rows, channels), 4),
                 ss = mul(mul(st.ssm_heads, st.ssm_head_elements), 4);
            if (!rr || !ss) return overflow("one recurrent state");
            r.cache = LlamacppCache::recurrent;
            r.state_r = *rr;
            r.state_s = *ss;
            recurrent = true;
            continue;
        } else {
            continue;
        }
        attention = true;
        r.cache =
            (g.kind == LayerKind::sliding_window || g.kind == LayerKind::chunked_local) && b >= b_swa_cache
                ? LlamacppCache::swa
                : LlamacppCache::base;
        v_max = std::max(v_max, r.v_width);
        // With flash attention on at creation, each layer's heads must be whole blocks of the cache
        // types (src/llama-context.cpp:3607-3626).
        if (s.fa_at_creation) {
            const std::uint64_t hk = g.kind == LayerKind::mla ? r.k_width : g.k_head_dim.value;
            const std::uint64_t hv = g.kind == LayerKind::mla ? r.v_width : g.v_head_dim.value;
            if (hk % tk.block != 0 || (r.v_width && hv % tv.block != 0)) {
                const bool k_bad = hk % tk.block != 0;
                return fail(code::bad_option, k_bad ? "cache_type_k" : "cache_type_v",
                            "{} {}: the {} layers' {} head size {} is not a whole number of its blocks of {} "
                            "values; llama.cpp refuses it with flash attention",
                            k_bad ? "cache_type_k" : "cache_type_v", k_bad ? tk.name : tv.name, g.name,
                            k_bad ? "K" : "V", k_bad ? hk : hv, k_bad ? tk.block : tv.block);
            }
        }
    }
    p.hybrid_ = attention && recurrent;
    // Since #25871 (b10217) an MLA model refuses different K and V types (src/llama-context.cpp:3591-3594).
    if (mla && b >= b_mla_same_kv && &tk != &tv)
        return fail(
            code::bad_option, "cache_type_v",
            "cache_type_k {} and cache_type_v {}: llama.cpp refuses different K and V types for an MLA "
            "model since b10217",
            tk.name, tv.name);
    // Without flash attention V is stored transposed, each layer's row padded to the widest layer's
    // (src/llama-kv-cache.cpp:155-159,208, since b5913; [TAG_V_CACHE_VARIABLE]).
    const bool v_padded = !s.fa_at_creation && b >= b_streams;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        LlamacppGroupRows& r = p.rows_[i];
        const LayerGroup& g = m.groups[i];
        if (r.cache != LlamacppCache::base && r.cache != LlamacppCache::swa) continue;
        if (v_padded && r.v_width) r.v_width = v_max;
        auto k = ggml_row_bytes(tk, r.k_width), v = ggml_row_bytes(tv, r.v_width);
        if (!k || !v) {
            const bool k_bad = !k;
            return fail(
                code::bad_option, k_bad ? "cache_type_k" : "cache_type_v",
                "{} {}: the {} layers' rows of {} {} values are not a whole number of its blocks of {}",
                k_bad ? "cache_type_k" : "cache_type_v", k_bad ? tk.name : tv.name, g.name,
                k_bad ? r.k_width : r.v_width, k_bad ? "K" : "V", k_bad ? tk.block : tv.block);
        }
        r.k_row = *k;
        r.v_row = *v;
        const bool swa = r.cache == LlamacppCache::swa;
        auto kk = mul(g.count, r.k_row), vv = mul(g.count, r.v_row);
        if (!kk || !vv) return overflow("one cell of every layer");
        (swa ? p.swa_k_ : p.base_k_) += *kk;
        (swa ? p.swa_v_ : p.base_v_) += *vv;
        (swa ? p.swa_layers_ : p.base_layers_) += g.count;
        if (swa) {
            if (p.n_swa_ && p.n_swa_ != g.window.value)
                return fail(code::unsupported, "engine",
                            "llama.cpp keeps one n_swa; the model has windows of {} "
                            "and {} tokens",
                            p.n_swa_, g.window.value);
            p.n_swa_ = g.window.value;
        }
    }
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        const LlamacppGroupRows& r = p.rows_[i];
        if (r.cache != LlamacppCache::recurrent) continue;
        p.state_r_ += m.groups[i].count * r.state_r;  // a few layers of at most 2^53 / 4 each: checked below
        p.state_s_ += m.groups[i].count * r.state_s;
        p.recurrent_layers_ += m.groups[i].count;
    }
    auto cells = add(add(p.base_k_, p.base_v_), add(p.swa_k_, p.swa_v_));
    auto state = add(p.state_r_, p.state_s_);
    if (!cells || !state || p.state_r_ > max_exact || p.state_s_ > max_exact)
        return overflow("one cell of every layer");
    p.base_cell_ = p.base_k_ + p.base_v_;
    p.swa_cell_ = p.swa_k_ + p.swa_v_;
    return p;
}

Result<LlamacppAllocation> LlamacppPlan::allocate(std::uint64_t req, bool detail) const {
    if (req == 0 || req > max_exact)
        return field_error(code::bad_option, "context", "must be a positive integer, got {}", req);
    const LlamacppSettings& s = s_;
    const std::uint64_t b = s.build.value, seqs = s.n_seq_max.value;
    const bool unified = s.kv_unified, fa = s.fa_at_creation;
    LlamacppAllocation a;
    a.n_ctx_requested = req;
    a.n_seq_max = seqs;
    // The batches: n_batch = min(n_ctx, n_batch), n_ubatch = min(n_batch, n_ubatch), with n_ctx as asked
    // (src/llama-context.cpp:245-247, before the padding).
    a.n_batch = std::min(req, s.n_batch.value);
    a.n_ubatch = std::min(a.n_batch, s.n_ubatch.value);
    // The context and its streams by the build's rule (LLAMACPP.md 1.3).
    std::uint64_t n_ctx = req, seq = req, streams = 1, p = 1;
    if (b >= b_current) {
        // src/llama-context.cpp:288-304 (#17046): PAD(n_ctx, 256); non-unified PAD(n_ctx / n_seq, 256) a
        // slot.
        p = 256;
        n_ctx = pad(req, 256);
        seq = unified ? n_ctx : pad(n_ctx / seqs, 256);
        if (detail)
            a.rule = unified ? "n_ctx = PAD(n_ctx, 256), one stream"
                             : "n_ctx_seq = PAD(PAD(n_ctx, 256) / n_seq_max, 256) a stream";
    } else if (b >= b_floor) {
        seq = unified ? req : req / seqs;  // #16736: n_ctx_seq = n_ctx / n_seq_max, no padding
        if (seq == 0)
            return fail(code::bad_option, "context", "n_ctx {} is below n_seq_max {}: n_ctx_seq == 0", req,
                        seqs);
        if (detail)
            a.rule = unified ? "no padding, one stream"
                             : "n_ctx_seq = n_ctx / n_seq_max (rounded down), no padding";
    } else if (b >= b_no_pad) {
        seq = unified ? req : cdiv(req, seqs);  // #16812
        if (detail)
            a.rule = unified ? "no padding, one stream" : "n_ctx_seq = ceil(n_ctx / n_seq_max), no padding";
    } else if (b >= b_streams) {
        p = fa ? 256 : 32;  // #14363: PAD(ceil(n_ctx / n_seq), FA ? 256 : 32) a stream
        seq = unified ? pad(req, p) : pad(cdiv(req, seqs), p);
        if (detail)
            a.rule = unified ? format("n_ctx = PAD(n_ctx, {}), one stream", p)
                             : format("n_ctx_seq = PAD(ceil(n_ctx / n_seq_max), {}) a stream", p);
    } else {
        // One cache for every sequence (b2879-b5912: PAD(n_ctx, FA ? 256 : 32), #7257).
        p = b >= b_pad_fa ? (fa ? 256 : 32) : b >= b_pad256 ? 256 : b >= b_pad32 ? 32 : 1;
        seq = pad(req, p);
        if (detail)
            a.rule = p > 1 ? format("n_ctx = PAD(n_ctx, {}), one cache for all sequences", p)
                           : "no padding, one cache for all sequences";
    }
    if (b >= b_streams && !unified) streams = seqs;
    n_ctx = seq * streams;
    if (seq > max_exact / streams) return overflow("the context");
    a.n_ctx = n_ctx;
    a.n_ctx_seq = seq;
    a.n_stream = streams;
    a.padding = p;

    auto object = [&](LlamacppCache c, std::uint64_t cells, std::uint64_t layers, std::uint64_t k,
                      std::uint64_t v, std::uint64_t per_stream_streams, std::string rule) -> Result<bool> {
        LlamacppObject o;
        o.cache = c;
        o.cells = cells;
        o.layers = o.log_layers = layers;
        o.streams = per_stream_streams;
        auto kb = mul(mul(k, cells), per_stream_streams), vb = mul(mul(v, cells), per_stream_streams);
        auto total = add(kb, vb);
        if (!total) return overflow("the KV cache");
        o.k_bytes = *kb;
        o.v_bytes = *vb;
        o.bytes = *total;
        if (detail) o.cells_rule = std::move(rule);
        a.objects.push_back(std::move(o));
        return true;
    };
    // The full-attention layers' cache: n_ctx_seq cells a stream; a hybrid's was n_ctx before b8040
    // (#19559, llama-memory-hybrid.cpp).
    const bool hybrid_bug = hybrid_ && b < b_hybrid_fix && streams > 1;
    const std::uint64_t size_base = hybrid_bug ? n_ctx : seq;
    if (base_layers_) {
        auto ok =
            object(LlamacppCache::base, size_base, base_layers_, base_k_, base_v_, streams,
                   hybrid_bug ? "n_ctx: before b8040 a hybrid's attention cache took n_ctx a stream (#19559)"
                              : "n_ctx_seq");
        if (!ok) return ok.forward_error();
    }
    if (swa_layers_) {
        // The sliding-window cache (src/llama-kv-cache-iswa.cpp:73-81 and its history, LLAMACPP.md 1.6).
        const std::uint64_t held = n_swa_ * (b < b_streams || unified ? seqs : 1);
        std::uint64_t cells = size_base;
        std::string rule;
        if (s.swa_full) {
            if (detail) rule = "n_ctx_seq: swa_full (\"using full-size SWA cache\")";
        } else if (b >= b_current) {
            cells = pad(std::min(size_base, held + a.n_ubatch), 256);
            if (detail)
                rule = format("PAD(min({}, {} x {} + {}), 256)", size_base, n_swa_,
                              held / std::max<std::uint64_t>(n_swa_, 1), a.n_ubatch);
        } else {
            const std::uint64_t extra = b >= b_swa_ubatch ? a.n_ubatch : a.n_batch;
            cells = std::min(size_base, pad(held + extra, p));
            if (detail)
                rule = format("min({}, PAD({} x {} + {}, {}))", size_base, n_swa_,
                              held / std::max<std::uint64_t>(n_swa_, 1), extra, p);
        }
        auto ok = object(LlamacppCache::swa, cells, swa_layers_, swa_k_, swa_v_, streams, std::move(rule));
        if (!ok) return ok.forward_error();
    }
    if (recurrent_layers_) {
        // llama_memory_recurrent: mem_size = max(1, n_seq_max) cells, f32 R and S
        // (src/llama-memory-recurrent.cpp :17-130; n_rs_seq 0).
        auto ok = object(LlamacppCache::recurrent, std::max<std::uint64_t>(1, seqs), recurrent_layers_,
                         state_r_, state_s_, 1, "max(1, n_seq_max): one cell a sequence");
        if (!ok) return ok.forward_error();
        a.objects.back().log_layers = m_->num_layers.value;
    }
    opt_u64 total = 0;
    for (const LlamacppObject& o : a.objects)
        total = add(total, o.bytes);
    if (!total) return overflow("the KV cache");
    a.bytes = *total;
    return a;
}

std::string llamacpp_log_line(const LlamacppObject& o, const LlamacppAllocation& a,
                              const LlamacppSettings& s) {
    if (o.cache == LlamacppCache::recurrent)
        return format(
            "llama_memory_recurrent: size = {} MiB ({} cells, {} layers, {} seqs), R (f32): {} MiB, S "
            "(f32): {} MiB",
            right(mib(o.bytes), 7), right(format("{}", o.cells), 6), right(format("{}", o.log_layers), 3),
            right(format("{}", a.n_seq_max), 2), right(mib(o.k_bytes), 7), right(mib(o.v_bytes), 7));
    return format(
        "llama_kv_cache: size = {} MiB ({} cells, {} layers, {}/{} seqs), K ({}): {} MiB, V ({}): {} MiB",
        right(mib(o.bytes), 7), right(format("{}", o.cells), 6), right(format("{}", o.layers), 3),
        right(format("{}", a.n_seq_max), 2), a.n_stream, s.type_k->name, right(mib(o.k_bytes), 7),
        s.type_v->name, right(mib(o.v_bytes), 7));
}

}  // namespace kvcalc
