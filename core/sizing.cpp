#include "sizing.hpp"

#include <algorithm>

#include "checked.hpp"

namespace kvcalc {
namespace {

bool is_attention(LayerKind k) {
    return k == LayerKind::full_attention || k == LayerKind::mla || k == LayerKind::sliding_window ||
           k == LayerKind::chunked_local;
}

// `field` names what to look at: the config field of an absurd geometry, or the
// context / batch option that made an honest per-token figure too large.
Failure overflow_error(const std::string& what, const std::string& field) {
    return fail(code::overflow, field,
                "{} exceeds 2^53 - 1 bytes (8 PiB), the largest figure kvcalc reports exactly: check {}",
                what, field);
}

// One layer's bytes for one token, given the KV heads it holds.
opt_u64 token_bytes(const LayerGroup& g, const KvDtype& d, std::uint64_t heads) {
    if (g.kind == LayerKind::mla) {
        if (d.ds_mla) return ds_mla_bytes_per_token;
        auto bits = mul(g.latent_dim.value, d.bits);
        return bits ? opt_u64(cdiv(*bits, 8)) : std::nullopt;
    }
    if (!is_attention(g.kind)) return 0;
    auto elems = mul(heads, add(g.k_head_dim.value, g.v_head_dim.value));
    auto bits = mul(elems, d.bits);
    return bits ? opt_u64(cdiv(*bits, 8)) : std::nullopt;
}

opt_u64 state_bytes(const StateShape& s, std::uint64_t tp) {
    auto conv = mul(mul(s.conv_rows, s.conv_channels / tp), s.conv_bits);
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
    if (m.query_heads.value % o.tp != 0)
        return fail(code::bad_option, "tp", "tp {} does not divide {} {} (engines shard query heads evenly)",
                    o.tp, m.query_heads.source, m.query_heads.value);
    for (const auto& g : m.groups) {
        if (g.kind == LayerKind::linear_state) {
            if (g.state.conv_channels % o.tp != 0 || g.state.ssm_heads % o.tp != 0)
                return fail(code::bad_option, "tp",
                            "tp {} does not divide the {} state ({} heads, {} conv channels)", o.tp,
                            g.state.mixer, g.state.ssm_heads, g.state.conv_channels);
        }
        if (!is_attention(g.kind) || g.kind == LayerKind::mla) continue;
        std::uint64_t kv = g.kv_heads.value;
        bool ok = o.tp <= kv ? kv % o.tp == 0 : o.tp % kv == 0;
        if (!ok)
            return fail(
                code::bad_option, "tp",
                "tp {} and {} {}: one must divide the other (KV heads are split or replicated evenly)", o.tp,
                g.kv_heads.source, kv);
    }
    return true;
}

struct VllmLayout {
    std::vector<std::uint64_t> block;  // per group
    std::uint64_t base_block = 0;
    std::uint64_t linear_page = 0;  // per linear layer, per GPU when per_gpu
};

// vLLM's block layout: hybrid attention + state models enlarge the attention block until
// its page holds one state page (align 16, 64 for MLA) and pad the state page to it;
// models mixing attention types with different page sizes grow the smaller pages' block.
VllmLayout vllm_layout(const ModelSpec& m, const std::vector<std::uint64_t>& tok,
                       const std::vector<std::uint64_t>& state, std::uint64_t block,
                       std::vector<Warning>& warnings) {
    VllmLayout L;
    L.block.assign(m.groups.size(), block);
    std::uint64_t attn_tok = 0, max_state = 0;
    bool any_mla = false;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        if (is_attention(m.groups[i].kind) && attn_tok == 0) attn_tok = tok[i];
        any_mla |= m.groups[i].kind == LayerKind::mla;
        max_state = std::max(max_state, state[i]);
    }
    if (max_state > 0 && attn_tok > 0) {
        std::uint64_t align = any_mla ? 64 : 16;
        std::uint64_t attn_block = align * cdiv(max_state, align * attn_tok);
        block = std::max(block, attn_block);
        L.block.assign(m.groups.size(), block);
        L.linear_page = block * attn_tok;
        L.base_block = block;
        return L;
    }
    L.base_block = block;
    if (max_state > 0) {  // only state layers: one state page each
        L.linear_page = max_state;
        return L;
    }
    bool mixed = false;
    std::uint64_t max_page = 0;
    LayerKind first = LayerKind::no_cache;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        if (!is_attention(m.groups[i].kind)) continue;
        if (first == LayerKind::no_cache) first = m.groups[i].kind;
        mixed |= m.groups[i].kind != first;
        max_page = std::max(max_page, block * tok[i]);
    }
    if (!mixed) return L;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        if (!is_attention(m.groups[i].kind) || tok[i] == 0) continue;
        std::uint64_t page = block * tok[i];
        if (max_page % page == 0) {
            L.block[i] = block * (max_page / page);
        } else {
            warnings.push_back(
                {"block_size", format("vLLM cannot unify page sizes {} and {} B; the {} layers are "
                                      "sized at block {}",
                                      page, max_page, m.groups[i].name, block)});
        }
    }
    return L;
}

