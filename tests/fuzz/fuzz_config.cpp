// libFuzzer target over config parsing and sizing. Built with clang, ASan and UBSan
// (scripts/fuzz.sh). Besides crashes, it checks invariants that any accepted config must
// keep, so a silently wrong number is a finding too.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api.hpp"
#include "config/json.hpp"
#include "config/model.hpp"
#include "report.hpp"
#include "sizing/sizing.hpp"
#include "sizing/weights.hpp"

namespace {

void require(bool ok) {
    if (!ok) std::abort();
}

void check_invariants(const kvcalc::ModelSpec& m, const kvcalc::SizeResult& r, const kvcalc::SizeOptions& o) {
    // An encoder-decoder's cross-attention holds the encoder's tokens, not the context's: its figures
    // are set apart, and its groups hold exactly encoder_tokens each (block-rounded when resident).
    std::uint64_t cross_naive = 0, cross_resident = 0;
    for (const auto& g : r.groups) {
        if (!m.groups[g.group].cross_attention) continue;
        require(o.encoder_tokens && r.encoder_tokens == *o.encoder_tokens);
        require(g.sequence_bytes_naive ==
                m.groups[g.group].count * g.bytes_per_token_layer * r.encoder_tokens);
        cross_naive += g.sequence_bytes_naive;
        cross_resident += g.sequence_bytes_resident;
    }
    // naive is bytes per token times the context, exactly
    require(r.sequence_bytes_naive - cross_naive == r.bytes_per_token * r.context);
    // resident never charges a layer for more tokens than naive does, apart from state
    // and block rounding (at most one block per layer)
    std::uint64_t slack = r.state_bytes;
    if (o.block_size) slack += *o.block_size * r.bytes_per_token;
    require(r.sequence_bytes_resident - cross_resident <= r.sequence_bytes_naive - cross_naive + slack);
    // one sequence, no prefix: the batch figure is the chosen sequence figure
    if (o.batch == 1 && o.shared_prefix == 0) require(r.kv_bytes == r.sequence_bytes(o.accounting));
    // per GPU never exceeds the whole, apart from replicated heads and the unsplit latent
    if (o.tp == 1 && o.pp == 1) require(r.kv_bytes_per_gpu == r.kv_bytes);
    // Every layer's cache is in one group, and a layer's second cache (Falcon-H1, Zamba2) in
    // another: the groups count each layer once, plus each second cache once; a looped model's
    // layer once per loop step (per_layer).
    // An encoder's layers run beside the text model (Voxtral Realtime's causal Whisper): a group of their
    // own, outside the text model's layer list.
    std::uint64_t caches = 0;
    for (const auto& g : m.groups)
        if (!g.encoder) caches += g.count;
    require(m.layer_group.size() == m.num_layers.value);
    std::uint64_t expected = 0;
    for (std::uint32_t g : m.layer_group)
        expected += m.groups[g].per_layer;
    for (std::uint32_t g : m.layer_second_group)
        if (g != kvcalc::ModelSpec::no_second_cache) expected += m.groups[g].per_layer;
    require(caches == expected);
    require(m.layer_second_group.empty() || m.layer_second_group.size() == m.num_layers.value);
    // every report serialises
    const kvcalc::Model model{m, kvcalc::estimate_weights(m)};
    require(!kvcalc::to_text(kvcalc::size_report(model, r)).empty());
    // a plan's figures are size_model's
    auto plan = kvcalc::SizePlan::make(m, o);
    require(plan.ok());
    auto f = plan->figures(r.context);
    require(f.ok() && f->kv_bytes == r.kv_bytes && f->kv_bytes_per_gpu == r.kv_bytes_per_gpu);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto m = kvcalc::read_model_text(text);
    if (!m) {
        require(!m.error().code.empty() && !m.error().message.empty());
        return 0;
    }
    // The last bytes pick the options, so the fuzzer explores them too.
    std::uint8_t k = size ? data[size - 1] : 0;
    kvcalc::SizeOptions o;
    o.context = std::uint64_t{1} << (k % 24);
    o.batch = 1 + (k >> 5);
    o.tp = (k & 4) ? 2 : 1;
    o.pp = (k & 8) ? 2 : 1;
    o.accounting = static_cast<kvcalc::Accounting>(k % 3);
    if (k & 16) o.block_size = 16;
    if (k & 2) o.encoder_tokens = 1500;  // an encoder-decoder's max_num_encoder_input_tokens (Whisper's 1500)
    static const char* dtypes[] = {"auto", "fp8", "int4", "fp32", "fp8_ds_mla"};
    o.kv_dtype = dtypes[k % 5];
    for (int pass = 0; pass < 2; ++pass) {
        auto r = kvcalc::size_model(*m, o);
        if (r)
            check_invariants(*m, *r, o);
        else
            require(!r.error().message.empty());
        o = kvcalc::SizeOptions{};  // and the defaults (the model's max context)
    }
    // the text API on the same input never fails to answer, nor does a series of its variants
    kvcalc::Session session;
    require(!session.size(text, "{\"context\": 4096}").empty());
    require(!session
                 .size(text, R"({"context": 4096, "num_speculative_tokens": 2, "mamba_cache_mode": "align",
                                     "max_num_encoder_input_tokens": 1500})")
                 .empty());
    require(!session
                 .series(text, "{}", R"({"contexts": [1, 4096, 1048576], "kv_dtypes": ["auto", "fp8"],
                                           "variants": ["model", "mla", {"kv_heads": 1}, {"kv_heads": 2}]})")
                 .empty());
    return 0;
}
