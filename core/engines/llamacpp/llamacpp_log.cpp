#include "engines/llamacpp/llamacpp_log.hpp"

#include <algorithm>
#include <array>

#include "check/log_scan.hpp"
#include "sizing/checked.hpp"

namespace kvcalc {

using namespace scan;  // NOLINT: the scanner's vocabulary, throughout

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
    std::size_t a = skip_spaces(s, 0), b = s.size();
    while (b > a && is_blank(s[b - 1]))
        --b;
    return s.substr(a, b - a);
}

bool starts_with(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

// llama.cpp's "%7.2f MiB" at `pos` (spaces first), to its printed precision. Builds of 2023 print
// "MB" for the same division by 2^20. `end` is set past the unit.
std::optional<LogMemory> read_mib(std::string_view s, std::size_t pos, int line, std::size_t* end = nullptr) {
    auto d = read_decimal(s, skip_spaces(s, pos));
    if (!d) return std::nullopt;
    const std::size_t u = skip_spaces(s, d->end);
    const std::string_view rest = s.substr(u);
    const char* unit = starts_with(rest, "MiB") ? "MiB" : starts_with(rest, "MB") ? "MB" : nullptr;
    if (!unit) return std::nullopt;
    if (end) *end = u + std::string_view(unit).size();
    return memory_range(*d, unit, line, 20, 0);
}

// Ollama's format.HumanBytes2 (format/bytes.go): "%.1f GiB|MiB|KiB" of the binary unit, or "%d B".
std::optional<LogMemory> read_human_bytes(std::string_view s, std::size_t pos, int line) {
    auto d = read_decimal(s, skip_spaces(s, pos));
    if (!d) return std::nullopt;
    const std::string_view rest = s.substr(skip_spaces(s, d->end));
    static constexpr std::array<std::pair<const char*, unsigned>, 4> units{
        {{"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}};
    for (const auto& [unit, shift] : units)
        if (starts_with(rest, unit) &&
            (rest.size() == std::string_view(unit).size() || !is_word(rest[std::string_view(unit).size()])))
            return memory_range(*d, unit, line, shift, 0);
    return std::nullopt;
}

// After `key` and the spaces and '=' or ':' that follow it, the value's word ("f16", "true").
std::string word_after(std::string_view s, std::size_t pos) {
    while (pos < s.size() && (is_blank(s[pos]) || s[pos] == '=' || s[pos] == ':' || s[pos] == '\''))
        ++pos;
    std::size_t e = pos;
    while (e < s.size() && (is_word(s[e]) || s[e] == '.' || s[e] == '-'))
        ++e;
    return std::string(s.substr(pos, e - pos));
}

std::optional<std::uint64_t> uint_after(std::string_view s, std::size_t pos, std::size_t* end = nullptr) {
    while (pos < s.size() && (is_blank(s[pos]) || s[pos] == '=' || s[pos] == ':' || s[pos] == '(' ||
                              s[pos] == '\'' || s[pos] == '"'))
        ++pos;
    return read_count(s, pos, end);
}

// Where `phrase` starts a word in `s` (not inside "attn_n_ctx" or "gguf_init"), or npos.
std::size_t find_word(std::string_view s, std::string_view phrase, std::size_t from = 0) {
    for (std::size_t at = s.find(phrase, from); at != npos; at = s.find(phrase, at + 1))
        if (at == 0 || !(is_word(s[at - 1]) || s[at - 1] == '.' || s[at - 1] == '/' || s[at - 1] == '-'))
            return at;
    return npos;
}

// The functions whose lines the reader reads, as printed before the colon (the C++ __func__,
// which for a constructor is the class name; LLAMACPP.md 2.1).
enum class Fn {
    context,    // llama_context, llama_new_context_with_model, llama_init_from_model
    kv_self,    // llama_context_kv_self (a b4799 branch build)
    kv,         // llama_kv_cache, llama_kv_cache_unified, llama_kv_cache_init, init
    iswa,       // llama_kv_cache_iswa, llama_kv_cache_unified_iswa
    recurrent,  // llama_memory_recurrent, llama_kv_cache_recurrent
    loader,     // llama_model_loader
    info,       // print_info, llm_load_print_meta
};
struct Function {
    const char* name;
    Fn fn;
};
constexpr std::array<Function, 14> functions{{
    {"llama_context", Fn::context},
    {"llama_new_context_with_model", Fn::context},
    {"llama_init_from_model", Fn::context},
    {"llama_context_kv_self", Fn::kv_self},
    {"llama_kv_cache", Fn::kv},
    {"llama_kv_cache_unified", Fn::kv},
    {"llama_kv_cache_init", Fn::kv},
    {"init", Fn::kv},
    {"llama_kv_cache_iswa", Fn::iswa},
    {"llama_kv_cache_unified_iswa", Fn::iswa},
    {"llama_memory_recurrent", Fn::recurrent},
    {"llama_kv_cache_recurrent", Fn::recurrent},
    {"llama_model_loader", Fn::loader},
    {"print_info", Fn::info},
}};
constexpr Function llm_load_print_meta{"llm_load_print_meta", Fn::info};

struct Token {
    std::size_t at = 0, rest = 0;  // where the name starts, and where the text after its colon does
    const Function* f = nullptr;
};

// Every "name:" of a known function in the line, in order: a paste that joined two lines holds
// two, and each is read on its own.
std::vector<Token> tokens_of(std::string_view line) {
    std::vector<Token> out;
    auto look = [&](const Function& f) {
        const std::string_view name = f.name;
        for (std::size_t at = find_word(line, name); at != npos; at = find_word(line, name, at + 1)) {
            const std::size_t colon = at + name.size();
            if (colon < line.size() && line[colon] == ':') out.push_back({at, colon + 1, &f});
        }
    };
    for (const Function& f : functions)
        look(f);
    look(llm_load_print_meta);
    std::sort(out.begin(), out.end(), [](const Token& a, const Token& b) { return a.at < b.at; });
    return out;
}

const char* looked_for =
    "llama.cpp's \"llama_kv_cache: size = X MiB (N cells, L layers, S/T seqs), K (f16): ...\" (and "
    "\"llama_kv_cache_unified:\", \"llama_kv_cache_iswa: creating ... KV cache, size = N cells\", "
    "\"llama_memory_recurrent: size = ...\"), the older \"KV self size  = X MiB\" and \"kv self size  = X "
    "MiB\" lines, \"kv_size = N, type_k = ...\", the per-device \"KV buffer size = X MiB\" lines, and "
    "Ollama's memory.required.kv=\"X GiB\" and msg=\"kv cache\" lines";

class Reader {
public:
    void line(std::string_view text, std::string_view next, int no);
    Result<LlamaLog> finish();

private:
    LlamaLog log_;
    LlamaRun run_;
    bool closed_ = false;  // the current run has stated a llama.cpp cache: a new start begins another
    bool ollama_ = false;  // Ollama's own lines seen
    bool lmstudio_ = false;
    bool mb_noted_ = false;
    int line_ = 0;
    std::string_view text_;

    void found(std::string what) {
        for (LogFinding& f : log_.understood)
            if (f.what == what) {
                ++f.repeats;
                return;
            }
        std::string_view t = trim(text_);
        log_.understood.push_back({line_, 0, std::move(what), std::string(t.substr(0, 240))});
    }
    void touch() {
        if (!run_.first_line) run_.first_line = line_;
        run_.last_line = line_;
    }
    // A line that starts a model load or a context: after a run that stated its cache, a new run.
    void begin() {
        if (!closed_) return;
        log_.runs.push_back(std::move(run_));
        run_ = LlamaRun{};
        closed_ = false;
    }
    void cache_line() {
        closed_ = true;
        touch();
    }

    void context(std::string_view rest, std::string_view fn);
    void kv(std::string_view rest, std::string_view fn, std::string_view next);
    void iswa(std::string_view rest);
    void recurrent(std::string_view rest, std::string_view fn, std::string_view next);
    void loader(std::string_view rest);
    void info(std::string_view rest);
    void summary(std::string_view rest, std::string_view fn, LlamaCacheKind kind, std::string_view next);
    void kv_self(std::string_view rest, std::string_view fn);
    void buffer(std::string_view rest, const char* label, bool recurrent);
    void anywhere(std::string_view s);
    void ollama(std::string_view s);
};

void Reader::context(std::string_view rest, std::string_view fn) {
    const std::string_view r = trim(rest);
    if (starts_with(r, "constructing llama_context")) {
        begin();
        touch();
        return;
    }
    if (r.find("KV self size") != npos || r.find("kv self size") != npos) return kv_self(r, fn);
    // "n_ctx_seq (8192) < n_ctx_train (262144) -- the full capacity of the model will not be utilized"
    if (const std::size_t p = r.find("n_ctx_train ("); p != npos) {
        if (auto n = read_count(r, p + 13)) {
            run_.n_ctx_train = LogCount{*n, line_};
            touch();
        }
        for (const char* key : {"n_ctx_seq (", "n_ctx_per_seq ("})
            if (starts_with(r, key) && !run_.n_ctx_seq)
                if (auto n = read_count(r, std::string_view(key).size()))
                    run_.n_ctx_seq = LogCount{*n, line_};
        return;
    }
    std::size_t e = 0;
    while (e < r.size() && is_word(r[e]))
        ++e;
    const std::string_view key = r.substr(0, e);
    const std::size_t eq = skip_spaces(r, e);
    if (eq >= r.size() || r[eq] != '=') return;
    auto count = [&](std::optional<LogCount>& slot, const char* said) {
        auto n = uint_after(r, eq);
        if (!n) return;
        slot = LogCount{*n, line_};
        touch();
        found(format("{} {} ({})", said, grouped(*n), fn));
    };
    if (key == "n_ctx" || key == "n_seq_max") {
        // A context block opens with n_seq_max (late 2024 on) or n_ctx: after a run that stated
        // its cache, it is a new start.
        begin();
        count(key == "n_ctx" ? run_.n_ctx : run_.n_seq_max,
              key == "n_ctx" ? "context n_ctx" : "context n_seq_max");
    } else if (key == "n_ctx_per_seq" || key == "n_ctx_seq") {
        count(run_.n_ctx_seq, "context n_ctx_seq");
    } else if (key == "n_batch") {
        count(run_.n_batch, "context n_batch");
    } else if (key == "n_ubatch") {
        count(run_.n_ubatch, "context n_ubatch");
    } else if (key == "flash_attn") {
        run_.flash_attn = word_after(r, eq);
        run_.flash_attn_line = line_;
        touch();
        found(format("context flash_attn = {} ({})", run_.flash_attn, fn));
    } else if (key == "kv_unified") {
        const std::string v = word_after(r, eq);
        if (v != "true" && v != "false") return;
        run_.kv_unified = v == "true";
        run_.kv_unified_line = line_;
        touch();
        found(format("context kv_unified = {} ({})", v, fn));
    }
}

// "KV self size  = 5120.00 MiB, K (f16): 2560.00 MiB, V (f16): 2560.00 MiB" and the 2023
// "kv self size  =  384.00 MiB" (total only): the one attention cache of builds before b5429.
void Reader::kv_self(std::string_view rest, std::string_view fn) {
    std::size_t p = rest.find("KV self size");
    if (p == npos) p = rest.find("kv self size");
    if (p == npos) return;
    const std::size_t eq = rest.find('=', p);
    if (eq == npos) return;
    std::size_t end = 0;
    auto total = read_mib(rest, eq + 1, line_, &end);
    if (!total) return;
    LlamaCacheLine c;
    c.function = std::string(fn);
    c.total = *total;
    c.line = line_;
    auto part = [&](std::string_view label, std::string& type, std::optional<LogMemory>& slot) {
        const std::size_t q = rest.find(label, end);
        if (q == npos) return;
        const std::size_t close = rest.find(')', q);
        if (close == npos || close - q > 24) return;
        type = std::string(rest.substr(q + label.size(), close - q - label.size()));
        if (close + 1 < rest.size() && rest[close + 1] == ':') slot = read_mib(rest, close + 2, line_);
    };
    part(" K (", c.type_k, c.k);
    part(" V (", c.type_v, c.v);
    run_.caches.push_back(c);
    cache_line();
    found(c.k ? format("{}: KV self size {} (K {} {}, V {} {})", fn, total->text, c.type_k, c.k->text,
                       c.type_v, c.v ? c.v->text : std::string("?"))
              : format("{}: kv self size {}", fn, total->text));
    if (total->text.find(" MB") != npos && !mb_noted_) {
        mb_noted_ = true;
        log_.notes.push_back(
            format("line {}: this build prints \"MB\" for MiB (it divides by 1024 x 1024)", line_));
    }
}

void Reader::buffer(std::string_view rest, const char* label, bool recurrent) {
    const std::size_t p = rest.find(label);
    if (p == npos) return;
    const std::size_t eq = rest.find('=', p);
    if (eq == npos) return;
    auto size = read_mib(rest, eq + 1, line_);
    if (!size) return;
    const std::string_view device = trim(rest.substr(0, p));
    if (device.empty() || device.size() > 40) return;
    run_.buffers.push_back({std::string(device), recurrent, *size, line_});
    cache_line();
    found(format("{} {} buffer: {}", device, recurrent ? "RS" : "KV", size->text));
}

// "size = 3072.00 MiB (131072 cells,  12 layers,  1/1 seqs), K (f16): 1536.00 MiB, V (f16): ..."
// with the parts each era prints (LLAMACPP.md 2.1); recurrent: "(1 cells, 32 layers, 1 seqs
// 0 rs_seq), R (f32): 2.25 MiB, S (f32): 48.00 MiB". A paste that wrapped the line after "),"
// carries the K and V part on the next line.
void Reader::summary(std::string_view rest, std::string_view fn, LlamaCacheKind kind, std::string_view next) {
    std::size_t end = 0;
    auto total = read_mib(rest, rest.find('=') + 1, line_, &end);
    if (!total) return;
    LlamaCacheLine c;
    c.kind = kind;
    c.function = std::string(fn);
    c.total = *total;
    c.line = line_;
    std::size_t after = end;
    const std::size_t open = skip_spaces(rest, end);
    if (open < rest.size() && rest[open] == '(') {
        const std::size_t close = rest.find(')', open);
        const std::string_view inside =
            rest.substr(open + 1, (close == npos ? rest.size() : close) - open - 1);
        after = close == npos ? rest.size() : close + 1;
        std::size_t from = 0;
        while (from <= inside.size()) {
            std::size_t comma = inside.find(',', from);
            if (comma == npos) comma = inside.size();
            const std::string_view part = trim(inside.substr(from, comma - from));
            std::size_t e = 0;
            if (auto n = read_count(part, 0, &e)) {
                std::size_t w = skip_spaces(part, e);
                const std::string_view unit = part.substr(w);
                if (starts_with(unit, "cell")) {
                    c.cells = LogCount{*n, line_};
                } else if (starts_with(unit, "layer")) {
                    c.layers = LogCount{*n, line_};
                } else if (!unit.empty() && unit[0] == '/') {  // "4/1 seqs", "2/ 1 seqs"
                    std::size_t e2 = 0;
                    auto streams = read_count(part, skip_spaces(part, w + 1), &e2);
                    if (streams && starts_with(part.substr(skip_spaces(part, e2)), "seq")) {
                        c.seqs = LogCount{*n, line_};
                        c.streams = LogCount{*streams, line_};
                    }
                } else if (starts_with(unit, "seq")) {  // "4 seqs", "2 seqs  0 rs_seq"
                    c.seqs = LogCount{*n, line_};
                    std::size_t s = unit.find_first_of(" \t");
                    if (s != npos) {
                        std::size_t e3 = 0;
                        const std::string_view tail = unit.substr(s);
                        auto rs = read_count(tail, skip_spaces(tail, 0), &e3);
                        if (rs && starts_with(tail.substr(skip_spaces(tail, e3)), "rs_seq"))
                            c.rs_seq = LogCount{*rs, line_};
                    }
                }
            }
            from = comma + 1;
        }
    }
    std::string_view tail = rest.substr(std::min(after, rest.size()));
    const char* first = kind == LlamaCacheKind::recurrent ? "R (" : "K (";
    const char* second = kind == LlamaCacheKind::recurrent ? "S (" : "V (";
    if (tail.find(first) == npos && starts_with(trim(next), first)) {
        tail = next;  // the paste wrapped the line: its second half is the next line
        log_.notes.push_back(
            format("line {}: the {} and {} figures are read from line {}, where the paste wrapped "
                   "the line",
                   line_, std::string_view(first, 1), std::string_view(second, 1), line_ + 1));
    }
    auto part = [&](std::string_view label, std::string& type, std::optional<LogMemory>& slot) {
        const std::size_t q = tail.find(label);
        if (q == npos || (q > 0 && is_word(tail[q - 1]))) return;
        const std::size_t close = tail.find(')', q);
        if (close == npos || close - q > 24) return;
        type = std::string(tail.substr(q + label.size(), close - q - label.size()));
        if (close + 1 < tail.size() && tail[close + 1] == ':') slot = read_mib(tail, close + 2, line_);
    };
    part(first, c.type_k, c.k);
    part(second, c.type_v, c.v);
    std::string what = format("{} {} cache: {}", fn, cache_kind_name(kind), total->text);
    if (c.cells) format_to(what, ", {} cells", grouped(c.cells->value));
    if (c.layers) format_to(what, ", {} layers", grouped(c.layers->value));
    if (c.seqs) format_to(what, ", {} seqs", grouped(c.seqs->value));
    if (c.streams) format_to(what, " in {} streams", grouped(c.streams->value));
    if (c.k) format_to(what, ", {} ({}) {}", std::string_view(first, 1), c.type_k, c.k->text);
    if (c.v) format_to(what, ", {} ({}) {}", std::string_view(second, 1), c.type_v, c.v->text);
    run_.caches.push_back(std::move(c));
    cache_line();
    found(std::move(what));
}

void Reader::kv(std::string_view rest, std::string_view fn, std::string_view next) {
    const std::string_view r = trim(rest);
    if (starts_with(r, "size =") || starts_with(r, "size=")) {
        // Inside an iSWA cache the next summary is the SWA half when its creation line came last.
        LlamaCacheKind kind = LlamaCacheKind::attention;
        if (run_.swa_cells && run_.swa_cells->line > (run_.non_swa_cells ? run_.non_swa_cells->line : 0))
            kind = LlamaCacheKind::swa;
        else if (run_.non_swa_cells)
            kind = LlamaCacheKind::non_swa;
        for (const LlamaCacheLine& c : run_.caches)  // each creation line announces one summary
            if ((kind == LlamaCacheKind::swa && c.kind == kind && c.line > run_.swa_cells->line) ||
                (kind == LlamaCacheKind::non_swa && c.kind == kind && c.line > run_.non_swa_cells->line))
                kind = LlamaCacheKind::attention;
        return summary(r, fn, kind, next);
    }
    if (r.find("KV self size") != npos || r.find("kv self size") != npos) return kv_self(r, fn);
    if (r.find("KV buffer size") != npos) return buffer(r, "KV buffer size", false);
    if (starts_with(r, "VRAM kv self")) {  // CUDA builds of 2023-24: "VRAM kv self = 162.50 MB"
        const std::size_t eq = r.find('=');
        auto size = eq == npos ? std::nullopt : read_mib(r, eq + 1, line_);
        if (!size) return;
        run_.buffers.push_back({"VRAM", false, *size, line_});
        cache_line();
        found(format("VRAM KV buffer: {}", size->text));
        return;
    }
    if (starts_with(r, "kv_size")) {  // "kv_size = 16352, offload = 1, type_k = 'f16', ..., padding = 32"
        auto n = uint_after(r, 7);
        if (!n) return;
        run_.kv_size = LogCount{*n, line_};
        if (const std::size_t p = find_word(r, "n_layer"); p != npos)
            if (auto l = uint_after(r, p + 7)) run_.kv_size_layers = LogCount{*l, line_};
        if (const std::size_t p = find_word(r, "padding"); p != npos)
            if (auto l = uint_after(r, p + 7)) run_.padding = LogCount{*l, line_};
        if (const std::size_t p = find_word(r, "type_k"); p != npos) run_.init_type_k = word_after(r, p + 6);
        if (const std::size_t p = find_word(r, "type_v"); p != npos) run_.init_type_v = word_after(r, p + 6);
        cache_line();
        std::string what = format("{}: kv_size {}", fn, grouped(*n));
        if (!run_.init_type_k.empty())
            format_to(what, ", type_k {}, type_v {}", run_.init_type_k, run_.init_type_v);
        if (run_.kv_size_layers) format_to(what, ", {} layers", grouped(run_.kv_size_layers->value));
        if (run_.padding) format_to(what, ", padding {}", grouped(run_.padding->value));
        found(std::move(what));
    }
}

void Reader::iswa(std::string_view rest) {
    const std::string_view r = trim(rest);
    if (r.find("using full-size SWA cache") != npos) {
        run_.swa_full_line = line_;
        touch();
        found("iSWA: full-size SWA cache (swa_full)");
        return;
    }
    if (!starts_with(r, "creating")) return;
    const bool non_swa = r.find("non-SWA") != npos;
    const std::size_t p = r.find("size =");
    auto n = p == npos ? std::nullopt : uint_after(r, p + 6);
    if (!n) return;
    (non_swa ? run_.non_swa_cells : run_.swa_cells) = LogCount{*n, line_};
    cache_line();
    found(format("iSWA: {} cache of {} cells", non_swa ? "non-SWA" : "SWA", grouped(*n)));
}

void Reader::recurrent(std::string_view rest, std::string_view fn, std::string_view next) {
    const std::string_view r = trim(rest);
    if (starts_with(r, "size =")) return summary(r, fn, LlamaCacheKind::recurrent, next);
    if (r.find("RS buffer size") != npos) buffer(r, "RS buffer size", true);
}

// "- kv  12:            gpt-oss.attention.head_count_kv u32              = 8"
void Reader::loader(std::string_view rest) {
    const std::string_view r = trim(rest);
    if (starts_with(r, "loaded meta data")) {
        begin();
        touch();
        return;
    }
    if (!starts_with(r, "- kv")) return;
    std::size_t i = skip_spaces(r, 4);
    while (i < r.size() && is_digit(r[i]))
        ++i;
    if (i >= r.size() || r[i] != ':') return;
    i = skip_spaces(r, i + 1);
    std::size_t e = i;
    while (e < r.size() && !is_blank(r[e]))
        ++e;
    LlamaMetaLine m;
    m.key = std::string(r.substr(i, e - i));
    i = skip_spaces(r, e);
    e = i;
    while (e < r.size() && !is_blank(r[e]))
        ++e;
    m.type = std::string(r.substr(i, e - i));
    i = skip_spaces(r, e);
    if (i < r.size() && r[i] == '=') m.value = std::string(trim(r.substr(i + 1)));
    m.line = line_;
    if (m.key.empty() || m.type.empty()) return;
    touch();
    if (m.key == "general.architecture") found(format("model metadata: general.architecture = {}", m.value));
    run_.metadata.push_back(std::move(m));
}

// "n_layer          = 24" (print_info, llm_load_print_meta): kept as "print_info.n_layer".
void Reader::info(std::string_view rest) {
    const std::string_view r = trim(rest);
    std::size_t e = 0;
    while (e < r.size() && (is_word(r[e]) || r[e] == '.'))
        ++e;
    const std::size_t eq = skip_spaces(r, e);
    if (e == 0 || eq >= r.size() || r[eq] != '=') return;
    const std::string_view key = r.substr(0, e);
    const std::string_view value = trim(r.substr(eq + 1));
    if (key == "n_ctx_train")
        if (auto n = read_count(value, 0)) run_.n_ctx_train = LogCount{*n, line_};
    run_.metadata.push_back({format("print_info.{}", key), "", std::string(value), line_});
    touch();
}

// Lines read by what they say wherever they stand: the build, the server's slots, Flash
// Attention's resolution, allocation failures.
void Reader::anywhere(std::string_view s) {
    for (const char* phrase : {"build: ", "build = ", "version: "}) {
        const std::size_t p = find_word(s, phrase);
        if (p == npos) continue;
        std::size_t e = 0;
        const std::size_t at = p + std::string_view(phrase).size();
        auto n = read_count(s, at, &e);
        if (!n || e >= s.size() || s[e] != ' ') continue;
        const std::size_t open = skip_spaces(s, e);
        if (open >= s.size() || s[open] != '(') continue;
        const std::size_t close = s.find(')', open);
        if (close == npos || close - open > 42) continue;
        begin();
        run_.build = LogCount{*n, line_};
        run_.build_hash = std::string(s.substr(open + 1, close - open - 1));
        touch();
        found(format("llama.cpp build {} ({})", *n, run_.build_hash));
        break;
    }
    if (const std::size_t p = s.find("n_slots = "); p != npos)
        if (auto n = read_count(s, p + 10)) {
            run_.n_slots = LogCount{*n, line_};
            touch();
            found(format("server slots: {}", grouped(*n)));
        }
    for (const char* phrase : {"n_ctx_slot = ", "new slot, n_ctx = ", "max context: "})
        if (const std::size_t p = s.find(phrase); p != npos)
            if (auto n = read_count(s, p + std::string_view(phrase).size())) {
                run_.n_ctx_slot = LogCount{*n, line_};
                touch();
                found(format("context per slot: {} tokens", grouped(*n)));
            }
    if (const std::size_t p = s.find("using n_parallel = "); p != npos)
        if (auto n = read_count(s, p + 19); n && !run_.n_slots) {
            run_.n_slots = LogCount{*n, line_};
            touch();
            found(format("server slots: {} (n_parallel auto)", grouped(*n)));
        }
    // The server's own statement of the cache layout ("kv_unified = 'true'", "n_parallel = 4 and
    // kv_unified = true"), where no llama_context line gave it.
    if (const std::size_t p = s.find("kv_unified = ");
        p != npos && !run_.kv_unified && s.find("llama_context") == npos) {
        const std::string v = word_after(s, p + 13);
        if (v == "true" || v == "false") {
            run_.kv_unified = v == "true";
            run_.kv_unified_line = line_;
            touch();
            found(format("server kv_unified = {}", v));
        }
    }
    if (const std::size_t p = s.find("Flash Attention was auto, set to "); p != npos) {
        run_.flash_attn_resolved = word_after(s, p + 33);
        run_.flash_attn_resolved_line = line_;
        touch();
        found(format("Flash Attention auto resolved to {}", run_.flash_attn_resolved));
    }
    const bool kv_word = s.find("KV") != npos || s.find("kv cache") != npos || s.find("kv_cache") != npos;
    if ((s.find("failed to allocate") != npos && kv_word) || s.find("requires flash_attn") != npos ||
        s.find("requires Flash Attention") != npos || s.find("failed to initialize the context") != npos) {
        run_.failures.push_back(std::string(trim(s).substr(0, 240)));
        touch();
        found(format("failure: {}", trim(s).substr(0, 120)));
    }
    // LM Studio's own lines and its models folder; not "lmstudio-community", a Hugging Face
    // publisher whose files llama-server and Ollama load as well.
    if (s.find("[LM STUDIO") != npos || s.find("LM Studio") != npos || s.find(".lmstudio/") != npos ||
        s.find(".lmstudio\\") != npos)
        lmstudio_ = true;
}

// Ollama's own lines (the Go server's "time=... level=... source=... msg=..." and its runner's
// command line). Older versions sized with an estimate (llm/memory.go, logged as
// memory.required.kv); v0.11.5 on log what the engine allocated per device (msg="kv cache").
void Reader::ollama(std::string_view s) {
    if (s.find("ollama[") != npos || s.find("ollama_llama_server") != npos || s.find("OLLAMA_") != npos)
        ollama_ = true;
    if (const std::size_t p = s.find("(version "); p != npos && s.find("Listening on") != npos) {
        const std::string v = word_after(s, p + 9);
        if (!v.empty() && is_digit(v[0])) {
            log_.ollama_version = v;
            log_.ollama_version_line = line_;
            ollama_ = true;
            found(format("Ollama version {}", v));
        }
    }
    if (const std::size_t p = s.find("env=\"map["); p != npos) {
        auto count = [&](const char* key, std::optional<LogCount>& slot) {
            const std::size_t q = s.find(key, p);
            if (q == npos) return;
            if (auto n = read_count(s, q + std::string_view(key).size())) slot = LogCount{*n, line_};
        };
        count("OLLAMA_NUM_PARALLEL:", log_.ollama_num_parallel);
        count("OLLAMA_CONTEXT_LENGTH:", log_.ollama_context_length);
        if (const std::size_t q = s.find("OLLAMA_KV_CACHE_TYPE:", p); q != npos)
            log_.ollama_kv_cache_type = word_after(s, q + 21);
        if (const std::size_t q = s.find("OLLAMA_FLASH_ATTENTION:", p); q != npos)
            log_.ollama_flash_attention = word_after(s, q + 23);
        ollama_ = true;
        found("Ollama server config");
    }
    if (const std::size_t p = s.find("default_num_ctx="); p != npos)
        if (auto n = read_count(s, p + 16)) {
            log_.ollama_default_num_ctx = LogCount{*n, line_};
            ollama_ = true;
            found(format("Ollama default context {}", grouped(*n)));
        }
    if (const std::size_t p = s.find("memory.required.kv=\""); p != npos) {
        auto m = read_human_bytes(s, p + 20, line_);
        if (m) {
            begin();
            run_.ollama_required_kv = *m;
            touch();
            ollama_ = true;
            found(format("Ollama estimate memory.required.kv {}", m->text));
        }
    }
    if (const std::size_t p = s.find("cmd=\""); p != npos && s.find("starting llama server") != npos) {
        begin();
        const std::string_view cmd =
            s.substr(p + 5, s.find('"', p + 5) == npos ? npos : s.find('"', p + 5) - p - 5);
        auto flag = [&](std::initializer_list<const char*> names, std::optional<LogCount>& slot) {
            for (const char* name : names) {
                const std::size_t q = find_word(cmd, format("{} ", name));
                if (q == npos || (q > 0 && cmd[q - 1] != ' ')) continue;
                if (auto n = read_count(cmd, skip_spaces(cmd, q + std::string_view(name).size())))
                    slot = LogCount{*n, line_};
            }
        };
        flag({"--ctx-size", "-c"}, run_.ollama_ctx_size);
        flag({"--parallel", "-np"}, run_.ollama_parallel);
        for (const char* name : {"--cache-type-k ", "-ctk "})
            if (const std::size_t q = cmd.find(name); q != npos)
                run_.ollama_cache_type = word_after(cmd, q + std::string_view(name).size());
        touch();
        ollama_ = true;
        std::string what = "Ollama runner command";
        if (run_.ollama_ctx_size) format_to(what, ": --ctx-size {}", grouped(run_.ollama_ctx_size->value));
        if (run_.ollama_parallel) format_to(what, " --parallel {}", grouped(run_.ollama_parallel->value));
        found(std::move(what));
    }
    if (s.find("msg=\"kv cache\"") != npos) {
        const std::size_t d = s.find("device=");
        const std::size_t z = s.find("size=\"");
        auto size = z == npos ? std::nullopt : read_human_bytes(s, z + 6, line_);
        if (size) {
            const std::string device = d == npos ? std::string() : word_after(s, d + 7);
            run_.ollama_kv_devices.push_back({device, false, *size, line_});
            touch();
            ollama_ = true;
            found(format("Ollama kv cache on {}: {}", device, size->text));
        }
    }
}

void Reader::line(std::string_view text, std::string_view next, int no) {
    line_ = no;
    text_ = text;
    const std::vector<Token> tokens = tokens_of(text);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const Token& t = tokens[i];
        const std::size_t stop = i + 1 < tokens.size() ? tokens[i + 1].at : text.size();
        const std::string_view rest = text.substr(t.rest, stop - t.rest);
        const std::string_view fn = t.f->name;
        // A token whose segment continues into the next line only when it is the last one.
        const std::string_view after = i + 1 == tokens.size() ? next : std::string_view();
        switch (t.f->fn) {
            case Fn::context:
                context(rest, fn);
                break;
            case Fn::kv_self:
                kv_self(trim(rest), fn);
                break;
            case Fn::kv:
                kv(rest, fn, after);
                break;
            case Fn::iswa:
                iswa(rest);
                break;
            case Fn::recurrent:
                recurrent(rest, fn, after);
                break;
            case Fn::loader:
                loader(rest);
                break;
            case Fn::info:
                info(rest);
                break;
        }
    }
    anywhere(text);
    if (text.find("level=") != npos || text.find("ollama") != npos || text.find("OLLAMA_") != npos ||
        text.find("memory.required") != npos || text.find("Listening on") != npos)
        ollama(text);
}

Result<LlamaLog> Reader::finish() {
    log_.runs.push_back(std::move(run_));
    std::size_t stated = 0, last = log_.runs.size();
    for (std::size_t i = 0; i < log_.runs.size(); ++i)
        if (log_.runs[i].states_cache()) {
            ++stated;
            last = i;
        }
    if (last == log_.runs.size()) {
        std::string msg =
            format("engine log: no line states a llama.cpp, Ollama or LM Studio KV cache; looked for {}",
                   looked_for);
        if (log_.understood.empty()) {
            msg += ". No line was understood";
        } else {
            msg += ". Understood:";
            for (std::size_t i = 0; i < log_.understood.size() && i < 8; ++i)
                format_to(msg, i ? "; line {} ({})" : " line {} ({})", log_.understood[i].line,
                          log_.understood[i].what);
            if (log_.understood.size() > 8) format_to(msg, "; and {} more", log_.understood.size() - 8);
            msg += ", but none of these states a cache";
        }
        return fail(code::unrecognised_log, "engine_log", "{}", msg);
    }
    // Runs that hold nothing at all (a vocab-only load, the lines before the first start) are
    // dropped; the others stay, in order.
    std::vector<LlamaRun> kept;
    std::size_t chosen = 0;
    for (std::size_t i = 0; i < log_.runs.size(); ++i) {
        LlamaRun& r = log_.runs[i];
        const bool empty = !r.states_cache() && !r.n_ctx && r.metadata.empty() && !r.build;
        if (empty && i != last) continue;
        if (i == last) chosen = kept.size();
        kept.push_back(std::move(r));
    }
    log_.runs = std::move(kept);
    log_.chosen = chosen;
    if (stated > 1)
        log_.notes.push_back(
            format("the paste holds {} starts that state a cache; the figures are the last one's "
                   "(lines {} to {}): a later start replaces an earlier one",
                   stated, log_.runs[chosen].first_line, log_.runs[chosen].last_line));
    log_.engine = lmstudio_ ? "lmstudio" : ollama_ ? "ollama" : "llamacpp";
    return std::move(log_);
}

}  // namespace

bool LlamaRun::states_cache() const {
    return !caches.empty() || !buffers.empty() || kv_size || non_swa_cells || swa_cells ||
           ollama_required_kv || !ollama_kv_devices.empty();
}

const char* cache_kind_name(LlamaCacheKind kind) {
    switch (kind) {
        case LlamaCacheKind::non_swa:
            return "non-SWA";
        case LlamaCacheKind::swa:
            return "SWA";
        case LlamaCacheKind::recurrent:
            return "recurrent";
        case LlamaCacheKind::attention:
            break;
    }
    return "attention";
}

Result<LlamaLog> parse_llamacpp_log(std::string_view text) {
    Reader reader;
    std::string line, next;
    int no = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t nl = text.find('\n', start);
        const std::size_t stop = nl == npos ? text.size() : nl;
        clean(text.substr(start, stop - start), line);
        next.clear();
        // The next line, for a summary line a paste wrapped ("... seqs),\n    K (f16): ...").
        if (nl != npos && line.find("size =") != npos && line.find(", K (") == npos &&
            line.find(", R (") == npos) {
            const std::size_t nn = text.find('\n', nl + 1);
            clean(text.substr(nl + 1, (nn == npos ? text.size() : nn) - nl - 1), next);
        }
        reader.line(line, next, ++no);
        if (nl == npos) break;
        start = nl + 1;
    }
    return reader.finish();
}

}  // namespace kvcalc
