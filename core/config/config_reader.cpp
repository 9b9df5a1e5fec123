// Reading a config: find the text model, resolve field aliases, record provenance.
#include "config/architectures.hpp"
#include "config/config_fields.hpp"
#include "config/layer_plan.hpp"
#include "config/model.hpp"
#include "engines/llamacpp/gguf_model.hpp"

namespace kvcalc {
namespace {

// The text model: the root, or a nested text config when the root has no layer count.
struct TextModel {
    const json* object;
    std::string path;
};

constexpr std::initializer_list<const char*> layer_aliases = {"num_hidden_layers", "n_layer", "num_layers",
                                                              "n_layers"};

// The nested object v found at path, or the error naming it: missing (and why the model needs it), or
// not an object.
Result<const json*> nested_object(const json* v, const char* path, const char* needed) {
    if (!v) return field_error(code::missing_field, path, "missing: {}", needed);
    if (!v->is_object())
        return field_error(code::invalid_value, path, "must be an object, got {}", described(*v));
    return v;
}

// The config class of the text model `text` (at `path`, "" for the root): a sub-config's own model_type;
// else the class its wrapper's config class builds for it (wrapper_text: LlavaConfig's text_config without a
// model_type is a LlamaConfig; Qwen2VLConfig without a text_config builds Qwen2VLTextConfig from the root's
// fields); else the root's model_type. `via` names the wrapper when it decided.
struct TextClass {
    std::string model_type;
    std::string via;
};
TextClass text_class(const json& text, const std::string& path, const json& root) {
    const json* own = member(text, "model_type");
    if (!path.empty() && own && own->is_string()) return {own->get<std::string>(), ""};
    const json* r = member(root, "model_type");
    const std::string root_type = r && r->is_string() ? r->get<std::string>() : std::string();
    bool sub_config = false;
    for (const char* sub : {"text_config", "llm_config", "language_config"})
        sub_config |= member(root, sub) != nullptr;
    if (const WrapperText* w = wrapper_text(root_type); w && (!path.empty() || (w->from_root && !sub_config)))
        return {w->text_type, format("{}'s text model", w->wrapper_class)};
    return {root_type, ""};
}

// Whether `object` counts its layers: one of layer_aliases, or a default of its config class (LlamaConfig's
// num_hidden_layers 32, for a text_config that leaves it out).
bool has_layer_count(const json& object, const std::string& path, const json& root) {
    const TextClass c = text_class(object, path, root);
    const Defaults d = defaults_for(c.model_type, c.via);
    return Fields(object, path, &d).first_of(layer_aliases) != nullptr;
}

Result<TextModel> find_text_model(const json& root) {
    if (!root.is_object())
        return fail(code::invalid_value, "", "the config must be a JSON object, got {}", described(root));
    Fields top(root, "");
    // Qwen2.5-Omni / Qwen3-Omni: vLLM's text config is the thinker's (transformers' get_text_config, as
    // vllm/transformers_utils/config.py get_hf_text_config reads it), and qwen2_5_omni_thinker.py /
    // qwen3_omni_moe_thinker.py build their language model on thinker_config.text_config, whatever the root
    // has.
    if (const json* t = top.find("thinker_config")) {
        if (!t->is_object())
            return field_error(code::invalid_value, "thinker_config", "must be an object, got {}",
                               described(*t));
        Fields tf(*t, "thinker_config");
        auto text = nested_object(tf.find("text_config"), "thinker_config.text_config",
                                  "the thinker's text model is what vLLM serves");
        if (!text) return text.forward_error();
        const json* s = *text;
        if (!Fields(*s, "thinker_config.text_config").first_of(layer_aliases))
            return field_error(code::missing_field, "thinker_config.text_config.num_hidden_layers",
                               "missing layer count in the thinker's text model");
        return TextModel{s, "thinker_config.text_config"};
    }
    // Moondream3 (HfMoondream, Moondream3ForCausalLM): vLLM's Moondream3Config
    // (transformers_utils/configs/moondream3.py) builds the text model from config.json's config.text, and
    // moondream3.py Moondream3ForCausalLM reads hf_config.config otherwise; the root has no text fields. Its
    // class defaults (24 layers of 32 heads) are not taken: a config without them is an error.
    if (const json* a = top.find("architectures"); a && a->is_array() && !a->empty() && (*a)[0].is_string()) {
        const Architecture* arch = find_architecture((*a)[0].get<std::string>());
        if (arch && std::string_view(arch->family) == "moondream3") {
            const json* c = top.find("config");
            if (c && !c->is_object())
                return field_error(code::invalid_value, "config", "must be an object, got {}", described(*c));
            auto text = nested_object(c ? member(*c, "text") : nullptr, "config.text",
                                      "vLLM's Moondream3 builds its text model from it");
            if (!text) return text.forward_error();
            const json* t = *text;
            if (!member(*t, "n_layers"))
                return field_error(
                    code::missing_field, "config.text.n_layers",
                    "missing (vLLM's Moondream3TextConfig reads it; its default 24 is not taken)");
            return TextModel{t, "config.text"};
        }
        // Encoder-decoders: the decoder's fields are in the object vLLM reads them from, the root for Whisper
        // and FireRedLID (num_hidden_layers, when written, is Whisper's encoder count), a nested object for
        // Cohere ASR (transf_decoder.config_dict) and Nemotron Parse (decoder); an error names its path.
        if (const EncoderDecoder* ed = arch ? encoder_decoder(arch->family) : nullptr) {
            const json* object = &root;
            std::string path;
            for (std::string_view rest = ed->path; !rest.empty();) {
                const std::size_t dot = rest.find('.');
                const std::string key(rest.substr(0, dot));
                rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
                path += path.empty() ? key : "." + key;
                auto next = nested_object(
                    member(*object, key), path.c_str(),
                    format("vLLM's {} reads the decoder's fields from {}", ed->vllm, ed->path).c_str());
                if (!next) return next.forward_error();
                object = *next;
            }
            return TextModel{object, path};
        }
        // Wrappers whose text model vLLM builds on the root config itself, never on a text_config: an error
        // names the root field rather than reading one that vLLM does not.
        struct RootText {
            const char* arch;
            const char* vllm;
        };
        constexpr RootText root_text[] = {
            {"OpenPanguVLForConditionalGeneration",
             "openpangu_vl.py OpenPanguVLForConditionalGeneration.__init__ builds PanguEmbeddedForCausalLM "
             "on the wrapper's own config"},
            {"FireRedASR2ForConditionalGeneration",
             "fireredasr2.py FireRedASR2Model.__init__ builds Qwen2ForCausalLM on the root config"},
            {"FunASRForConditionalGeneration",
             "funasr.py FunASRModel.__init__ builds Qwen3Model on the root config"},
        };
        for (const RootText& r : root_text)
            if (arch && std::string_view(arch->name) == r.arch && !top.first_of(layer_aliases))
                return field_error(
                    code::missing_field, "num_hidden_layers",
                    "missing at the config's root, where vLLM reads {}'s text model ({}; a text_config "
                    "is not read)",
                    r.arch, r.vllm);
    }
    // HRM-Text counts its layers in num_layers_per_stack (hrm_text.py HrmTextStack).
    if (has_layer_count(root, "", root) || top.find("num_layers_per_stack")) return TextModel{&root, ""};
    for (const char* sub : {"text_config", "llm_config", "language_config"}) {
        const json* s = top.find(sub);
        if (!s) continue;
        if (!s->is_object())
            return field_error(code::invalid_value, sub, "must be an object, got {}", described(*s));
        if (has_layer_count(*s, sub, root)) return TextModel{s, sub};
    }
    return fail(code::missing_field, "num_hidden_layers",
                "missing layer count: none of num_hidden_layers, n_layer, num_layers, n_layers is in the "
                "config or its text_config");
}

// The KV heads as vLLM counts them (ModelConfig.get_total_num_kv_heads): one for a multi-query
// model (unless a Falcon of the new decoder architecture), MPT and DBRX's attn_config, the
// first of n_head_kv, num_kv_heads, num_key_value_heads, ChatGLM's groups, else one per query head.
Result<Sourced> read_kv_heads(const Fields& f, const Sourced& query_heads, const std::string& model_type,
                              const Defaults& defaults) {
    const bool falcon =
        model_type == "falcon" || model_type == "RefinedWeb" || model_type == "RefinedWebModel";
    bool new_arch = false;
    if (falcon) {
        auto na = f.flag("new_decoder_architecture", false);
        if (!na) return na.forward_error();
        new_arch = *na;
        // vLLM's RWConfig: "Hack for falcon-40b".
        const json* h = f.find("hidden_size");
        if (model_type != "falcon" && !f.find("new_decoder_architecture") && h && *h == 8192) new_arch = true;
    }
    if (!new_arch) {
        auto mq = f.flag("multi_query", false);
        if (!mq) return mq.forward_error();
        if (*mq) return Sourced{1, format("{} true: one KV head", f.source("multi_query"))};
    }
    if (model_type == "dbrx" || model_type == "mpt") {
        const json* ac = f.find("attn_config");
        if (ac && !ac->is_object())
            return field_error(code::invalid_value, f.path("attn_config"), "must be an object, got {}",
                               described(*ac));
        if (ac) {
            Fields af(*ac, f.path("attn_config"));
            if (af.find("kv_n_heads")) return af.positive("kv_n_heads");
        }
        // DbrxConfig builds DbrxAttentionConfig() when attn_config is absent, so its default holds then too.
        if (const ClassDefault* d = defaults.row("attn_config.kv_n_heads")) {
            auto v = checked_integer(*parse_json_text(d->value), f.path("attn_config.kv_n_heads"), false);
            if (!v) return v.forward_error();
            return Sourced{*v, format("{} {} (default of {}: {})", f.path("attn_config.kv_n_heads"), d->value,
                                      d->config_class, d->meaning)};
        }
    }
    const char* name = f.first_of({"n_head_kv", "num_kv_heads", "num_key_value_heads"});
    if (name) return f.positive(name);
    if (f.find("multi_query_group_num")) {
        auto mqa = f.flag("multi_query_attention", false);
        if (!mqa) return mqa.forward_error();
        if (*mqa) return f.positive("multi_query_group_num");
    }
    return Sourced{query_heads.value,
                   format("{} (no KV-head field: one KV head per query head)", query_heads.source)};
}

// The architecture vLLM would load, and the fields that change the cache in ways kvcalc does
// not model: refused by name. An architecture vLLM's registry does not have is read as a
// standard decoder, and the model says so.
Result<bool> check_architecture(const json& root, const Fields& f, const Fields& top,
                                const std::string& model_type, ModelSpec& m) {
    std::string arch;
    if (const json* a = top.find("architectures"); a && a->is_array() && !a->empty() && (*a)[0].is_string())
        arch = (*a)[0].get<std::string>();
    const Architecture* known = arch.empty() ? nullptr : find_architecture(arch);
    if (known && family_of(*known).support == Support::refused)
        return fail(code::unsupported, "architectures", "{} is not sized by kvcalc: {}", arch,
                    family_of(*known).caches);
    if (known) m.family = known->family;
    // Without a known architecture, a model_type that names a refused family (deepseek_v4) is that
    // family's config: refused as the family is, never read as a standard decoder.
    if (!known)
        for (const Family& fam : family_table())
            if (fam.support == Support::refused && model_type == fam.name)
                return fail(code::unsupported, "model_type", "model_type {} is not sized by kvcalc: {}",
                            model_type, fam.caches);
    // transformers' config.json of Voxtral Realtime (VoxtralRealtimeForConditionalGeneration, model_type
    // voxtral_realtime): vLLM's registry does not have it, and get_config (transformers_utils/config.py,
    // config_format auto) reads a Mistral repository's params.json instead, through mistral.py
    // adapt_config_dict, as VoxtralRealtimeGeneration. Read as a decoder it would lose the encoder's cache.
    const json* root_type = member(root, "model_type");
    if (!known && (arch == "VoxtralRealtimeForConditionalGeneration" ||
                   (root_type && *root_type == "voxtral_realtime")))
        return fail(
            code::unsupported, arch.empty() ? "model_type" : "architectures",
            "{} is transformers' config of Voxtral Realtime, which vLLM does not read: it serves the "
            "checkpoint from params.json (config_format mistral: mistral.py adapt_config_dict) as "
            "VoxtralRealtimeGeneration, whose audio_config names the encoder's cache (encoder_layers, "
            "encoder_attention_heads, encoder_head_dim, sliding_window, block_pool_size); kvcalc sizes "
            "that config and does not map this one's fields onto it",
            arch.empty() ? "model_type voxtral_realtime" : arch);
    // The Step vision wrappers: vLLM's step3_vl.py, step_vl.py and step3p7.py build
    // init_vllm_registered_model(hf_config=config.text_config), the architecture text_config.architectures
    // names.
    if (m.family == "step3_vl") {
        const json* ta = member(f.object(), "architectures");
        if (!ta || !ta->is_array() || ta->empty() || !(*ta)[0].is_string())
            return fail(
                code::missing_field, f.path("architectures"),
                "{}: missing: vLLM's {} builds the text model it names, and kvcalc does not guess one",
                f.path("architectures"), arch);
        const std::string name = (*ta)[0].get<std::string>();
        const Architecture* inner = find_architecture(name);
        if (!inner || inner->text_config[0] != '\0' || family_of(*inner).support == Support::refused)
            return fail(code::unsupported, f.path("architectures"),
                        "{}: {} is not a text model kvcalc sizes{}{}", f.path("architectures"), name,
                        inner ? ": " : "",
                        inner ? (inner->text_config[0] ? "a wrapper" : family_of(*inner).caches) : "");
        m.family = inner->family;
    }
    std::string fields, whys;
    for (const UnmodelledField& u : unmodelled_fields()) {
        if (u.read_by && m.family == u.read_by) continue;
        // The encoder-decoders kvcalc sizes (encoder_decoder(): Whisper, FireRedLID, Cohere ASR, Nemotron
        // Parse) model the cross-attention that is_encoder_decoder true announces; their published configs
        // say so.
        if (std::string_view(u.field) == "is_encoder_decoder" && encoder_decoder(m.family)) continue;
        for (const Fields* src : {&f, &top}) {
            const json* v = src->find(u.field);
            if (!v || (u.unless && *v == *parse_json_text(u.unless))) continue;
            format_to(fields, fields.empty() ? "{}" : ", {}", src->path(u.field));
            format_to(whys, whys.empty() ? "{}" : "; {}", u.why);
            break;
        }
    }
    if (!fields.empty())
        return fail(code::unsupported, fields,
                    "{}{}: {} change the cache in ways kvcalc does not model ({}); it "
                    "refuses to guess",
                    arch.empty() ? "this config" : arch,
                    model_type.empty() ? "" : format(" ({})", model_type), fields, whys);
    if (!known)
        m.warnings.push_back(
            {arch.empty() ? "model_type" : "architectures",
             format("{} is not an architecture kvcalc knows from vLLM's registry: it was read as a standard "
                    "decoder (the fields it has, the defaults of none)",
                    arch.empty()
                        ? (model_type.empty() ? std::string("a config without architectures or model_type")
                                              : format("model_type {}", model_type))
                        : arch)});
    return true;
}

Result<Sourced> read_head_dim(const Fields& f, const Sourced& query_heads, const Sourced& hidden) {
    const char* name = f.first_of({"head_dim", "kv_channels", "attention_head_dim"});
    if (name) return f.positive(name);
    if (hidden.value == 0)
        return f.error(code::missing_field, "head_dim",
                       "missing, and there is no hidden_size to derive it from");
    if (hidden.value % query_heads.value != 0)
        return fail(code::inconsistent, hidden.source,
                    "{} {} is not divisible by {} {}, and there is no head_dim", hidden.source, hidden.value,
                    query_heads.source, query_heads.value);
    return Sourced{hidden.value / query_heads.value, format("{} {} / {} {}", hidden.source, hidden.value,
                                                            query_heads.source, query_heads.value)};
}

Result<unsigned> dtype_bits(const std::string& dtype, const std::string& field) {
    static const std::pair<const char*, unsigned> known[] = {
        {"bfloat16", 16}, {"float16", 16}, {"bf16", 16}, {"fp16", 16},
        {"half", 16},     {"float32", 32}, {"fp32", 32}, {"float", 32}};
    for (auto [n, b] : known)
        if (dtype == n) return b;
    return field_error(code::invalid_value, field,
                       "unknown dtype \"{}\" (expected bfloat16, float16 or float32)", dtype);
}

void name_model(ModelSpec& m, const json& root) {
    Fields top(root, "");
    if (const json* n = top.find("_name_or_path");
        n && n->is_string() && !is_number_marker(*n) && !n->get<std::string>().empty()) {
        m.name = n->get<std::string>();
        m.name_source = "_name_or_path";
    } else if (const json* a = top.find("architectures");
               a && a->is_array() && !a->empty() && (*a)[0].is_string() && !is_number_marker((*a)[0])) {
        m.name = (*a)[0].get<std::string>();
        m.name_source = "architectures[0]";
    } else if (const json* t = top.find("model_type"); t && t->is_string() && !is_number_marker(*t)) {
        m.name = t->get<std::string>();
        m.name_source = "model_type";
    } else {
        m.name = "unnamed model";
        m.name_source = "";
    }
}

}  // namespace

Result<ModelSpec> read_model(json config) {
    auto owned = std::make_shared<const json>(std::move(config));
    const json& root = *owned;
    // A GGUF's metadata document (the GGUF reader's): its layers by llama.cpp's rules.
    if (is_gguf_document(root)) return read_gguf_model(std::move(owned));
    auto tm = find_text_model(root);
    if (!tm) return tm.forward_error();
    const json& text = *tm->object;
    const TextClass tc = text_class(text, tm->path, root);
    const std::string& model_type = tc.model_type;
    const Defaults defaults = defaults_for(model_type, tc.via);
    Fields f(text, tm->path, &defaults);
    Fields top(root, "");

    ModelSpec m;
    m.text_path = tm->path;
    m.model_type = model_type;
    name_model(m, root);
    auto arch = check_architecture(root, f, top, model_type, m);
    if (!arch) return arch.forward_error();

    // HRM-Text: vLLM builds two stacks (L and H) of num_layers_per_stack decoder layers each (hrm_text.py
    // HrmTextStack); num_hidden_layers is not read.
    // Encoder-decoders: vLLM builds the decoder's layers of its heads of width // heads (whisper.py
    // WhisperAttention, fireredlid.py FireRedLIDAttention, cohere_asr.py CohereASRAttention,
    // nemotron_parse.py BartDecoderLayer's WhisperAttention), each field its own or vLLM's getattr default
    // (Whisper's, Cohere ASR's and Nemotron Parse's have none: no config class's default is taken);
    // num_hidden_layers and the encoder's are not read.
    const EncoderDecoder* encdec = encoder_decoder(m.family);
    const auto encdec_field = [&](const char* name, std::uint64_t dflt) -> Result<Sourced> {
        if (f.find(name)) return f.positive(name);
        if (dflt) return Sourced{dflt, format("{} {} (vLLM's {} default)", name, dflt, encdec->vllm)};
        return f.error(code::missing_field, name,
                       "missing (vLLM's {} reads it; the config class's default is not taken)", encdec->vllm);
    };
    const char* layer_field = m.family == "hrm_text" ? "num_layers_per_stack"
                              : encdec               ? encdec->layers
                                                     : f.first_of(layer_aliases);
    if (!layer_field)  // num_layers_per_stack outside HRM-Text
        return f.error(code::missing_field, "num_hidden_layers",
                       "missing (num_layers_per_stack counts layers of HRM-Text only)");
    auto layers = encdec ? encdec_field(encdec->layers, encdec->layers_default) : f.positive(layer_field);
    if (!layers) return layers.forward_error();
    if (m.family == "hrm_text")
        layers = Sourced{2 * layers->value,
                         format("2 x {} {} (HRM-Text's L and H stacks)", layers->source, layers->value)};
    if (layers->value > ModelSpec::max_layers)
        return field_error(code::invalid_value, layers->source,
                           "{} layers is beyond any real model (at most {})", layers->value,
                           ModelSpec::max_layers);
    m.num_layers = *layers;

    // Mamba models have no attention: no heads to read.
    const bool attention_free =
        model_type == "mamba" || model_type == "falcon_mamba" || model_type == "mamba2";
    // Moondream3TextConfig reads n_heads, n_kv_heads and dim (moondream3.py Moondream3Attention: head_dim =
    // dim // n_heads), with defaults (32, 32, 2048) kvcalc does not take.
    const bool moondream = m.family == "moondream3";
    if (moondream)
        for (const char* need : {"n_heads", "n_kv_heads", "dim"})
            if (!f.find(need))
                return f.error(
                    code::missing_field, need,
                    "missing (vLLM's Moondream3 attention reads it; its class default is not taken)");
    const char* qname = moondream ? "n_heads"
                        : encdec  ? encdec->heads
                                  : f.first_of({"num_attention_heads", "n_head", "num_heads", "n_heads"});
    if (!qname && !attention_free)
        return f.error(code::missing_field, "num_attention_heads",
                       "missing (also looked for n_head, num_heads, n_heads)");
    if (qname) {
        auto qh = encdec ? encdec_field(encdec->heads, encdec->heads_default) : f.positive(qname);
        if (!qh) return qh.forward_error();
        m.query_heads = *qh;
    }

    const char* hname = moondream ? "dim"
                        : encdec  ? encdec->width
                                  : f.first_of({"hidden_size", "n_embd", "d_model"});
    if (hname) {
        auto h = encdec ? encdec_field(encdec->width, encdec->width_default) : f.positive(hname);
        if (!h) return h.forward_error();
        m.hidden_size = *h;
    }

    Sourced kv, hd;
    if (!attention_free) {
        // Step-3: vLLM step3_text.py Step3TextDecoderLayer builds Step3TextAttention with num_kv_heads=1,
        // whatever num_attention_groups says.
        // HRM-Text: hrm_text.py HrmTextAttention keeps num_attention_heads KV heads (MHA), whatever
        // num_key_value_heads says.
        auto k = m.family == "step3_text"
                     ? Result<Sourced>(Sourced{1, "1 (vLLM's Step3TextDecoderLayer passes num_kv_heads=1)"})
                 : m.family == "hrm_text" || encdec
                     ? Result<Sourced>(Sourced{m.query_heads.value,
                                               format("{} (vLLM's {} attention is MHA)", m.query_heads.source,
                                                      encdec ? encdec->vllm : "HRM-Text")})
                 : m.family == "step3p5" ? f.positive("num_attention_groups")
                 : moondream             ? f.positive("n_kv_heads")
                                         : read_kv_heads(f, m.query_heads, model_type, defaults);
        if (!k) return k.forward_error();
        // Step-3.5: step3p5.py Step3p5DecoderLayer passes num_kv_heads=num_attention_groups, whatever
        // num_key_value_heads says, and Step3p5Model.load_weights asserts it is above 1 ("Only support GQA").
        if (m.family == "step3p5" && k->value < 2)
            return f.error(code::unsupported, "num_attention_groups",
                           "1: vLLM's Step-3.5 loads only grouped-query attention (it asserts above 1)");
        if (k->value > m.query_heads.value || m.query_heads.value % k->value != 0)
            return fail(code::inconsistent, k->source, "{} {} does not divide {} {}", k->source, k->value,
                        m.query_heads.source, m.query_heads.value);
        // PLaMo2: plamo2.py Plamo2AttentionMixer keeps hidden_size_per_head per head, and Plamo2ForCausalLM
        // sets config.head_dim to it for the page sizes (ModelConfig.get_head_size).
        // Moondream3: dim / n_heads whatever head_dim says (Moondream3Attention); a dim n_heads does not
        // divide is not floored.
        // Whisper: WhisperAttention keeps d_model // heads per head and raises when heads do not divide
        // d_model; FireRedLIDAttention keeps d_model // n_head with d_model-wide projections, which a
        // remainder would not fit: not floored.
        const bool head_from_hidden = moondream || encdec;
        if (head_from_hidden && m.hidden_size.value % m.query_heads.value != 0)
            return fail(code::inconsistent, m.hidden_size.source, "{} {} is not divisible by {} {}",
                        m.hidden_size.source, m.hidden_size.value, m.query_heads.source, m.query_heads.value);
        auto h =
            m.family == "plamo2" ? f.positive("hidden_size_per_head")
            : head_from_hidden
                ? Result<Sourced>(Sourced{m.hidden_size.value / m.query_heads.value,
                                          format("{} {} / {} {}", m.hidden_size.source, m.hidden_size.value,
                                                 m.query_heads.source, m.query_heads.value)})
                : read_head_dim(f, m.query_heads, m.hidden_size);
        if (!h) return h.forward_error();
        kv = *k;
        hd = *h;
    }

    // dtype: the text model's, else the root's.
    for (const Fields* src : {&f, &top}) {
        const char* dn = src->first_of({"torch_dtype", "dtype"});
        if (!dn) continue;
        auto d = src->text(dn);
        if (!d) return d.forward_error();
        auto bits = dtype_bits(*d, src->path(dn));
        if (!bits) return bits.forward_error();
        m.dtype = *d;
        m.dtype_source = src->path(dn);
        m.model_dtype_bits = *bits;
        break;
    }

    // A checkpoint whose quantization_config declares a KV-cache scheme serves fp8 KV.
    for (const Fields* src : {&f, &top}) {
        const json* q = src->find("quantization_config");
        if (!q || !q->is_object()) continue;
        Fields qf(*q, src->path("quantization_config"));
        if (qf.find("kv_cache_quant_algo") || qf.find("kv_cache_scheme")) {
            const char* n = qf.find("kv_cache_quant_algo") ? "kv_cache_quant_algo" : "kv_cache_scheme";
            m.kv_quant = "fp8";
            m.kv_quant_source = qf.path(n);
        }
        break;
    }
    // fp8 weights: vLLM refuses an fp8_e5m2 cache with them ("fp8_e5m2 kv-cache is not supported with
    // fp8 checkpoints"), which the sizing says.
    for (const Fields* src : {&f, &top}) {
        const json* q = src->find("quantization_config");
        const json* method = q ? member(*q, "quant_method") : nullptr;
        if (method && *method == "fp8") m.fp8_weights = true;
    }

    // ModelConfig's max length: the first of these keys on vLLM's text config
    // (model_arch_config_convertor.py ModelArchConfigConvertorBase.derive_max_model_len_and_key); with
    // none, config/model.py _get_and_verify_max_len assumes 2048 unless --max-model-len is given, where
    // kvcalc gives no default context and says where it looked. Without one in the text config, kvcalc
    // looks at the root for the keys of root_keys.
    static constexpr std::initializer_list<const char*> length_keys = {
        "max_position_embeddings", "n_positions",          "seq_length",
        "max_sequence_length",     "model_max_length",     "max_seq_len",
        "max_seq_length",          "max_target_positions", "seq_len"};
    static constexpr std::initializer_list<const char*> root_length_keys = {"max_position_embeddings",
                                                                            "model_max_length"};
    // Moondream3TextConfig sets max_position_embeddings to max_context.
    static constexpr std::initializer_list<const char*> moondream_keys = {"max_context"};
    // Nemotron Parse: the model's own config class (hf_nemotron_parse_config.py NemotronParseConfig, loaded
    // with its remote code; nemotron_parse.py reads config.decoder from it) copies the root's
    // max_sequence_length into decoder.max_sequence_length, so vLLM finds the root's value on the root and
    // the decoder alike, after the three keys its search tries first. The class's default (9000) is not
    // taken, as the decoder's are not: without the root key, no default context.
    const bool parse = m.family == "nemotron_parse";
    static constexpr std::initializer_list<const char*> parse_keys = {"max_position_embeddings",
                                                                      "n_positions", "seq_length"};
    static constexpr std::initializer_list<const char*> parse_root_keys = {"max_sequence_length"};
    // Cohere ASR: vLLM registers a bare CohereASRConfig (transformers_utils/configs/cohere_asr.py 5e8f576),
    // so the keys are looked for on the root; cohere_asr.py reads transf_decoder.config_dict's
    // max_sequence_length only for its positional table.
    const Fields& lf = m.family == "cohere_asr" ? top : f;
    const std::initializer_list<const char*> text_keys = moondream ? moondream_keys
                                                         : parse   ? parse_keys
                                                                   : length_keys;
    const std::initializer_list<const char*> root_keys = parse ? parse_root_keys : root_length_keys;
    const char* cname = lf.first_of(text_keys);
    const Fields* cf = &lf;
    if (!cname) {
        cname = top.first_of(root_keys);
        cf = &top;
    }
    if (cname) {
        auto c = cf->positive(cname);
        if (!c) return c.forward_error();
        m.max_context = *c;
    }

    // Step-3.5: ModelConfig's max length is the least of the length fields the config class has
    // (_get_and_verify_max_len), and vLLM's Step3p5Config always has max_seq_len (default 4096). Which class
    // builds Step-3.7's text_config (the wrapper's remote config) was not read: there, no default.
    if (m.family == "step3p5" && !f.find("max_seq_len")) {
        if (m.text_path.empty()) {
            const Sourced dflt{4096, "max_seq_len 4096 (default of Step3p5Config (vLLM))"};
            if (!m.max_context.value || m.max_context.value > dflt.value) m.max_context = dflt;
        } else if (m.max_context.value) {
            m.max_context = {};
            m.warnings.push_back(
                {f.path("max_seq_len"),
                 "missing: vLLM's max length is the least of max_position_embeddings and max_seq_len, and "
                 "which default the wrapper's text config class gives max_seq_len was not read; give a "
                 "context"});
        }
    } else if (m.family == "step3p5" && m.max_context.source != f.path("max_seq_len")) {
        auto s = f.positive("max_seq_len");
        if (!s) return s.forward_error();
        if (!m.max_context.value || s->value < m.max_context.value) m.max_context = *s;
    }
    if (!m.max_context.value) {  // where the message "no max context" says kvcalc looked
        const auto listed = [](std::initializer_list<const char*> keys) {
            std::string text;
            for (const char* k : keys)
                text += format("{}{}", text.empty() ? "" : ", ", k);
            return text;
        };
        m.max_context.source = lf.prefix().empty()
                                   ? format("looked for {} at the config's root", listed(text_keys))
                                   : format("looked for {} in {}, and {} at the config's root",
                                            listed(text_keys), lf.prefix(), listed(root_keys));
        // What vLLM does then (_get_and_verify_max_len), said, not assumed.
        m.max_context.source += "; vLLM would assume 2048 tokens unless --max-model-len is given";
    }

    auto plan = build_layer_plan(f, m, kv, hd);
    if (!plan) return plan.forward_error();

    if (m.dtype.empty())
        m.warnings.push_back({f.path("torch_dtype"),
                              "no torch_dtype or dtype in the config: KV is sized at 2 bytes per "
                              "element, as engines serve such checkpoints in 16-bit"});
    else if (m.model_dtype_bits == 32)
        m.warnings.push_back({m.dtype_source, format("{} checkpoint: KV is sized at 2 bytes per element, as "
                                                     "engines serve float32 checkpoints in 16-bit",
                                                     m.dtype)});
    m.config = std::move(owned);
    m.text = &text;
    if (m.family == "voxtral_realtime") {
        auto enc = add_causal_encoder(m);
        if (!enc) return enc.forward_error();
    }
    return m;
}

Result<ModelSpec> read_model_text(std::string_view text) {
    auto parsed = parse_json_text(text);
    if (!parsed) return parsed.forward_error();
    return read_model(std::move(parsed.value()));
}

std::uint32_t ModelSpec::count(LayerKind kind) const {
    std::uint32_t n = 0;
    for (const auto& g : groups)
        if (g.kind == kind) n += g.count;
    return n;
}

const char* layer_kind_name(LayerKind kind) {
    switch (kind) {
        case LayerKind::full_attention:
            return "full_attention";
        case LayerKind::mla:
            return "mla";
        case LayerKind::sliding_window:
            return "sliding_window";
        case LayerKind::chunked_local:
            return "chunked_local";
        case LayerKind::linear_state:
            return "linear_state";
        case LayerKind::no_cache:
            return "no_cache";
    }
    return "unknown";
}

}  // namespace kvcalc
