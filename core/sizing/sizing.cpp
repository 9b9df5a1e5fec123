#include "sizing/sizing.hpp"

#include <algorithm>

#include "engines/llamacpp/llamacpp_model.hpp"
#include "engines/vllm/vllm_blocks.hpp"
#include "sizing/checked.hpp"
#include "sizing/speculative.hpp"

// This file is compiled at -O3 for the searches and series that evaluate a plan thousands of
// times; what runs once a call (making the plan, its detailed result) is optimised for size.
#if defined(__clang__)
#define KVCALC_ONCE_A_CALL __attribute__((minsize))
#else
#define KVCALC_ONCE_A_CALL
#endif

namespace kvcalc {
namespace {

// `field` names what to look at: the config field of an absurd geometry, or the
// context / batch option that made an honest per-token figure too large.
Failure overflow_error(const std::string& what, const std::string& field) {
    return fail(code::overflow, field,
                "{} exceeds 2^53 - 1 bytes (8 PiB), the largest figure kvcalc reports exactly: check {}",
                what, field);
}

// An indexer's keys a token beside one layer's cache, on every GPU alike: DeepSeek-V3.2's fixed bytes,
// MiniMax-M3's indexer_dim elements of indexer_bits.
opt_u64 indexer_bytes(const LayerGroup& g, unsigned indexer_bits) {
    auto bits = mul(g.indexer_dim.value, indexer_bits);
    return bits ? add(g.indexer_bytes.value, cdiv(*bits, 8)) : std::nullopt;
}

// One layer's bytes for one token, given the KV heads it holds.
opt_u64 token_bytes(const LayerGroup& g, const KvDtype& d, std::uint64_t heads, unsigned indexer_bits) {
    if (g.kind == LayerKind::mla) {
        // The latent, and an indexer's keys (fixed bytes, whatever the KV dtype).
        if (d.ds_mla) return add(ds_mla_bytes_per_token, indexer_bytes(g, indexer_bits));
        auto bits = mul(g.latent_dim.value, d.bits);
        return bits ? add(cdiv(*bits, 8), indexer_bytes(g, indexer_bits)) : std::nullopt;
    }
    if (!is_attention(g.kind)) return 0;
    auto elems = mul(heads, add(g.k_head_dim.value, g.v_head_dim.value));
    auto bits = mul(elems, d.bits);
    return bits ? add(cdiv(*bits, 8), indexer_bytes(g, indexer_bits)) : std::nullopt;
}

// The conv channels of a state over tp GPUs: a Mamba-2 state whose n_groups tp does not divide (then
// 1) has the group copied to every GPU (vLLM mamba_utils.py mamba2_state_shape,
// extra_groups_for_head_shards).
opt_u64 conv_channels(const StateShape& s, std::uint64_t tp) {
    if (s.groups == 0 || s.groups % tp == 0) return s.conv_channels;
    return add(s.conv_channels, mul(tp - s.groups, s.group_channels));
}

opt_u64 state_bytes(const StateShape& s, std::uint64_t tp) {
    auto channels = conv_channels(s, tp);
    auto conv = mul(mul(s.conv_rows, channels ? *channels / tp : 0), s.conv_bits);
    if (!channels) conv = std::nullopt;
    auto ssm = mul(mul(s.ssm_heads / tp, s.ssm_head_elements), s.ssm_bits);
    auto bits = add(conv, ssm);
    return bits ? opt_u64(cdiv(*bits, 8)) : std::nullopt;
}

// vLLM's layer split for pipeline stages (get_pp_indices): equal shares, and the
// remainder goes to the stages before the last, from the second-to-last backwards.
std::vector<std::uint32_t> pp_stage_sizes(std::uint32_t layers, std::uint32_t pp) {
    std::vector<std::uint32_t> sizes(pp, layers / pp);
    std::uint32_t rest = layers % pp;
    for (std::uint32_t i = 2; i < rest + 2; ++i)
        sizes[pp - i] += 1;
    return sizes;
}

Result<bool> check_parallel(const ModelSpec& m, const SizeOptions& o) {
    if (o.tp == 0 || o.tp > 1024)
        return field_error(code::bad_option, "tp", "must be from 1 to 1024, got {}", o.tp);
    if (o.pp == 0 || o.pp > m.num_layers.value)
        return field_error(code::bad_option, "pp", "must be from 1 to the model's {} layers, got {}",
                           m.num_layers.value, o.pp);
    if (o.pp > 1 && m.family == "zamba2")
        return fail(code::bad_option, "pp",
                    "pp {}: vLLM's Zamba2ForCausalLM does not support pipeline parallelism (zamba2.py: no "
                    "SupportsPP)",
                    o.pp);
    if (o.pp > 1 && m.family == "hrm_text")
        return fail(
            code::bad_option, "pp",
            "pp {}: vLLM's HrmTextForCausalLM does not support pipeline parallelism (hrm_text.py raises)",
            o.pp);
    // Voxtral Realtime's encoder layers are split over pipeline stages by make_layers (whisper_causal.py
    // WhisperCausalEncoder) apart from the text model's: not modelled.
    if (o.pp > 1 && m.family == "voxtral_realtime")
        return fail(code::bad_option, "pp",
                    "pp {}: how vLLM places Voxtral Realtime's causal encoder layers (whisper_causal.py "
                    "WhisperCausalEncoder, make_layers) on pipeline stages beside its text model's is not "
                    "modelled",
                    o.pp);
    if (m.query_heads.value % o.tp != 0)
        return fail(code::bad_option, "tp", "tp {} does not divide {} {} (engines shard query heads evenly)",
                    o.tp, m.query_heads.source, m.query_heads.value);
    for (const auto& g : m.groups) {
        if (g.kind == LayerKind::linear_state) {
            // mamba_mixer2.py MambaMixer2: tp divides n_groups, or n_groups is 1.
            if (g.state.groups > 1 && g.state.groups % o.tp != 0)
                return fail(code::bad_option, "tp",
                            "tp {} does not divide the {} state's {} groups (vLLM needs it to, or 1 group)",
                            o.tp, g.state.mixer, g.state.groups);
            auto channels = conv_channels(g.state, o.tp);
            if (!channels || *channels % o.tp != 0 || g.state.ssm_heads % o.tp != 0)
                return fail(code::bad_option, "tp",
                            "tp {} does not divide the {} state ({} heads, {} conv channels)", o.tp,
                            g.state.mixer, g.state.ssm_heads, g.state.conv_channels);
        }
        if (!is_attention(g.kind) || g.kind == LayerKind::mla) continue;
        // Step-3.5's layers of another geometry: step3p5.py Step3p5Attention asserts tp divides their heads.
        if (g.query_heads.value % o.tp != 0)
            return fail(code::bad_option, "tp",
                        "tp {} does not divide the {} layers' {} {} (vLLM asserts it)", o.tp, g.name,
                        g.query_heads.source, g.query_heads.value);
        std::uint64_t kv = g.kv_heads.value;
        if (m.family == "openpangu" && g.name == "sink_attention" && o.tp > kv)
            return fail(code::bad_option, "tp",
                        "tp {} and {} {}: vLLM's openPangu sink attention does not replicate KV heads "
                        "(openpangu.py OpenPanguSinkAttention raises below tp KV heads)",
                        o.tp, g.kv_heads.source, kv);
        bool ok = o.tp <= kv ? kv % o.tp == 0 : o.tp % kv == 0;
        if (!ok)
            return fail(
                code::bad_option, "tp",
                "tp {} and {} {}: one must divide the other (KV heads are split or replicated evenly)", o.tp,
                g.kv_heads.source, kv);
    }
    return true;
}

}  // namespace

const char* accounting_name(Accounting a) {
    switch (a) {
        case Accounting::naive:
            return "naive";
        case Accounting::resident:
            return "resident";
        case Accounting::vllm:
            return "vllm";
        case Accounting::llamacpp:
            return "llamacpp";
    }
    return "resident";
}

std::uint64_t SizeResult::sequence_bytes(Accounting a) const {
    return a == Accounting::naive      ? sequence_bytes_naive
           : a == Accounting::vllm     ? sequence_bytes_vllm
           : a == Accounting::llamacpp ? sequence_bytes_llamacpp
                                       : sequence_bytes_resident;
}

Result<KvDtype> resolve_kv_dtype(const std::string& req, const ModelSpec& m) {
    KvDtype d;
    d.name = req;
    d.source = format("kv_dtype {}", req);
    if (req == "auto" || req.empty()) {
        if (!m.kv_quant.empty()) {
            d.name = "fp8";
            d.bits = 8;
            d.source = format("auto: {} declares an fp8 KV cache", m.kv_quant_source);
        } else {
            d.name = m.dtype == "float16" || m.dtype == "fp16" || m.dtype == "half" ? "fp16" : "bf16";
            d.bits = 16;
            d.source = m.dtype.empty() ? "auto: no dtype in the config, 2 bytes"
                       : m.model_dtype_bits == 32
                           ? format("auto: {} {} served in 16-bit", m.dtype_source, m.dtype)
                           : format("auto: {} {}", m.dtype_source, m.dtype);
        }
        return d;
    }
    static const std::pair<const char*, unsigned> known[] = {
        {"fp32", 32}, {"float32", 32}, {"fp16", 16},    {"float16", 16}, {"bf16", 16}, {"bfloat16", 16},
        {"fp8", 8},   {"fp8_e4m3", 8}, {"fp8_e5m2", 8}, {"int8", 8},     {"int4", 4}};
    for (auto [n, b] : known)
        if (req == n) {
            d.bits = b;
            return d;
        }
    if (req == "fp8_ds_mla") {
        if (!m.has(LayerKind::mla))
            return fail(code::bad_option, "kv_dtype",
                        "kv_dtype fp8_ds_mla applies only to MLA layers, and this model has none");
        d.bits = 8;  // non-MLA layers of a hybrid, if any, store fp8
        d.ds_mla = true;
        return d;
    }
    return field_error(
        code::bad_option, "kv_dtype",
        "unknown \"{}\" (expected auto, fp32, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, int8, int4, "
        "fp8_ds_mla)",
        req);
}

KVCALC_ONCE_A_CALL Result<SizePlan> SizePlan::make(const ModelSpec& m, const SizeOptions& o) {
    if (o.context && (*o.context == 0 || *o.context > max_exact))
        return field_error(code::bad_option, "context", "must be a positive integer, got {}", *o.context);
    if (o.engine == Engine::llamacpp) return make_llamacpp(m, o);
    if (o.accounting == Accounting::llamacpp)
        return fail(
            code::bad_option, "accounting",
            "accounting llamacpp is what llama.cpp allocates: give engine llamacpp, ollama or lmstudio");
    if (o.batch == 0 || o.batch > max_exact)
        return field_error(code::bad_option, "batch", "must be a positive integer, got {}", o.batch);
    if (o.block_size && (*o.block_size == 0 || *o.block_size > 1048576))
        return field_error(code::bad_option, "block_size", "must be from 1 to 1048576, got {}",
                           *o.block_size);
    if (o.max_num_batched_tokens == 0 || o.max_num_batched_tokens > max_exact)
        return field_error(code::bad_option, "max_num_batched_tokens", "must be a positive integer, got {}",
                           o.max_num_batched_tokens);
    if (o.speculative_tokens > max_speculative_tokens)
        return field_error(code::bad_option, "num_speculative_tokens", "must be from 0 to {}, got {}",
                           max_speculative_tokens, o.speculative_tokens);
    if (o.context && o.shared_prefix > *o.context)
        return fail(code::bad_option, "shared_prefix", "shared_prefix {} is longer than the context {}",
                    o.shared_prefix, *o.context);
    if (o.encoder_tokens && (*o.encoder_tokens == 0 || *o.encoder_tokens > max_exact))
        return field_error(code::bad_option, "max_num_encoder_input_tokens",
                           "must be a positive integer, got {}", *o.encoder_tokens);
    // An encoder-decoder's cross-attention holds scheduler_config.max_num_encoder_input_tokens a request
    // (kv_cache_interface.py CrossAttentionSpec.max_memory_usage_bytes), which vLLM releases set differently
    // (the model's encoder length, or max_num_batched_tokens): the engine's setting is asked for, not
    // guessed.
    for (const LayerGroup& g : m.groups)
        if (g.cross_attention && !o.encoder_tokens)
            return fail(code::missing_field, "max_num_encoder_input_tokens",
                        "max_num_encoder_input_tokens: missing: the {} layers of this encoder-decoder hold a "
                        "request's encoder tokens (vLLM's CrossAttentionSpec reserves "
                        "cdiv(scheduler_config.max_num_encoder_input_tokens, block_size) blocks), and vLLM "
                        "releases set that length differently (the model's encoder length, or "
                        "max_num_batched_tokens): give the engine's max_num_encoder_input_tokens",
                        g.name);
    auto par = check_parallel(m, o);
    if (!par) return par.forward_error();
    // vLLM's MiniMaxM3IndexerCache stores its keys in bf16, or e4m3 for "fp8" / "fp8_e4m3".
    const unsigned indexer_bits = o.indexer_kv_dtype == "bf16"                                      ? 16
                                  : o.indexer_kv_dtype == "fp8" || o.indexer_kv_dtype == "fp8_e4m3" ? 8
                                                                                                    : 0;
    if (!indexer_bits)
        return field_error(code::bad_option, "indexer_kv_dtype", "must be bf16 or fp8, got \"{}\"",
                           o.indexer_kv_dtype);
    auto dtype = resolve_kv_dtype(o.kv_dtype, m);
    if (!dtype) return dtype.forward_error();

    SizePlan p;
    p.m_ = &m;
    p.o_ = o;
    p.dtype_ = std::move(dtype.value());
    p.warnings_ = m.warnings;
    if (o.kv_dtype == "fp8_e5m2" && m.fp8_weights)
        // vLLM refuses it on fp8 weights ("fp8_e5m2 kv-cache is not supported with fp8 checkpoints").
        p.warnings_.push_back({"kv_dtype",
                               "fp8_e5m2: vLLM refuses it with fp8 checkpoints, as this one "
                               "is (quantization_config.quant_method fp8): use fp8 (e4m3)"});

    const std::size_t G = m.groups.size();
    std::vector<std::uint64_t> tok(G), tok_gpu(G), st(G), st_gpu(G), count(G);
    p.groups_.resize(G);
    opt_u64 bpt = 0, state = 0;
    for (std::size_t i = 0; i < G; ++i) {
        const LayerGroup& g = m.groups[i];
        Group& pg = p.groups_[i];
        pg.heads_gpu = std::max<std::uint64_t>(1, g.kv_heads.value / o.tp);
        auto t = token_bytes(g, p.dtype_, g.kv_heads.value, indexer_bits);
        auto tg = token_bytes(g, p.dtype_, g.kind == LayerKind::mla ? 0 : pg.heads_gpu, indexer_bits);
        auto ix = indexer_bytes(g, indexer_bits);
        pg.indexer = ix ? *ix : 0;  // an overflow is caught on t below
        opt_u64 s = 0, sg = 0;
        if (g.kind == LayerKind::linear_state) {
            s = state_bytes(g.state, 1);
            sg = state_bytes(g.state, o.tp);
        }
        if (!g.cross_attention)
            bpt = add(bpt, mul(g.count, t));  // cross: the encoder's tokens, not the context's
        state = add(state, mul(g.count, s));
        if (!t || !tg || !s || !sg || !bpt || !state)
            return overflow_error(format("one token of one {} layer", g.name),
                                  g.kind == LayerKind::linear_state ? g.state.source
                                  : g.kind == LayerKind::mla        ? g.latent_dim.source
                                                                    : g.k_head_dim.source);
        pg.token = tok[i] = *t;
        pg.token_gpu = tok_gpu[i] = *tg;
        pg.state = st[i] = *s;
        pg.state_gpu = st_gpu[i] = *sg;
        count[i] = g.count;
    }
    p.bytes_per_token_ = *bpt;
    p.state_bytes_ = *state;
    // A model whose block vLLM sets (MiniMax-M3's sparse_block_size) is sized at it; another block was not
    // read, and is refused.
    if (m.block_size.value && o.block_size && *o.block_size != m.block_size.value)
        return fail(code::bad_option, "block_size",
                    "block_size {}: {} (its kernels take only that block); what vLLM does with another "
                    "--block-size was not read",
                    *o.block_size, m.block_size.source);
    const std::uint64_t block =
        o.block_size.value_or(m.block_size.value ? m.block_size.value : default_block_size);
    p.whole_ = vllm_block_layout(m, tok, st, block, &p.warnings_);
    p.per_gpu_ = vllm_block_layout(m, tok_gpu, st_gpu, block, nullptr);  // the same warnings again
    const std::vector<std::uint64_t> pad = vllm_padding_layers(m, count);
    for (std::size_t i = 0; i < G; ++i)
        p.groups_[i].padding = pad[i];

    // Per GPU: each pipeline stage holds its layers with the per-GPU heads.
    const auto sizes =
        pp_stage_sizes(static_cast<std::uint32_t>(m.num_layers.value), static_cast<std::uint32_t>(o.pp));
    std::uint32_t first = 0;
    for (std::uint32_t n : sizes) {
        Stage s;
        s.first_layer = first;
        s.layers = n;
        s.count.assign(G, 0);
        for (std::uint32_t l = first; l < first + n; ++l) {
            s.count[m.layer_group[l]] += m.groups[m.layer_group[l]].per_layer;  // a loop model's steps
            if (!m.layer_second_group.empty() && m.layer_second_group[l] != ModelSpec::no_second_cache)
                s.count[m.layer_second_group[l]] += m.groups[m.layer_second_group[l]].per_layer;
        }
        // An encoder's layers beside the text model (pp 1 only: check_parallel).
        for (std::size_t gi = 0; gi < G && first == 0; ++gi)
            if (m.groups[gi].encoder) s.count[gi] += m.groups[gi].count;
        s.padding = o.accounting == Accounting::vllm ? vllm_padding_layers(m, s.count)
                                                     : std::vector<std::uint64_t>(G, 0);
        for (std::size_t gi = 0; gi < G; ++gi)
            if (!m.groups[gi].cross_attention)
                s.bytes_per_token_per_gpu += s.count[gi] * tok_gpu[gi];  // at most bytes_per_token x tp
        p.bytes_per_token_per_gpu_ = std::max(p.bytes_per_token_per_gpu_, s.bytes_per_token_per_gpu);
        p.stages_.push_back(std::move(s));
        first += n;
    }
    return p;
}

Result<std::uint64_t> SizePlan::default_context() const {
    if (o_.context) return *o_.context;
    if (llama_) return llama_default_context_.value;
    if (m_->max_context.value > 0) return m_->max_context.value;
    return fail(code::missing_field, "context", "no max context in the config ({}): give a context",
                m_->max_context.source);
}

// One layer of a group for a batch of n sequences of `context` tokens sharing a `prefix`.
struct SizePlan::LayerBytes {
    opt_u64 naive, resident, vllm;
    opt_u64 pick(Accounting a) const {
        return a == Accounting::naive ? naive : a == Accounting::vllm ? vllm : resident;
    }
};

SizePlan::LayerBytes SizePlan::layer_bytes(std::size_t i, bool gpu, std::uint64_t C, std::uint64_t n,
                                           std::uint64_t p) const {
    const LayerGroup& g = m_->groups[i];
    const VllmBlockLayout& L = gpu ? per_gpu_ : whole_;
    const std::uint64_t t = gpu ? groups_[i].token_gpu : groups_[i].token;
    LayerBytes b{0, 0, 0};
    if (g.kind == LayerKind::linear_state) {
        b.resident = mul(n, gpu ? groups_[i].state_gpu : groups_[i].state);
        b.vllm = mul(mul(n, vllm_state_blocks(o_.mamba_align, o_.speculative_tokens)), L.linear_page);
        return b;
    }
    if (!is_attention(g.kind)) return b;
    if (g.cross_attention) {  // a request's encoder tokens, whatever the context; no prefix shared
        C = *o_.encoder_tokens;
        p = 0;
    }
    b.naive = mul(t, add(p, mul(n, C - p)));
    // The tokens a layer keeps (windows capped), rounded to whole blocks when a block is given.
    const std::uint64_t rb = o_.block_size.value_or(1);
    const std::uint64_t res = g.window.value ? std::min(C, g.window.value) : C;
    // Prefix tokens still inside this layer's window are stored once (whole blocks only).
    const std::uint64_t start = g.window.value && C > g.window.value ? C - g.window.value : 0;
    std::uint64_t overlap = p > start ? p - start : 0;
    overlap = overlap / rb * rb;
    b.resident = mul(t, add(overlap, mul(n, cdiv(res - overlap, rb) * rb)));
    const std::uint64_t B = L.block[i];
    const std::uint64_t blocks = vllm_request_blocks(g, C, B, o_.max_num_batched_tokens);
    const std::uint64_t shared =
        (g.kind == LayerKind::full_attention || g.kind == LayerKind::mla) ? p / B : 0;
    b.vllm = mul(mul(B, t), add(shared, mul(n, blocks - shared)));
    return b;
}

Result<SizeFigures> SizePlan::evaluate(std::uint64_t C, SizeResult* detail) const {
    if (C == 0 || C > max_exact)
        return field_error(code::bad_option, "context", "must be a positive integer, got {}", C);
    if (llama_) return evaluate_llamacpp(C, detail);
    if (o_.shared_prefix > C)
        return fail(code::bad_option, "shared_prefix", "shared_prefix {} is longer than the context {}",
                    o_.shared_prefix, C);
    const std::uint64_t N = o_.batch, P = o_.shared_prefix;
    const Accounting acc = o_.accounting;
    const bool by_vllm = acc == Accounting::vllm;
    // Built only when an overflow is reported: sizing itself allocates no message text.
    auto overflow = [&](std::string_view where) {
        std::string what =
            N > 1 ? format("the KV cache of {} sequences of {} tokens{}", grouped(N), grouped(C), where)
                  : format("the KV cache of {} tokens{}", grouped(C), where);
        return overflow_error(what, N > 1 ? "batch" : "context");
    };

    SizeFigures f;
    opt_u64 seq_n = 0, seq_r = 0, seq_v = 0, kv = 0;
    for (std::size_t i = 0; i < groups_.size(); ++i) {
        const LayerGroup& g = m_->groups[i];
        const std::uint64_t pad = groups_[i].padding;
        const LayerBytes one = layer_bytes(i, false, C, 1, 0);
        const LayerBytes batch = N == 1 && P == 0 ? one : layer_bytes(i, false, C, N, P);
        auto n = mul(g.count, one.naive), r = mul(g.count, one.resident),
             v = mul(g.count + pad, one.vllm);  // vLLM's padding layers too
        auto k = add(mul(g.count, batch.pick(acc)), by_vllm ? mul(pad, batch.vllm) : 0);
        if (!n || !r || !v || !k) return overflow(format(" in the {} layers", g.name));
        seq_n = add(seq_n, n);
        seq_r = add(seq_r, r);
        seq_v = add(seq_v, v);
        kv = add(kv, k);
        if (detail) {
            GroupFigures gf;
            gf.group = static_cast<std::uint32_t>(i);
            gf.bytes_per_token_layer = groups_[i].token;
            gf.bytes_per_token_layer_per_gpu = groups_[i].token_gpu;
            gf.indexer_bytes_layer = groups_[i].indexer;
            gf.kv_heads_per_gpu = is_attention(g.kind) && g.kind != LayerKind::mla ? groups_[i].heads_gpu : 0;
            const std::uint64_t held = g.cross_attention ? *o_.encoder_tokens : C;
            if (is_attention(g.kind)) {
                const std::uint64_t rb = o_.block_size.value_or(1);
                gf.resident_tokens = cdiv(g.window.value ? std::min(held, g.window.value) : held, rb) * rb;
            }
            const std::uint64_t gpu_block = per_gpu_.block[i];
            gf.vllm_block_size = is_attention(g.kind) ? gpu_block : 0;  // on each GPU, as vLLM sets it
            gf.vllm_blocks =
                g.kind == LayerKind::linear_state
                    ? vllm_state_blocks(o_.mamba_align, o_.speculative_tokens)
                    : vllm_request_blocks(g, held, gpu_block ? gpu_block : 1, o_.max_num_batched_tokens);
            gf.state_bytes_layer = groups_[i].state;
            gf.state_bytes_layer_per_gpu = groups_[i].state_gpu;
            gf.sequence_bytes_naive = *n;
            gf.sequence_bytes_resident = *r;
            gf.sequence_bytes_vllm = *v;
            detail->groups.push_back(gf);
        }
    }
    if (!seq_n || !seq_r || !seq_v || !kv) return overflow("");
    f.sequence_bytes_naive = *seq_n;
    f.sequence_bytes_resident = *seq_r;
    f.sequence_bytes_vllm = *seq_v;
    f.kv_bytes = *kv;

    if (o_.tp == 1 && o_.pp == 1 && !detail) {
        // One GPU holds the whole model: its figure is the model's.
        f.kv_bytes_per_gpu = f.kv_bytes_deployment = f.kv_bytes;
        return f;
    }
    opt_u64 deployment = 0;
    for (const Stage& s : stages_) {
        opt_u64 sk = 0;
        for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
            if (!s.count[gi]) continue;
            const LayerBytes lb = layer_bytes(gi, true, C, N, P);
            sk = add(sk, add(mul(s.count[gi], lb.pick(acc)), by_vllm ? mul(s.padding[gi], lb.vllm) : 0));
        }
        if (!sk) return overflow(" on one GPU");
        f.kv_bytes_per_gpu = std::max(f.kv_bytes_per_gpu, *sk);
        deployment = add(deployment, mul(*sk, o_.tp));
        if (detail) {
            StageFigures sf;
            sf.first_layer = s.first_layer;
            sf.layers = s.layers;
            sf.bytes_per_token_per_gpu = s.bytes_per_token_per_gpu;
            sf.kv_bytes_per_gpu = *sk;
            detail->stages.push_back(sf);
        }
    }
    if (!deployment) return overflow(" summed over all GPUs");
    f.kv_bytes_deployment = *deployment;
    return f;
}