// vLLM's padding layers (ENGINES.md 1.7, case 4): a model with more than one kind of cached
// layer (full, sliding or chunked per window, MLA, state) has its layers in groups of one
// size, the smallest kind's count (the largest's when under 1.5 times it); a kind whose count
// is not a multiple pays for whole groups. Per group of the model: the padding layers its kind
// adds (counted on the kind's first group), given each group's layers in `count`.
std::vector<std::uint64_t> padding_layers(const ModelSpec& m, const std::vector<std::uint64_t>& count) {
    const std::size_t G = m.groups.size();
    std::vector<std::uint64_t> total(G, 0), pad(G, 0);  // on the first group of each kind
    std::size_t kinds = 0;
    for (std::size_t i = 0; i < G; ++i) {
        const LayerGroup& g = m.groups[i];
        if ((!is_attention(g.kind) && g.kind != LayerKind::linear_state) || count[i] == 0) continue;
        std::size_t first = 0;
        while (first < i && !(total[first] && m.groups[first].kind == g.kind &&
                              m.groups[first].window.value == g.window.value))
            ++first;
        if (first == i) ++kinds;
        total[first] += count[i];
    }
    if (kinds < 2) return pad;
    std::uint64_t small = 0, large = 0;
    for (std::uint64_t n : total) {
        if (!n) continue;
        small = small ? std::min(small, n) : n;
        large = std::max(large, n);
    }
    const std::uint64_t size = 2 * large < 3 * small ? large : small;
    for (std::size_t i = 0; i < G; ++i)
        if (total[i]) pad[i] = cdiv(total[i], size) * size - total[i];
    return pad;
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
    }
    return "resident";
}

