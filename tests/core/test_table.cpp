// The docs table over the seed models, whole, in Markdown, HTML and CSV; and escaping of
// every string a config brings.
#include "api.hpp"
#include "report.hpp"
#include "sizing/table.hpp"
#include "support.hpp"

using kvcalc::json;

namespace {

// The bundled presets (named by their ids unless the config has a _name_or_path).
const char* seed_ids[] = {"Qwen/Qwen2.5-7B-Instruct", "mistralai/Mistral-7B-v0.1", "Qwen/Qwen3-8B",
                          "Qwen/Qwen2.5-72B-Instruct", "meta-llama/Llama-2-7b-hf"};

kvcalc::ModelSpec preset(const char* id) {
    auto m = kvcalc::load_config(id);
    REQUIRE(m.ok());
    return m.value();
}

// table_report over models read from specs, with options given as JSON.
kvcalc::Result<json> table_of(const std::vector<kvcalc::ModelSpec>& specs, const json& options) {
    std::vector<std::shared_ptr<const kvcalc::Model>> models;
    for (const auto& m : specs)
        models.push_back(
            std::make_shared<const kvcalc::Model>(kvcalc::Model{m, kvcalc::estimate_weights(m)}));
    auto o = kvcalc::read_options(options, kvcalc::table_command);
    if (!o) return o.forward_error();
    return kvcalc::table_report(models, *o);
}

json seed_table(const json& options = json::object()) {
    std::vector<kvcalc::ModelSpec> models;
    for (const char* id : seed_ids)
        models.push_back(preset(id));
    auto t = table_of(models, options);
    INFO((t ? "" : t.error().message));
    REQUIRE(t.ok());
    return *t;
}

std::string render(const json& table, const std::string& format) {
    auto s = kvcalc::render_table(table, format);
    INFO((s ? "" : s.error().message));
    REQUIRE(s.ok());
    return *s;
}

// A real config renamed: the name is the one string a config puts in every table.
kvcalc::ModelSpec renamed(const std::string& name) {
    auto j = kvcalc::parse_json_text(kvtest::shared_config("Qwen--Qwen2.5-7B-Instruct.json"));
    REQUIRE(j.ok());
    json config = *j;
    config["_name_or_path"] = name;
    auto m = kvcalc::read_model(config);
    REQUIRE(m.ok());
    return m.value();
}

}  // namespace

// The figures, per model (one sequence, resident accounting, KV dtype auto):
//   Qwen2.5-7B   2 x 28 x 4 x 128 x 2 = 57,344 B = 56 KiB per token; x 4,096 = 224 MiB;
//                x 32,768 = 1.75 GiB; 128K is beyond its 32,768; weights 7,615,487,488 x 2 B = 14.18 GiB
//   Mistral-7B   2 x 32 x 8 x 128 x 2 = 128 KiB; x 4,096 = 512 MiB; 32K keeps the 4,096-token
//                window: 512 MiB; beyond 32,768 at 128K; 7,241,732,096 x 2 B = 13.49 GiB
//   Qwen3-8B     2 x 36 x 8 x 128 x 2 = 144 KiB; 576 MiB; 4.5 GiB; max 40,960; 8,190,726,144 x 2 B = 15.26
//   GiB Qwen2.5-72B  2 x 80 x 8 x 128 x 2 = 320 KiB; 1.25 GiB; 10 GiB; max 32,768; 145,410,768,896 B = 135.42
//   GiB Llama-2-7b   2 x 32 x 32 x 128 x 2 = 512 KiB; 2 GiB; max 4,096; 6,738,415,616 x 2 B (fp16) = 12.55
//   GiB
TEST_CASE("table: the seed models in Markdown, exactly") {
    std::string md = render(seed_table(), "md");
    CHECK(
        md ==
        "| Model | Attention | Layers | KV heads / query heads | Head size | Per token | 4K tokens | 32K "
        "tokens | "
        "128K tokens | Weights |\n"
        "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |\n"
        "| Qwen/Qwen2.5-7B-Instruct | GQA | 28 | 4 / 28 | 128 | 56 KiB | 224 MiB | 1.75 GiB | — | 14.18 GiB "
        "(7.62B, bf16) |\n"
        "| mistralai/Mistral-7B-v0.1 | GQA, sliding window | 32 | 8 / 32 | 128 | 128 KiB | 512 MiB | 512 MiB "
        "| — | "
        "13.49 GiB (7.24B, bf16) |\n"
        "| Qwen/Qwen3-8B | GQA | 36 | 8 / 32 | 128 | 144 KiB | 576 MiB | 4.5 GiB | — | 15.26 GiB (8.19B, "
        "bf16) |\n"
        "| Qwen/Qwen2.5-72B-Instruct | GQA | 80 | 8 / 64 | 128 | 320 KiB | 1.25 GiB | 10 GiB | — | 135.42 "
        "GiB "
        "(72.71B, bf16) |\n"
        "| meta-llama/Llama-2-7b-hf | MHA | 32 | 32 / 32 | 128 | 512 KiB | 2 GiB | — | — | 12.55 GiB (6.74B, "
        "fp16) |\n"
        "\n"
        "KV cache of one sequence, resident accounting, KV dtype auto; 1 KiB = 1024 B. — : beyond the "
        "model's max "
        "context.\n");
}

