#include "check/pool.hpp"

#include <algorithm>

#include "engines/sglang/sglang_pool.hpp"
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
    // SGLang's pools for a hybrid model split the bytes first (engines/sglang/sglang_pool.cpp);
    // otherwise whole blocks of every layer's bytes per token.
    const bool split = !vllm && (in.sglang_sliding_bytes_per_token > 0 || in.sglang_state);
    SglangPoolSplit sg;
    if (split) {
        auto s = sglang_split_pool(in, r.pool_bytes_per_gpu);
        if (!s) return s.forward_error();
        sg = *s;
        r.pool_blocks = sg.pool_blocks;
    } else {
        auto page = mul(in.block_size, in.bytes_per_token_per_gpu);
        r.pool_blocks = page ? r.pool_bytes_per_gpu / *page : 0;
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
        if (split)
            sglang_split_steps(in, sg, r);
        else
            r.steps.push_back(format("/ ({} tokens x {} B per token per GPU) = {} whole blocks = {} tokens",
                                     grouped(in.block_size), grouped(in.bytes_per_token_per_gpu),
                                     grouped(r.pool_blocks), grouped(r.pool_tokens)));
    }
    return r;
}

}  // namespace kvcalc