Result<SizeFigures> SizePlan::figures(std::uint64_t context) const {
    return evaluate(context, nullptr);
}

KVCALC_ONCE_A_CALL Result<SizeResult> SizePlan::result(std::uint64_t context) const {
    SizeResult r;
    r.context = context;
    r.context_source = o_.context ? "context"
                       : llama_   ? llama_default_context_.source
                                  : m_->max_context.source;
    r.batch = o_.batch;
    r.kv_dtype = dtype_;
    r.accounting = o_.accounting;
    r.tp = o_.tp;
    r.pp = o_.pp;
    r.block_size = o_.block_size.value_or(0);
    r.vllm_block_size = per_gpu_.base_block;  // what vLLM sets on each GPU of this deployment
    r.max_num_batched_tokens = o_.max_num_batched_tokens;
    r.shared_prefix = o_.shared_prefix;
    r.speculative_tokens = o_.speculative_tokens;
    r.mamba_align = o_.mamba_align;
    for (const LayerGroup& g : m_->groups) {
        if (g.indexer_dim.value) r.indexer_kv_dtype = o_.indexer_kv_dtype;
        if (g.cross_attention) r.encoder_tokens = *o_.encoder_tokens;
    }
    r.bytes_per_token = bytes_per_token_;
    r.bytes_per_token_per_gpu = bytes_per_token_per_gpu_;
    r.warnings = warnings_;
    if (!llama_ && m_->max_context.value > 0 && context > m_->max_context.value)
        r.warnings.push_back({"context", format("context {} is above the model's max context {} ({})",
                                                context, m_->max_context.value, m_->max_context.source)});
    auto f = evaluate(context, &r);
    if (!f) return f.forward_error();
    r.sequence_bytes_naive = f->sequence_bytes_naive;
    r.sequence_bytes_resident = f->sequence_bytes_resident;
    r.sequence_bytes_vllm = f->sequence_bytes_vllm;
    r.kv_bytes = f->kv_bytes;
    r.kv_bytes_per_gpu = f->kv_bytes_per_gpu;
    r.kv_bytes_deployment = f->kv_bytes_deployment;
    r.sequence_bytes_llamacpp = f->sequence_bytes_llamacpp;
    r.state_bytes = state_bytes_;
    r.engine = o_.engine;
    r.llamacpp_plan = llama_;
    return r;
}