TEST_CASE("table: the seed models in HTML, exactly") {
    std::string html = render(seed_table({{"contexts", "4096,32768"}}), "html");
    CHECK(
        html ==
        "<table class=\"kvcalc-table\">\n"
        "<caption>KV cache of one sequence, resident accounting, KV dtype auto; 1 KiB = 1024 B. — : beyond "
        "the "
        "model&#39;s max context.</caption>\n"
        "<thead>\n"
        "<tr><th scope=\"col\">Model</th><th scope=\"col\">Attention</th><th scope=\"col\">Layers</th>"
        "<th scope=\"col\">KV heads / query heads</th><th scope=\"col\">Head size</th><th scope=\"col\">Per "
        "token</th>"
        "<th scope=\"col\">4K tokens</th><th scope=\"col\">32K tokens</th><th "
        "scope=\"col\">Weights</th></tr>\n"
        "</thead>\n"
        "<tbody>\n"
        "<tr><th scope=\"row\">Qwen/Qwen2.5-7B-Instruct</th><td>GQA</td><td>28</td><td>4 / "
        "28</td><td>128</td>"
        "<td>56 KiB</td><td>224 MiB</td><td>1.75 GiB</td><td>14.18 GiB (7.62B, bf16)</td></tr>\n"
        "<tr><th scope=\"row\">mistralai/Mistral-7B-v0.1</th><td>GQA, sliding window</td><td>32</td><td>8 / "
        "32</td>"
        "<td>128</td><td>128 KiB</td><td>512 MiB</td><td>512 MiB</td><td>13.49 GiB (7.24B, bf16)</td></tr>\n"
        "<tr><th scope=\"row\">Qwen/Qwen3-8B</th><td>GQA</td><td>36</td><td>8 / 32</td><td>128</td><td>144 "
        "KiB</td>"
        "<td>576 MiB</td><td>4.5 GiB</td><td>15.26 GiB (8.19B, bf16)</td></tr>\n"
        "<tr><th scope=\"row\">Qwen/Qwen2.5-72B-Instruct</th><td>GQA</td><td>80</td><td>8 / "
        "64</td><td>128</td>"
        "<td>320 KiB</td><td>1.25 GiB</td><td>10 GiB</td><td>135.42 GiB (72.71B, bf16)</td></tr>\n"
        "<tr><th scope=\"row\">meta-llama/Llama-2-7b-hf</th><td>MHA</td><td>32</td><td>32 / "
        "32</td><td>128</td>"
        "<td>512 KiB</td><td>2 GiB</td><td>—</td><td>12.55 GiB (6.74B, fp16)</td></tr>\n"
        "</tbody>\n"
        "</table>\n");
}

