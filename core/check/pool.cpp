#include "check/pool.hpp"

#include <algorithm>

#include "sizing/checked.hpp"
#include "sizing/units.hpp"

namespace kvcalc {
namespace {

// Digits, an optional point and up to 6 more digits: value x 10^6 exactly.
struct Decimal {
    std::uint64_t millionths = 0;
    std::size_t end = 0;  // where the number stops in the text
    bool had_point = false;
};

bool read_decimal(std::string_view s, Decimal& d) {
    std::size_t i = 0;
    std::uint64_t whole = 0, frac = 0;
    std::size_t whole_digits = 0, frac_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (++whole_digits > 15) return false;
        whole = whole * 10 + static_cast<std::uint64_t>(s[i++] - '0');
    }
    if (i < s.size() && s[i] == '.') {
        d.had_point = true;
        ++i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
            if (++frac_digits > 6) return false;
            frac = frac * 10 + static_cast<std::uint64_t>(s[i++] - '0');
        }
    }
    if (whole_digits + frac_digits == 0) return false;
    for (std::size_t k = frac_digits; k < 6; ++k)
        frac *= 10;
    auto v = add(mul(whole, 1000000), frac);
    if (!v) return false;
    d.millionths = *v;
    d.end = i;
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::uint64_t gcd(std::uint64_t a, std::uint64_t b) {
    while (b) {
        std::uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

}  // namespace

Result<Fraction> parse_fraction(std::string_view text, const std::string& field) {
    std::string_view s = trim(text);
    Decimal d;
    auto bad = [&](const char* why) {
        return field_error(code::bad_option, field, "{}, got \"{}\"", why, s.substr(0, 40));
    };
    if (!read_decimal(s, d) || d.end != s.size())
        return bad("must be a decimal fraction like 0.9 (at most 6 decimals)");
    if (d.millionths == 0) return bad("must be above 0");
    if (d.millionths > 1000000) return bad("must be at most 1");
    Fraction f;
    std::uint64_t g = gcd(d.millionths, 1000000);
    f.num = d.millionths / g;
    f.den = 1000000 / g;
    // Normalised text: no trailing zeros after the point.
    std::string frac = format("{}", d.millionths % 1000000 + 1000000).substr(1);
    while (!frac.empty() && frac.back() == '0')
        frac.pop_back();
    f.text = format(frac.empty() ? "{}" : "{}.{}", d.millionths / 1000000, frac);
    return f;
}

Result<std::uint64_t> parse_byte_size(std::string_view text, const std::string& field) {
    std::string_view s = trim(text);
    auto bad = [&](const char* why) {
        return field_error(code::bad_option, field, "{}, got \"{}\"", why, s.substr(0, 40));
    };
    Decimal d;
    if (!read_decimal(s, d)) return bad("must be a size like 1.5GiB, 512MiB or a number of bytes");
    std::string_view unit = trim(s.substr(d.end));
    struct Unit {
        const char* name;
        std::uint64_t size;
    };
    static const Unit units[] = {{"", 1},
                                 {"B", 1},
                                 {"KiB", 1ull << 10},
                                 {"MiB", 1ull << 20},
                                 {"GiB", 1ull << 30},
                                 {"TiB", 1ull << 40},
                                 {"kB", 1000},
                                 {"KB", 1000},
                                 {"MB", 1000000},
                                 {"GB", 1000000000},
                                 {"TB", 1000000000000ull}};
    for (const auto& u : units) {
        if (unit != u.name) continue;
        if (u.size == 1 && d.millionths % 1000000 != 0) return bad("a number of bytes must be whole");
        // millionths x size / 10^6: the fraction part is below 10^6 x 2^40 < 2^64.
        std::uint64_t whole = d.millionths / 1000000, frac = d.millionths % 1000000;
        auto v = add(mul(whole, u.size), frac * u.size / 1000000);
        if (!v) return bad("is too large");
        return *v;
    }
    return bad("unknown unit (expected B, KiB, MiB, GiB, TiB, kB, MB, GB or TB)");
}

const char* engine_name(Engine e) {
    return e == Engine::sglang ? "sglang" : "vllm";
}

Result<Engine> parse_engine(std::string_view text) {
    if (text == "vllm" || text == "vLLM") return Engine::vllm;
    if (text == "sglang" || text == "SGLang") return Engine::sglang;
    return field_error(code::bad_option, "engine", "must be vllm or sglang, got \"{}\"", text.substr(0, 40));
}

std::uint64_t tokens_in_bytes(std::uint64_t bytes, std::uint64_t per_token, std::uint64_t block) {
    if (per_token == 0 || block == 0) return 0;
    auto page = mul(block, per_token);
    if (!page) return 0;  // a block larger than any memory: no whole block fits
    return bytes / *page * block;
}

Result<PoolResult> derive_pool(const PoolInputs& in) {
    if (in.gpu_memory_bytes == 0)
        return fail(code::bad_option, "gpu_memory", "gpu_memory: must be above 0 bytes");
    if (in.fraction.den == 0 || in.fraction.num == 0 || in.fraction.num > in.fraction.den)
        return fail(code::bad_option,
                    in.engine == Engine::vllm ? "gpu_memory_utilization" : "mem_fraction_static",
                    "the memory fraction must be in (0, 1]");
    if (in.block_size == 0) return fail(code::bad_option, "block_size", "block_size: must be at least 1");
    if (in.bytes_per_token_per_gpu == 0)
        return fail(
            code::invalid_value, "config",
            "the model keeps no per-token cache (only fixed states): a pool in tokens does not apply");
    PoolResult r;
    r.engine = in.engine;
    auto scaled = mul(in.gpu_memory_bytes, in.fraction.num);
    if (!scaled) return fail(code::overflow, "gpu_memory", "gpu_memory x fraction exceeds 2^53 - 1");
    r.requested_bytes = *scaled / in.fraction.den;
    const bool vllm = in.engine == Engine::vllm;
    const std::uint64_t activation = vllm ? in.activation_peak_bytes : 0;
    auto reserved = add(add(in.weight_bytes_per_gpu, activation), in.non_torch_bytes);
    if (!reserved) return fail(code::overflow, "weights", "the reservations exceed 2^53 - 1 bytes");
    r.reserved_bytes = *reserved;
    r.memory_left = r.requested_bytes > r.reserved_bytes;
    r.pool_bytes_per_gpu = r.memory_left ? r.requested_bytes - r.reserved_bytes : 0;
    const bool swa = !vllm && in.sglang_sliding_bytes_per_token > 0;
    const bool state = !vllm && in.sglang_state;
    // What the attention layers' tokens get: all of the pool, less the state's share.
    const std::uint64_t state_share = state ? r.pool_bytes_per_gpu * 9 / 19 : 0;  // < 2^53 x 9
    const std::uint64_t kv_bytes = r.pool_bytes_per_gpu - state_share;
    if (swa) {
        // full_tokens = pool / (F + 0.8 x S) = 5 x pool / (5F + 4S), in whole pages
        const std::uint64_t s = in.sglang_sliding_bytes_per_token, f = in.bytes_per_token_per_gpu - s;
        auto den = add(mul(5, f), mul(4, s));
        auto tokens = mul(kv_bytes, 5);
        if (!den || !tokens)
            return fail(code::overflow, "gpu_memory", "the pool's arithmetic exceeds 2^53 - 1");
        r.pool_blocks = *tokens / *den / in.block_size;
    } else {
        auto page = mul(in.block_size, in.bytes_per_token_per_gpu);
        r.pool_blocks = page ? kv_bytes / *page : 0;
    }
    r.pool_tokens = r.pool_blocks * in.block_size;

    const char* fname = vllm ? "gpu_memory_utilization" : "mem_fraction_static";
    // "1,610,612,736 B (1.5 GiB)"
    auto bytes = [](std::uint64_t b) { return format("{} B ({})", grouped(b), format_bytes(b)); };
    r.steps.push_back(format("GPU memory {} ({})", bytes(in.gpu_memory_bytes), in.gpu_source));
    r.steps.push_back(
        format("x {} {} ({}) = {}", fname, in.fraction.text, in.fraction_source, bytes(r.requested_bytes)));
    r.steps.push_back(format("- weights {} per GPU ({})", bytes(in.weight_bytes_per_gpu), in.weight_source));
    if (vllm) r.steps.push_back(format("- activation peak {} ({})", bytes(activation), in.activation_source));
    r.steps.push_back(format("- non-torch memory {} ({})", bytes(in.non_torch_bytes), in.non_torch_source));
    if (!r.memory_left) {
        r.steps.push_back(format("= nothing left for the KV cache: the reservations ({}) exceed {}",
                                 bytes(r.reserved_bytes), bytes(r.requested_bytes)));
    } else {
        r.steps.push_back(format("= {} for the KV cache per GPU", bytes(r.pool_bytes_per_gpu)));
        if (state)
            r.steps.push_back(
                format("- 0.9 / 1.9 of it for the Mamba / linear-attention state "
                       "(SGLang's mamba_full_memory_ratio 0.9) {} = {} for the attention layers",
                       bytes(state_share), bytes(kv_bytes)));
        if (swa)
            r.steps.push_back(
                format("/ ({} B per token for the full layers + 0.8 x {} B for the sliding ones, "
                       "SGLang's swa_full_tokens_ratio 0.8) = {} pages of {} = {} full-layer tokens "
                       "(the sliding layers hold 0.8 of that)",
                       grouped(in.bytes_per_token_per_gpu - in.sglang_sliding_bytes_per_token),
                       grouped(in.sglang_sliding_bytes_per_token), grouped(r.pool_blocks),
                       grouped(in.block_size), grouped(r.pool_tokens)));
        else
            r.steps.push_back(format("/ ({} tokens x {} B per token per GPU) = {} whole blocks = {} tokens",
                                     grouped(in.block_size), grouped(in.bytes_per_token_per_gpu),
                                     grouped(r.pool_blocks), grouped(r.pool_tokens)));
    }
    return r;
}

}  // namespace kvcalc

namespace kvcalc {

Result<VllmLayout> vllm_layout(const ModelSpec& m, const SizeResult& r) {
    // The kinds of cached layer, as vLLM tells its specs apart: attention by kind and window,
    // and linear state. Counts over the whole model; groups[i] of r lines up with m.groups[i].
    struct Kind {
        LayerKind kind;
        std::uint64_t window = 0, count = 0, page = 0, block = 0;
        std::string name;
    };
    std::vector<Kind> kinds;
    for (const GroupFigures& g : r.groups) {
        const LayerGroup& lg = m.groups[g.group];
        const bool attention = lg.kind == LayerKind::full_attention || lg.kind == LayerKind::mla ||
                               lg.kind == LayerKind::sliding_window || lg.kind == LayerKind::chunked_local;
        if ((!attention && lg.kind != LayerKind::linear_state) || lg.count == 0) continue;
        auto it = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& k) {
            return k.kind == lg.kind && k.window == lg.window.value;
        });
        if (it == kinds.end()) {
            kinds.push_back({lg.kind, lg.window.value, 0, 0, 0, lg.name});
            it = kinds.end() - 1;
        }
        it->count += lg.count;
        if (attention) {
            auto page = mul(g.vllm_block_size, g.bytes_per_token_layer_per_gpu);
            if (!page)
                return fail(code::overflow, "block_size",
                            "one vLLM page of the {} layers exceeds 2^53 - 1 bytes", lg.name);
            it->page = std::max(it->page, *page);
            it->block = it->block ? std::min(it->block, g.vllm_block_size) : g.vllm_block_size;
        }
    }
    if (kinds.empty())
        return fail(code::invalid_value, "engine_log",
                    "the model keeps no KV cache, so vLLM has no pool of blocks");
    VllmLayout L;
    std::uint64_t page = 0, min_block = 0;
    for (const Kind& k : kinds) {
        page = std::max(page, k.page);
        if (k.block) min_block = min_block ? std::min(min_block, k.block) : k.block;
    }
    if (min_block == 0)
        return fail(code::invalid_value, "engine_log",
                    "the model keeps only linear-attention state: kvcalc does not model vLLM's pool of state "
                    "pages alone");
    L.min_block = min_block;
    if (kinds.size() == 1) {
        auto bytes = mul(min_block, r.bytes_per_token_per_gpu);  // every layer of the busiest stage
        if (!bytes) return fail(code::overflow, "block_size", "one vLLM block exceeds 2^53 - 1 bytes");
        L.block_bytes = *bytes;
        L.text = format("one KV cache group of every layer, {}-token blocks of {} B per GPU",
                        grouped(min_block), grouped(L.block_bytes));
        return L;
    }
    if (r.pp > 1)
        return fail(
            code::invalid_value, "pp",
            "vLLM splits a hybrid model's KV cache groups over pipeline stages in a way kvcalc does not "
            "model: its pool in blocks is not derived with pp > 1");
    // Groups of one size: the smallest kind's count, or the largest's when under 1.5 times it.
    std::uint64_t small = kinds[0].count, large = kinds[0].count;
    for (const Kind& k : kinds) {
        small = std::min(small, k.count);
        large = std::max(large, k.count);
    }
    L.hybrid = true;
    L.group_size = 2 * large < 3 * small ? large : small;
    L.groups = 0;
    std::string parts;
    for (const Kind& k : kinds) {
        const std::uint64_t n = cdiv(k.count, L.group_size), pad = n * L.group_size - k.count;
        L.groups += n;
        L.padding_layers += pad;
        format_to(parts, parts.empty() ? "{} {}" : ", {} {}", grouped(k.count), k.name);
        if (pad) format_to(parts, " + {} padding", grouped(pad));
    }
    auto bytes = mul(L.group_size, page);
    if (!bytes) return fail(code::overflow, "block_size", "one vLLM block exceeds 2^53 - 1 bytes");
    L.block_bytes = *bytes;
    L.text = format("{} KV cache groups of {} layers ({}), blocks of {} pages of {} B per GPU",
                    grouped(L.groups), grouped(L.group_size), parts, grouped(L.group_size), grouped(page));
    return L;
}

}  // namespace kvcalc