Result<std::uint64_t> size_context(const ModelSpec& m, const SizeOptions& o) {
    std::uint64_t context = 0;
    if (o.context) {
        context = *o.context;
    } else if (o.engine == Engine::llamacpp) {
        auto s = llamacpp_settings(o.llamacpp);
        if (!s) return s.forward_error();
        std::vector<Warning> said;  // the plan's result says them
        auto d = llamacpp_default_context(*s, m, said);
        if (!d) return d.forward_error();
        context = d->value;
    } else if (m.max_context.value > 0) {
        context = m.max_context.value;
    } else {
        return fail(code::missing_field, "context", "no max context in the config ({}): give a context",
                    m.max_context.source);
    }
    if (context == 0 || context > max_exact)
        return field_error(code::bad_option, "context", "must be a positive integer, got {}", context);
    return context;
}

Result<ModelSpec> as_served(const ModelSpec& m, const SizeOptions& o) {
    if (o.engine != Engine::llamacpp) return with_speculative_tokens(m, o.speculative_tokens, o.pp);
    auto s = llamacpp_settings(o.llamacpp);
    if (!s) return s.forward_error();
    return llamacpp_model(m, s->build.value);
}

Result<SizeResult> size_model(const ModelSpec& m, const SizeOptions& o) {
    // The context first: its error is the one to report when several options are wrong.
    auto context = size_context(m, o);
    if (!context) return context.forward_error();
    auto plan = SizePlan::make(m, o);
    if (!plan) return plan.forward_error();
    return plan->result(*context);
}

}  // namespace kvcalc
