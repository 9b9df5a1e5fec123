// What kvcalc knows of the architectures vLLM serves, as data: the inventory (every text
// architecture of vLLM's registry, and the multimodal wrappers around a text model, each
// sized exactly or refused by name), the defaults of the transformers (or vLLM) config class
// of each model_type that change the cache when a field is absent, and the fields that
// change the cache in ways kvcalc does not model. The reader (config_reader.cpp) and the
// site's Architectures page read them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/json_fwd.hpp"

namespace kvcalc {

enum class Support { exact, refused };

// A family: the architectures of one vLLM model file (or of one kind of wrapper), and what
// kvcalc does with them.
struct Family {
    const char* name;  // "jamba"
    Support support;
    // exact: what each layer caches; refused: what kvcalc does not model. In family_table(), an exact
    // family's is "" (architectures_json() has it): only the refusal messages read it there.
    const char* caches;
    // refused, optionally: the sources and arithmetic behind the reason, which the inventory prints
    // after it and the refusal message leaves out (family_table() has none).
    const char* detail = nullptr;
};

struct Architecture {
    const char* name;         // the class in config.json's architectures: "JambaForCausalLM"
    const char* family;       // a Family's name
    const char* text_config;  // where a multimodal wrapper keeps its text model, or ""
    bool removed;             // removed from vLLM main in 2026 (served by earlier releases)
};

const std::vector<Family>& family_table();
const std::vector<Architecture>& architecture_table();
const Architecture* find_architecture(std::string_view name);
const Family& family_of(const Architecture& a);
// What family `name` caches (refused: why, and its detail), in full, as `kvcalc architectures` lists
// it; "" for a family the inventory does not have.
std::string family_caches(std::string_view name);

// An encoder-decoder vLLM serves: its decoder's fields (each decoder layer a self-attention and a
// cross-attention of `heads` KV heads of width / heads), in the object vLLM reads them from, and vLLM's
// getattr default for each (0: none, the field is required).
struct EncoderDecoder {
    const char* family;
    const char* layers;
    const char* heads;
    const char* width;
    std::uint64_t layers_default, heads_default, width_default;
    const char* vllm;  // where vLLM builds the decoder
    const char* path;  // the object holding the three fields: "" the config's root, else a dotted path
};
const EncoderDecoder* encoder_decoder(std::string_view family);  // nullptr for other families

// A default of a config class, used when the field is absent from the config (a null
// field is the config's own "none"). `value` is JSON text, or nullptr where the class derives
// the field when it is absent or None (`meaning` says from what): the reader's own derivation
// of that field (KV heads = query heads, head_dim = hidden_size / heads) is the class's, and
// the defaults test checks that it is.
struct ClassDefault {
    const char* model_type;
    const char* config_class;
    const char* field;
    const char* value;
    const char* meaning;  // what the default does, for the provenance ("every other layer slides")
    // Where it was read ("transformers configuration_llama.py 008e574"); "" in the reader's table
    // (class_defaults()), which the wasm carries: class_default_table() has it.
    const char* source = "";
};

// The defaults of the config class of `model_type` that the reader consults (none for a type kvcalc has no
// defaults of), without their sources: a derived KV-head or head-size row, the reader's own derivation, is in
// class_default_table() only.
std::vector<ClassDefault> class_defaults(std::string_view model_type);
// Every default with its source, as `kvcalc architectures` lists them.
const std::vector<ClassDefault>& class_default_table();

// The text model class a multimodal wrapper's config class builds when its text_config names no
// model_type (LlavaConfig: CONFIG_MAPPING["llama"]) or whatever it names (Gemma3Config: Gemma3TextConfig), so
// the defaults of that class fill the text model's missing fields.
struct WrapperText {
    const char* wrapper;        // the wrapper's model_type: "llava"
    const char* wrapper_class;  // "LlavaConfig"
    const char* text_type;      // the model_type of the class it builds: "llama"
    // The wrapper builds that class from the root's own fields when there is no text_config (Qwen2VLConfig:
    // Qwen2VLTextConfig(**kwargs)), so a config that keeps them at its root takes its defaults too.
    bool from_root;
    // Where it was read; "" in the reader's copy (wrapper_text()), which the wasm carries.
    const char* source = "";
};
// The row of a wrapper's model_type, without its source, or nullptr.
const WrapperText* wrapper_text(std::string_view wrapper_model_type);
// Every row with its source, as `kvcalc architectures` lists them.
const std::vector<WrapperText>& wrapper_text_table();

// A field that changes the cache in a way kvcalc does not model: a config that has it (with
// a value other than `unless`, JSON text, when given) is refused, naming the field.
struct UnmodelledField {
    const char* field;
    const char* unless;  // a value that means the feature is off ("false"), or nullptr
    const char* why;
    const char* read_by = nullptr;  // the one family whose reader models the field, or nullptr
};
const std::vector<UnmodelledField>& unmodelled_fields();

// The inventory, defaults and unmodelled fields as JSON, for `kvcalc architectures --json`
// and the site's Architectures page.
json architectures_json();

}  // namespace kvcalc
