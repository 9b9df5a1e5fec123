#include "engines/vllm/vllm_blocks.hpp"

#include "result.hpp"

namespace kvcalc {

VllmBlockLayout vllm_block_layout(const ModelSpec& m, const std::vector<std::uint64_t>& tok,
                                  const std::vector<std::uint64_t>& state, std::uint64_t block,
                                  std::vector<Warning>* warnings) {
    VllmBlockLayout L;
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
    // One type (kv_cache_interface.py UniformTypeKVCacheSpecs.is_uniform_type): one kind, and for sliding
    // and chunked layers one window; anything else is a hybrid whose pages vLLM unifies.
    bool mixed = false;
    std::uint64_t max_page = 0;
    const LayerGroup* first = nullptr;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        if (!is_attention(m.groups[i].kind)) continue;
        if (!first) first = &m.groups[i];
        mixed |= m.groups[i].kind != first->kind || m.groups[i].window.value != first->window.value;
        max_page = std::max(max_page, block * tok[i]);
    }
    if (!mixed) return L;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
        if (!is_attention(m.groups[i].kind) || tok[i] == 0) continue;
        std::uint64_t page = block * tok[i];
        if (max_page % page == 0) {
            L.block[i] = block * (max_page / page);
        } else if (warnings) {
            warnings->push_back(
                {"block_size", format("vLLM cannot unify page sizes {} and {} B; the {} layers are "
                                      "sized at block {}",
                                      page, max_page, m.groups[i].name, block)});
        }
    }
    return L;
}

std::vector<std::uint64_t> vllm_padding_layers(const ModelSpec& m, const std::vector<std::uint64_t>& count) {
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
    if (size == 0) return pad;  // two kinds have layers: not reached
    for (std::size_t i = 0; i < G; ++i)
        if (total[i]) pad[i] = cdiv(total[i], size) * size - total[i];
    return pad;
}

}  // namespace kvcalc