TEST_CASE("table: CSV carries the exact integers") {
    std::string csv = render(seed_table({{"contexts", json::array({4096u, 32768u})}}), "csv");
    CHECK(csv.substr(0, csv.find("\r\n")) ==
          "model,attention_kind,layers,kv_heads,query_heads,head_size,bytes_per_token,kv_bytes_4096,kv_bytes_"
          "32768,"
          "param_count,weight_bytes,weight_dtype");
    // 57,344 x 4,096 = 234,881,024; x 32,768 = 1,879,048,192
    CHECK(
        csv.find(
            "\r\nQwen/Qwen2.5-7B-Instruct,GQA,28,4,28,128,57344,234881024,1879048192,7615487488,15230974976,"
            "bf16\r\n") != std::string::npos);
    // Llama-2-7b has no figure beyond its 4,096: an empty field.
    CHECK(csv.find("\r\nmeta-llama/"
                   "Llama-2-7b-hf,MHA,32,32,32,128,524288,2147483648,,6738415616,13476831232,fp16\r\n") !=
          std::string::npos);
}

TEST_CASE("table: geometry that differs by layer kind, and MLA") {
    std::vector<kvcalc::ModelSpec> models = {kvtest::model("google--gemma-4-26B-A4B.json"),
                                             kvtest::model("deepseek-ai--DeepSeek-V3.json")};
    auto t = table_of(models, {{"contexts", json::array({4096u})}});
    REQUIRE(t.ok());
    const json& g = (*t)["rows"][0];
    CHECK(g["kv_heads_text"] == "8 sliding, 2 full");       // num_key_value_heads, num_global_key_value_heads
    CHECK(g["head_size_text"] == "256 sliding, 512 full");  // head_dim, global_head_dim
    const json& d = (*t)["rows"][1];
    CHECK(d["kv_heads_text"] == "1 latent");
    CHECK(d["head_size_text"] == "576 latent");  // kv_lora_rank 512 + qk_rope_head_dim 64
    CHECK(d["weight_dtype"] == "fp8");
}

TEST_CASE("table: every string from a config is escaped") {
    const std::string evil = "<img src=x onerror=alert(1)>";
    std::vector<kvcalc::ModelSpec> models = {renamed(evil), renamed("a|b \"c\" & 'd', e")};
    auto t = table_of(models, {{"contexts", json::array({4096u})}});
    REQUIRE(t.ok());
    std::string html = render(*t, "html");
    CHECK(html.find("<img") == std::string::npos);
    CHECK(html.find("<th scope=\"row\">&lt;img src=x onerror=alert(1)&gt;</th>") != std::string::npos);
    CHECK(html.find("<th scope=\"row\">a|b &quot;c&quot; &amp; &#39;d&#39;, e</th>") != std::string::npos);
    std::string md = render(*t, "md");
    CHECK(md.find("<img") == std::string::npos);  // Markdown renderers pass raw HTML through
    CHECK(md.find("| &lt;img src=x onerror=alert(1)&gt; | GQA |") != std::string::npos);
    CHECK(md.find("| a\\|b \"c\" &amp; 'd', e | GQA |") !=
          std::string::npos);  // a bare | would split the cell
    std::string csv = render(*t, "csv");
    CHECK(csv.find("\r\n\"a|b \"\"c\"\" & 'd', e\",GQA,") != std::string::npos);
}

TEST_CASE("table: options and errors") {
    auto bad = kvcalc::render_table(seed_table(), "pdf");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message == "format: must be md, html, csv or json, got \"pdf\"");
    std::vector<kvcalc::ModelSpec> one = {preset("Qwen/Qwen3-8B")};
    auto ctx = table_of(one, {{"contexts", "4096,,8192"}});
    REQUIRE_FALSE(ctx.ok());
    CHECK(ctx.error().field == "contexts");
    CHECK(ctx.error().message ==
          "contexts: must be positive whole numbers separated by commas, got \"4096,,8192\"");
    auto unknown = table_of(one, {{"colour", "red"}});
    REQUIRE_FALSE(unknown.ok());
    CHECK(unknown.error().message == "unknown option \"colour\"");
    auto fp8 = table_of(one, {{"contexts", json::array({4096u})}, {"kv_dtype", "fp8"}});
    REQUIRE(fp8.ok());
    CHECK((*fp8)["rows"][0]["kv_bytes"][0] == 73728ull * 4096);  // 2 x 36 x 8 x 128 x 1 B per token
}