std::uint64_t SizeResult::sequence_bytes(Accounting a) const {
    return a == Accounting::naive  ? sequence_bytes_naive
           : a == Accounting::vllm ? sequence_bytes_vllm
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

Result<SizeResult> size_model(const ModelSpec& m, const SizeOptions& o) {
    SizeResult r;
    r.warnings = m.warnings;
    if (o.context) {
        r.context = *o.context;
        r.context_source = "context";
    } else if (m.max_context.value > 0) {
        r.context = m.max_context.value;
        r.context_source = m.max_context.source;
    } else {
        return fail(
            code::missing_field, "context",
            "no max context in the config (looked for max_position_embeddings, n_positions, seq_length, "
            "max_sequence_length, model_max_length): give a context");
    }
    if (r.context == 0 || r.context > max_exact)
        return field_error(code::bad_option, "context", "must be a positive integer, got {}", r.context);
    if (o.batch == 0 || o.batch > max_exact)
        return field_error(code::bad_option, "batch", "must be a positive integer, got {}", o.batch);
    if (o.block_size && (*o.block_size == 0 || *o.block_size > 1048576))
        return field_error(code::bad_option, "block_size", "must be from 1 to 1048576, got {}",
                           *o.block_size);
    if (o.max_num_batched_tokens == 0 || o.max_num_batched_tokens > max_exact)
        return field_error(code::bad_option, "max_num_batched_tokens", "must be a positive integer, got {}",
                           o.max_num_batched_tokens);
    if (o.shared_prefix > r.context)
        return fail(code::bad_option, "shared_prefix", "shared_prefix {} is longer than the context {}",
                    o.shared_prefix, r.context);
    auto par = check_parallel(m, o);
    if (!par) return par.forward_error();
    auto dtype = resolve_kv_dtype(o.kv_dtype, m);
    if (!dtype) return dtype.forward_error();

    if (o.kv_dtype == "fp8_e5m2") {
        // vLLM refuses it on fp8 weights ("fp8_e5m2 kv-cache is not supported with fp8 checkpoints").
        for (const json* c : {&m.text, &m.root}) {
            const json* qc = member(*c, "quantization_config");
            const json* q = qc ? member(*qc, "quant_method") : nullptr;
            if (q && *q == "fp8") {
                r.warnings.push_back({"kv_dtype",
                                      "fp8_e5m2: vLLM refuses it with fp8 checkpoints, as this one "
                                      "is (quantization_config.quant_method fp8): use fp8 (e4m3)"});
                break;
            }
        }
    }
    if (m.max_context.value > 0 && r.context > m.max_context.value)
        r.warnings.push_back({"context", format("context {} is above the model's max context {} ({})",
                                                r.context, m.max_context.value, m.max_context.source)});

    r.batch = o.batch;
    r.kv_dtype = *dtype;
    r.accounting = o.accounting;
    r.tp = o.tp;
    r.pp = o.pp;
    r.block_size = o.block_size.value_or(0);
    r.max_num_batched_tokens = o.max_num_batched_tokens;
    r.shared_prefix = o.shared_prefix;

    const std::uint64_t C = r.context, P = o.shared_prefix, N = o.batch, T = o.max_num_batched_tokens;
    const std::size_t G = m.groups.size();
    std::vector<std::uint64_t> tok(G), tok_gpu(G), st(G), st_gpu(G), heads_gpu(G);
    for (std::size_t i = 0; i < G; ++i) {
        const LayerGroup& g = m.groups[i];
        heads_gpu[i] = std::max<std::uint64_t>(1, g.kv_heads.value / o.tp);
        auto t = token_bytes(g, r.kv_dtype, g.kv_heads.value);
        auto tg = token_bytes(g, r.kv_dtype, g.kind == LayerKind::mla ? 0 : heads_gpu[i]);
        opt_u64 s = 0, sg = 0;
        if (g.kind == LayerKind::linear_state) {
            s = state_bytes(g.state, 1);
            sg = state_bytes(g.state, o.tp);
        }
        if (!t || !tg || !s || !sg)
            return overflow_error(format("one token of one {} layer", g.name),
                                  g.kind == LayerKind::linear_state ? g.state.source
                                  : g.kind == LayerKind::mla        ? g.latent_dim.source
                                                                    : g.k_head_dim.source);
        tok[i] = *t;
        tok_gpu[i] = *tg;
        st[i] = *s;
        st_gpu[i] = *sg;
    }
    // Built only when an overflow is reported: sizing itself allocates no message text.
    const std::string load_field = N > 1 ? "batch" : "context";
    auto load = [N, C](std::string_view where) {
        return N > 1 ? format("the KV cache of {} sequences of {} tokens{}", grouped(N), grouped(C), where)
                     : format("the KV cache of {} tokens{}", grouped(C), where);
    };
    const std::uint64_t vblock0 = o.block_size.value_or(default_block_size);
    std::vector<Warning> same_again;  // the per-GPU layout repeats the whole model's warnings
    VllmLayout whole = vllm_layout(m, tok, st, vblock0, r.warnings);
    VllmLayout per_gpu = vllm_layout(m, tok_gpu, st_gpu, vblock0, same_again);
    r.vllm_block_size = per_gpu.base_block;  // what vLLM sets on each GPU of this deployment

    // Per-layer tokens in each accounting (the same for every layer of a group).
    auto resident_tokens = [&](const LayerGroup& g) -> std::uint64_t {
        if (!is_attention(g.kind)) return 0;
        std::uint64_t t = g.window.value ? std::min(C, g.window.value) : C;
        return t;
    };
    auto vllm_blocks = [&](const LayerGroup& g, std::uint64_t B) -> std::uint64_t {
        switch (g.kind) {
            case LayerKind::full_attention:
            case LayerKind::mla:
                return cdiv(C, B);
            case LayerKind::sliding_window:
                return cdiv(std::min(g.window.value - 1 + T, C), B) + 1;
            case LayerKind::chunked_local:
                return cdiv(std::min(g.window.value + T, C), B);
            default:
                return 0;
        }
    };
    const std::uint64_t rb = r.block_size ? r.block_size : 1;  // resident rounding

    // One layer of group i for a batch of N sequences sharing a P-token prefix.
    struct LayerBytes {
        opt_u64 naive, resident, vllm;
    };
    auto layer_bytes = [&](std::size_t i, bool gpu, std::uint64_t n, std::uint64_t p) -> LayerBytes {
        const LayerGroup& g = m.groups[i];
        const VllmLayout& L = gpu ? per_gpu : whole;
        std::uint64_t t = gpu ? tok_gpu[i] : tok[i];
        std::uint64_t s = gpu ? st_gpu[i] : st[i];
        LayerBytes b{0, 0, 0};
        if (g.kind == LayerKind::linear_state) {
            b.resident = mul(n, s);
            b.vllm = mul(n, L.linear_page);
            return b;
        }
        if (!is_attention(g.kind)) return b;
        b.naive = mul(t, add(p, mul(n, C - p)));
        std::uint64_t res = resident_tokens(g);
        // Prefix tokens still inside this layer's window are stored once (whole blocks only).
        std::uint64_t start = g.window.value && C > g.window.value ? C - g.window.value : 0;
        std::uint64_t overlap = p > start ? p - start : 0;
        overlap = overlap / rb * rb;
        b.resident = mul(t, add(overlap, mul(n, cdiv(res - overlap, rb) * rb)));
        std::uint64_t B = L.block[i];
        std::uint64_t blocks = vllm_blocks(g, B);
        std::uint64_t shared = (g.kind == LayerKind::full_attention || g.kind == LayerKind::mla) ? p / B : 0;
        b.vllm = mul(mul(B, t), add(shared, mul(n, blocks - shared)));
        return b;
    };
    auto pick = [&](const LayerBytes& b) {
        return o.accounting == Accounting::naive  ? b.naive
               : o.accounting == Accounting::vllm ? b.vllm
                                                  : b.resident;
    };

    std::vector<std::uint64_t> counts(G);
    for (std::size_t i = 0; i < G; ++i)
        counts[i] = m.groups[i].count;
    const std::vector<std::uint64_t> pad = padding_layers(m, counts);
    const bool by_vllm = o.accounting == Accounting::vllm;
    opt_u64 bpt = 0, seq_n = 0, seq_r = 0, seq_v = 0, state = 0, kv = 0;
    for (std::size_t i = 0; i < G; ++i) {
        const LayerGroup& g = m.groups[i];
        GroupFigures f;
        f.group = static_cast<std::uint32_t>(i);
        f.bytes_per_token_layer = tok[i];
        f.bytes_per_token_layer_per_gpu = tok_gpu[i];
        f.kv_heads_per_gpu = is_attention(g.kind) && g.kind != LayerKind::mla ? heads_gpu[i] : 0;
        f.resident_tokens = resident_tokens(g);
        if (f.resident_tokens) f.resident_tokens = cdiv(f.resident_tokens, rb) * rb;
        f.vllm_block_size = is_attention(g.kind) ? per_gpu.block[i] : 0;  // on each GPU, as vLLM sets it
        f.vllm_blocks = vllm_blocks(g, per_gpu.block[i] ? per_gpu.block[i] : 1);
        f.state_bytes_layer = st[i];
        f.state_bytes_layer_per_gpu = st_gpu[i];
        LayerBytes one = layer_bytes(i, false, 1, 0);
        LayerBytes batch = layer_bytes(i, false, N, P);
        auto c = mul(g.count, one.naive), d = mul(g.count, one.resident),
             e = mul(g.count + pad[i], one.vllm);  // vLLM's padding layers too
        auto k = add(mul(g.count, pick(batch)), by_vllm ? mul(pad[i], batch.vllm) : 0);
        if (!c || !d || !e || !k)
            return overflow_error(load(format(" in the {} layers", g.name)), load_field);
        f.sequence_bytes_naive = *c;
        f.sequence_bytes_resident = *d;
        f.sequence_bytes_vllm = *e;
        bpt = add(bpt, mul(g.count, tok[i]));
        seq_n = add(seq_n, c);
        seq_r = add(seq_r, d);
        seq_v = add(seq_v, e);
        state = add(state, mul(g.count, st[i]));
        kv = add(kv, k);
        r.groups.push_back(f);
    }
    if (!bpt || !seq_n || !seq_r || !seq_v || !state || !kv) return overflow_error(load(""), load_field);
    r.bytes_per_token = *bpt;
    r.sequence_bytes_naive = *seq_n;
    r.sequence_bytes_resident = *seq_r;
    r.sequence_bytes_vllm = *seq_v;
    r.state_bytes = *state;
    r.kv_bytes = *kv;

    // Per GPU: each pipeline stage holds its layers with the per-GPU heads.
    auto sizes =
        pp_stage_sizes(static_cast<std::uint32_t>(m.num_layers.value), static_cast<std::uint32_t>(o.pp));
    std::uint32_t first = 0;
    opt_u64 deployment = 0;
    for (std::uint32_t n : sizes) {
        StageFigures s;
        s.first_layer = first;
        s.layers = n;
        std::vector<std::uint64_t> in_stage(G, 0);  // layers of each group in this stage
        for (std::uint32_t l = first; l < first + n; ++l)
            ++in_stage[m.layer_group[l]];
        const std::vector<std::uint64_t> stage_pad =
            by_vllm ? padding_layers(m, in_stage) : std::vector<std::uint64_t>(G, 0);
        opt_u64 sb = 0, sk = 0;
        for (std::size_t gi = 0; gi < G; ++gi) {
            if (!in_stage[gi]) continue;
            LayerBytes lb = layer_bytes(gi, true, N, P);
            sb = add(sb, mul(in_stage[gi], tok_gpu[gi]));
            sk = add(sk, add(mul(in_stage[gi], pick(lb)), by_vllm ? mul(stage_pad[gi], lb.vllm) : 0));
        }
        if (!sb || !sk) return overflow_error(load(" on one GPU"), load_field);
        s.bytes_per_token_per_gpu = *sb;
        s.kv_bytes_per_gpu = *sk;
        r.bytes_per_token_per_gpu = std::max(r.bytes_per_token_per_gpu, *sb);
        r.kv_bytes_per_gpu = std::max(r.kv_bytes_per_gpu, *sk);
        deployment = add(deployment, mul(*sk, o.tp));
        r.stages.push_back(s);
        first += n;
    }
    if (!deployment) return overflow_error(load(" summed over all GPUs"), load_field);
    r.kv_bytes_deployment = *deployment;
    return r;
}

}  // namespace kvcalc
