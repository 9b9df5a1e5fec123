#include "engines/vllm/vllm_pool.hpp"

#include <algorithm>
#include <vector>

#include "sizing/checked.hpp"
#include "sizing/units.hpp"

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