TEST_CASE("table: an encoder-decoder's row holds its cross-attention cache, and the note says so") {
    // Written from openai/whisper-large-v3's published fields: 32 decoder layers of 20 heads, d_model 1280.
    auto m = kvcalc::read_model_text(
        R"({"architectures": ["WhisperForConditionalGeneration"], "model_type": "whisper", "d_model": 1280,
        "decoder_layers": 32, "decoder_attention_heads": 20, "max_target_positions": 448, "torch_dtype": "float16"})");
    REQUIRE(m.ok());
    std::vector<kvcalc::ModelSpec> both = {*m, preset("Qwen/Qwen3-8B")};
    auto none = table_of(both, {{"contexts", json::array({256u})}});
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().field == "max_num_encoder_input_tokens");
    auto t = table_of(both, {{"contexts", json::array({256u})}, {"max_num_encoder_input_tokens", 1500u}});
    REQUIRE(t.ok());
    // 163,840 B a token (2 x 32 x 20 x 64 x 2) over 256 context and 1,500 encoder tokens: 287,703,040 B.
    CHECK((*t)["rows"][0]["kv_bytes"][0] == 163840ull * (256 + 1500));
    CHECK((*t)["rows"][0]["encoder_tokens"] == 1500u);
    CHECK_FALSE((*t)["rows"][1].contains("encoder_tokens"));  // a decoder's row: the context only
    CHECK(render(*t, "md").find(
              "\nKV cache of one sequence, resident accounting, KV dtype auto; 1 KiB = 1024 B. An "
              "encoder-decoder's figures include its cross-attention cache of 1,500 encoder "
              "tokens (max\\_num\\_encoder\\_input\\_tokens).\n") != std::string::npos);  // md escapes _
    auto decoders = table_of({preset("Qwen/Qwen3-8B")}, {{"max_num_encoder_input_tokens", 1500u}});
    REQUIRE(decoders.ok());
    CHECK(render(*decoders, "md").find("encoder") == std::string::npos);  // no such row, no such sentence
}

TEST_CASE("table: table_json over preset ids and inline configs") {
    std::string inline_config = kvtest::shared_config("mistralai--Mistral-7B-v0.1.json");
    json configs = json::array({"Qwen/Qwen3-8B", inline_config});
    auto out = kvcalc::parse_json_text(
        kvcalc::table_json(kvcalc::to_text(configs), "{\"format\": \"md\", \"contexts\": [4096]}"));
    REQUIRE(out.ok());
    REQUIRE_FALSE(out->contains("error"));
    CHECK((*out)["rows"].size() == 2);
    // An inline config without _name_or_path is named by architectures[0].
    CHECK((*out)["text"].get<std::string>().find("| MistralForCausalLM | GQA, sliding window | 32 |") !=
          std::string::npos);
    auto err = kvcalc::parse_json_text(kvcalc::table_json("[\"Qwen/Qwen3-8B\", \"no/such-model\"]", ""));
    REQUIRE(err.ok());
    REQUIRE(err->contains("error"));
    CHECK((*err)["error"]["code"] == "unknown_preset");
    CHECK((*err)["error"]["message"].get<std::string>().rfind("configs[1]: ", 0) == 0);
    // A row the options cannot size is named the same way: Gemma 4 has no llama.cpp rules from a
    // config.json (its GGUF has them), so the element's table leaves that row out, keeping the others.
    auto llama =
        kvcalc::parse_json_text(kvcalc::table_json("[\"Qwen/Qwen3-8B\", \"google/gemma-4-26B-A4B\"]",
                                                   "{\"engine\": \"llamacpp\", \"contexts\": [4096]}"));
    REQUIRE(llama.ok());
    REQUIRE(llama->contains("error"));
    CHECK((*llama)["error"]["field"] == "engine");
    CHECK((*llama)["error"]["message"].get<std::string>().rfind("configs[1]: engine llamacpp: ", 0) == 0);
}

TEST_CASE("gpu presets as JSON") {
    auto list = kvcalc::parse_json_text(kvcalc::gpu_presets_json());
    REQUIRE(list.ok());
    REQUIRE(list->size() == 8);
    const json& h100 = (*list)[0];
    CHECK(h100["id"] == "h100-80gb");
    CHECK(h100["memory_bytes"] == 84943715696);
    CHECK(h100["memory_gib"] == "79.11");
    CHECK(h100["measured"] == true);
}
