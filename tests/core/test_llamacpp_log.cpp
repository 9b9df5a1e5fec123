// The real llama.cpp, Ollama and LM Studio startup logs of tests/fixtures/engine-logs/llamacpp/,
// read as manifest.json says they print (every figure with its line), and the arithmetic written
// beside each printed figure, from the model's GGUF keys by the rules of LLAMACPP.md for that
// build, landing on it to the log's precision. Then the pastes as people make them: colour codes,
// CRLF, prefixes, lines Markdown wrapped or joined, two starts in one paste.
#include <set>

#include "arithmetic.hpp"
#include "config/json.hpp"
#include "engines/llamacpp/llamacpp_log.hpp"
#include "support.hpp"

using namespace kvtest;
using kvcalc::json;
using kvcalc::LlamaCacheKind;
using kvcalc::LlamaLog;
using kvcalc::LlamaRun;

namespace {

const std::string dir = std::string(KVCALC_SOURCE_DIR) + "/tests/fixtures/engine-logs/llamacpp/";

LlamaLog parse(const std::string& text) {
    auto r = kvcalc::parse_llamacpp_log(text);
    INFO((r ? "" : r.error().message));
    REQUIRE(r.ok());
    return r.value();
}

json manifest() {
    auto j = kvcalc::parse_json_text(read_file(dir + "manifest.json"));
    REQUIRE(j.ok());
    return *j;
}

std::string kind_of(const json& c) {
    const std::string k = c["kind"].get<std::string>();
    return k == "non_swa" ? "non-SWA" : k == "swa" ? "SWA" : k;
}

void check_count(const std::optional<kvcalc::LogCount>& got, const json& want, const char* what) {
    INFO(what);
    if (want.is_null()) {
        CHECK_FALSE(got.has_value());  // the reader invents nothing the line does not print
        return;
    }
    REQUIRE(got.has_value());
    CHECK(got->value == want.get<std::uint64_t>());
}

json field(const json& obj, const char* key) {
    return obj.is_object() && obj.contains(key) ? obj[key] : json();
}

void check_caches(const LlamaRun& run, const json& caches) {
    REQUIRE(run.caches.size() == caches.size());
    for (std::size_t i = 0; i < caches.size(); ++i) {
        const json& want = caches[i];
        const kvcalc::LlamaCacheLine& got = run.caches[i];
        INFO("cache " << i);
        CHECK(kvcalc::cache_kind_name(got.kind) == kind_of(want));
        CHECK(got.function == want["function"].get<std::string>());
        CHECK(got.line == want["line"].get<int>());
        CHECK(got.total.text == want["total"].get<std::string>());
        CHECK(got.total.line == got.line);
        check_count(got.cells, field(want, "cells"), "cells");
        check_count(got.layers, field(want, "layers"), "layers");
        check_count(got.seqs, field(want, "seqs"), "seqs");
        check_count(got.streams, field(want, "streams"), "streams");
        check_count(got.rs_seq, field(want, "rs_seq"), "rs_seq");
        for (const char* part : {"k", "v"}) {
            INFO(part);
            const std::optional<kvcalc::LogMemory>& m = part[0] == 'k' ? got.k : got.v;
            const std::string& type = part[0] == 'k' ? got.type_k : got.type_v;
            if (!want.contains(part)) {
                CHECK_FALSE(m.has_value());
                CHECK(type.empty());
                continue;
            }
            REQUIRE(m.has_value());
            CHECK(type == want[part][0].get<std::string>());
            CHECK(m->text == want[part][1].get<std::string>());
        }
    }
}

void check_buffers(const LlamaRun& run, const json& buffers) {
    REQUIRE(run.buffers.size() == buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        INFO("buffer " << i);
        CHECK(run.buffers[i].device == buffers[i]["device"].get<std::string>());
        CHECK(run.buffers[i].recurrent == (buffers[i]["kind"].get<std::string>() == "RS"));
        CHECK(run.buffers[i].size.text == buffers[i]["size"].get<std::string>());
        CHECK(run.buffers[i].line == buffers[i]["line"].get<int>());
    }
}

// The printed figure an expected entry names: a cache's total, K or V, a buffer, Ollama's estimate.
const kvcalc::LogMemory* printed_memory(const LlamaLog& log, const json& e) {
    const LlamaRun& run = e.contains("run") ? log.runs[e["run"].get<std::size_t>()] : log.run();
    if (e.contains("buffer")) return &run.buffers.at(e["buffer"].get<std::size_t>()).size;
    if (e.contains("ollama")) return run.ollama_required_kv ? &*run.ollama_required_kv : nullptr;
    const kvcalc::LlamaCacheLine& c = run.caches.at(e["cache"].get<std::size_t>());
    const std::string part = e["part"].get<std::string>();
    if (part == "total") return &c.total;
    const auto& m = part == "k" ? c.k : c.v;
    return m ? &*m : nullptr;
}

}  // namespace

TEST_CASE(
    "llamacpp log: every stored log reads as its manifest says, and the arithmetic lands on the printed "
    "figures",
    "[llamacpp-log]") {
    const json m = manifest();
    REQUIRE(m.size() >= 15);
    std::size_t reproduced = 0;
    std::set<std::string> files;
    for (const auto& e : m) {
        const std::string file = e["file"].get<std::string>();
        INFO(file);
        files.insert(file);
        REQUIRE(e["source"].get<std::string>().compare(0, 19, "https://github.com/") == 0);
        const std::string status = e["status"].get<std::string>();
        if (status.compare(0, 10, "reproduced") == 0) {
            ++reproduced;
            CHECK_FALSE(e["expected"].empty());
            CHECK(e["gguf"].is_string());
        } else {
            REQUIRE(status == "explained");
            CHECK_FALSE(e["reason"].get<std::string>().empty());
        }
        CHECK_FALSE(e["verdict"].get<std::string>().empty());

        const LlamaLog log = parse(read_file(dir + file));
        const json& p = e["printed"];
        CHECK(log.engine == p["engine_detected"].get<std::string>());
        REQUIRE(log.runs.size() == p["runs"].get<std::size_t>());
        REQUIRE(log.chosen == p["chosen"].get<std::size_t>());
        const LlamaRun& run = log.run();
        check_count(run.build, field(p, "build"), "build");
        if (p.contains("build_hash")) CHECK(run.build_hash == p["build_hash"].get<std::string>());
        const json ctx = field(p, "context");
        check_count(run.n_ctx, field(ctx, "n_ctx"), "n_ctx");
        check_count(run.n_ctx_seq, field(ctx, "n_ctx_seq"), "n_ctx_seq");
        check_count(run.n_seq_max, field(ctx, "n_seq_max"), "n_seq_max");
        check_count(run.n_ubatch, field(ctx, "n_ubatch"), "n_ubatch");
        CHECK(run.flash_attn ==
              (ctx.contains("flash_attn") ? ctx["flash_attn"].get<std::string>() : std::string()));
        if (ctx.contains("kv_unified")) {
            REQUIRE(run.kv_unified.has_value());
            CHECK(*run.kv_unified == ctx["kv_unified"].get<bool>());
        } else {
            CHECK_FALSE(run.kv_unified.has_value());
        }
        check_count(run.kv_size, field(p, "kv_size"), "kv_size");
        check_count(run.padding, field(p, "padding"), "padding");
        const json swa = field(p, "swa_cells");
        check_count(run.non_swa_cells, field(swa, "non_swa"), "non-SWA cells");
        check_count(run.swa_cells, field(swa, "swa"), "SWA cells");
        const json slots = field(p, "slots");
        check_count(run.n_slots, field(slots, "n_slots"), "n_slots");
        check_count(run.n_ctx_slot, field(slots, "n_ctx_slot"), "n_ctx_slot");
        const json ollama = field(p, "ollama");
        if (ollama.contains("required_kv")) {
            REQUIRE(run.ollama_required_kv.has_value());
            CHECK(run.ollama_required_kv->text == ollama["required_kv"].get<std::string>());
        } else {
            CHECK_FALSE(run.ollama_required_kv.has_value());
        }
        check_count(run.ollama_ctx_size, field(ollama, "ctx_size"), "ollama ctx_size");
        check_count(run.ollama_parallel, field(ollama, "parallel"), "ollama parallel");
        check_caches(run, p["caches"]);
        check_buffers(run, p["buffers"]);
        if (p.contains("earlier_runs"))
            for (std::size_t i = 0; i < p["earlier_runs"].size(); ++i) {
                const json& r = p["earlier_runs"][i];
                INFO("earlier run " << i);
                CHECK(log.runs[i].first_line == r["first_line"].get<int>());
                check_count(log.runs[i].kv_size, field(r, "kv_size"), "kv_size");
                check_caches(log.runs[i], r["caches"]);
            }

        // Each figure written as arithmetic from the model's keys lands inside the printed one's
        // half unit of its last place (MiB with two decimals: +-0.005 MiB); counts are exact.
        for (const auto& x : e["expected"]) {
            const std::string arithmetic = x["arithmetic"].get<std::string>();
            INFO(arithmetic);
            const std::uint64_t bytes = Arithmetic::eval(arithmetic);
            CHECK(bytes == x["bytes"].get<std::uint64_t>());
            if (x.contains("part") && x["part"] == "kv_size") {
                REQUIRE(run.kv_size.has_value());
                CHECK(run.kv_size->value == bytes);
            } else if (x.contains("part") && x["part"] == "swa_cells") {
                REQUIRE(run.swa_cells.has_value());
                CHECK(run.swa_cells->value == bytes);
            } else {
                const kvcalc::LogMemory* got = printed_memory(log, x);
                REQUIRE(got != nullptr);
                CHECK(got->text == x["printed"].get<std::string>());
                CHECK(got->low <= bytes);
                CHECK(bytes <= got->high);
            }
        }

        // The model document: the GGUF reader's shape; written from the log's own dump, its keys
        // say what the dump printed.
        if (e["gguf"].is_string()) {
            auto doc = kvcalc::parse_json_text(read_file(dir + e["gguf"].get<std::string>()));
            REQUIRE(doc.ok());
            const json& g = (*doc)["gguf"];
            CHECK(g["byte_order"] == "little");
            CHECK(g["metadata_bytes"].is_number_unsigned());
            const json& meta = g["metadata"];
            REQUIRE(meta.contains("general.architecture"));
            const std::string about = (*doc)["about"].get<std::string>();
            if (about.compare(0, 31, "written from the metadata dump ") == 0)
                for (const auto& kv : meta.items()) {
                    if (!kv.value().is_number_integer()) continue;
                    INFO(kv.key());
                    bool seen = false;
                    for (const LlamaRun& r : log.runs)
                        for (const kvcalc::LlamaMetaLine& l : r.metadata)
                            if (l.key == kv.key()) {
                                seen = true;
                                CHECK(l.value == std::to_string(kv.value().get<std::int64_t>()));
                            }
                    CHECK(seen);
                }
        }
    }
    CHECK(reproduced >= 12);
    CHECK(files.size() == m.size());
}

// Written cases (not published logs): the pastes the real logs above do not show, each built from
// a real log's lines (named beside it) with what a paste does to them.

TEST_CASE("llamacpp log: colour codes, CRLF, timestamps and process prefixes are read through",
          "[llamacpp-log]") {
    // Written from llamacpp-b6699-gpt-oss-20b-131072-fa.log lines 122-138, with llama.cpp's
    // LOG_COLORS escapes, a Windows paste's CRLF, and the "0.00.197.403 I " timestamps of -lv.
    const std::string esc = "\x1b[0m";
    const std::string text =
        "\x1b[34m0.00.561.001\x1b[0m \x1b[32mI \x1b[0mllama_context: n_seq_max     = 1\r\n"
        "0.00.561.002 I llama_context: n_ctx         = 131072\r\n"
        "0.00.561.003 I llama_context: flash_attn    = enabled\r\n"
        "[34m0.00.561.004[0m [32mI [0mllama_kv_cache_iswa: creating non-SWA KV cache, size = 131072 cells\r\n"
        "0.00.561.005 I llama_kv_cache: size = 3072.00 MiB (131072 cells,  12 layers,  1/1 seqs), K (f16): "
        "1536.00 "
        "MiB, V (f16): 1536.00 MiB" +
        esc +
        "\r\n"
        "0.00.561.006 I llama_kv_cache_iswa: creating     SWA KV cache, size = 768 cells\r\n"
        "0.00.561.007 I llama_kv_cache: size =   18.00 MiB (   768 cells,  12 layers,  1/1 seqs), K (f16):   "
        " 9.00 "
        "MiB, V (f16):    9.00 MiB\r\n";
    const LlamaLog log = parse(text);
    const LlamaRun& r = log.run();
    REQUIRE(r.caches.size() == 2);
    CHECK(r.caches[0].kind == LlamaCacheKind::non_swa);
    CHECK(r.caches[0].total.text == "3072.00 MiB");
    CHECK(r.caches[0].v->text == "1536.00 MiB");
    CHECK(r.caches[1].kind == LlamaCacheKind::swa);
    CHECK(r.caches[1].cells->value == 768);
    CHECK(r.caches[1].line == 7);
    CHECK(r.flash_attn == "enabled");
    CHECK(r.swa_cells->value == 768);
    // 3072.00 MiB printed to two decimals: the bytes lie within 0.005 MiB of it.
    CHECK(r.caches[0].total.low == 3072 * MiB - MiB / 200);   // ceil(3072 MiB - 5242.88 B)
    CHECK(r.caches[0].total.high == 3072 * MiB + MiB / 200);  // floor(3072 MiB + 5242.88 B)
    for (const auto& f : log.understood)
        CHECK(f.text.find('\x1b') == std::string::npos);
}

TEST_CASE("llamacpp log: a summary line Markdown wrapped, and two lines it joined", "[llamacpp-log]") {
    // Written from a hybrid Qwen3.5 line as a Markdown note wrapped it after "seqs),".
    const LlamaLog wrapped = parse(
        "llama_kv_cache: size = 4224.00 MiB (135168 cells, 8 layers, 4/1 seqs),\n"
        "                K (f16): 2112.00 MiB, V (f16): 2112.00 MiB\n"
        "llama_memory_recurrent: size = 201.00 MiB (4 cells, 32 layers, 4 seqs),\n"
        "                R (f32): 9.00 MiB, S (f32): 192.00 MiB\n");
    const LlamaRun& w = wrapped.run();
    REQUIRE(w.caches.size() == 2);
    CHECK(w.caches[0].cells->value == 135168);
    CHECK(w.caches[0].seqs->value == 4);
    CHECK(w.caches[0].streams->value == 1);
    REQUIRE(w.caches[0].k.has_value());
    CHECK(w.caches[0].k->text == "2112.00 MiB");
    CHECK(w.caches[0].k->line == 1);  // the figure belongs to the summary line
    CHECK(w.caches[1].kind == LlamaCacheKind::recurrent);
    REQUIRE(w.caches[1].v.has_value());
    CHECK(w.caches[1].v->text == "192.00 MiB");
    CHECK(wrapped.notes.size() == 2);

    // Written from llamacpp-b6699-gpt-oss-20b-131072-fa.log lines 134-135, joined into one.
    const LlamaLog joined = parse(
        "llama_kv_cache:      CUDA0 KV buffer size =  3072.00 MiB llama_kv_cache: size = 3072.00 MiB (131072 "
        "cells,  "
        "12 layers,  1/1 seqs), K (f16): 1536.00 MiB, V (f16): 1536.00 MiB\n");
    const LlamaRun& j = joined.run();
    REQUIRE(j.buffers.size() == 1);
    CHECK(j.buffers[0].size.text == "3072.00 MiB");
    CHECK(j.buffers[0].device == "CUDA0");
    REQUIRE(j.caches.size() == 1);
    CHECK(j.caches[0].layers->value == 12);
}

TEST_CASE("llamacpp log: two starts in one paste: the last one that states a cache wins", "[llamacpp-log]") {
    // Written from llamacpp-b5398-qwen3-0.6b-rocm-4096.log lines 121-134, restarted with -c 8192.
    // A paste that holds two starts describes the engine after the last (a restart replaces the
    // earlier one); the earlier stays in runs, and a note says its figures were left out.
    const std::string start =
        "build: 5398 (c531edfa) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu\n";
    auto kv = [](const char* cells, const char* mib, const char* half) {
        return std::string("llama_context: n_seq_max     = 1\nllama_context: n_ctx         = ") + cells +
               "\nllama_kv_cache_unified: kv_size = " + cells +
               ", type_k = 'f16', type_v = 'f16', n_layer = 28, can_shift = 1, padding = 32\n"
               "llama_kv_cache_unified: KV self size  = " +
               mib + " MiB, K (f16): " + half + " MiB, V (f16): " + half + " MiB\n";
    };
    const LlamaLog log = parse(start + kv("4096", " 448.00", "224.00") + "main: exiting\n" + start +
                               kv("8192", " 896.00", "448.00"));
    REQUIRE(log.runs.size() == 2);
    CHECK(log.chosen == 1);
    CHECK(log.run().kv_size->value == 8192);
    CHECK(log.run().caches[0].total.text == "896.00 MiB");
    CHECK(log.run().first_line == 7);
    CHECK(log.runs[0].caches[0].total.text == "448.00 MiB");
    REQUIRE(log.notes.size() == 1);
    CHECK(log.notes[0].find("2 starts") != std::string::npos);

    // A later start that never reached its cache (cut, or crashed) does not replace the figures
    // of the one that did: the run chosen is the last that states a cache.
    const LlamaLog cut =
        parse(start + kv("4096", " 448.00", "224.00") + start + "llama_context: n_ctx = 8192\n");
    REQUIRE(cut.runs.size() == 2);
    CHECK(cut.chosen == 0);
    CHECK(cut.run().kv_size->value == 4096);
}

TEST_CASE("llamacpp log: each era's wording", "[llamacpp-log]") {
    // 2023: "kv self size = 40.62 MB", MB meaning 2^20 (ggml-org CI's open_llama_3b_v2 at n_ctx
    // 128: 26 x 3200 x 2 x 128 x 2 = 42,598,400 B = 40.625 MiB).
    const LlamaLog old = parse(
        "llama_new_context_with_model: n_ctx      = 128\n"
        "llama_new_context_with_model: kv self size  =   40.62 MB\n");
    REQUIRE(old.run().caches.size() == 1);
    const auto& c = old.run().caches[0];
    CHECK(c.total.text == "40.62 MB");
    CHECK_FALSE(c.k.has_value());
    CHECK(c.total.low <= 42598400);
    CHECK(42598400 <= c.total.high);
    REQUIRE(old.notes.size() == 1);
    CHECK(old.notes[0].find("MB") != std::string::npos);

    // b5913-b6072: "%2u/%2u seqs" prints " 2/ 1 seqs" (a line quoted in danbev/learning-ai
    // notes/llama-kv-cache.md).
    const LlamaLog b5913 = parse(
        "llama_kv_cache_unified: size =  512.00 MiB (  1024 cells,  32 layers,  2/ 1 seqs), K (f16):  256.00 "
        "MiB, "
        "V (f16):  256.00 MiB\n");
    CHECK(b5913.run().caches[0].seqs->value == 2);
    CHECK(b5913.run().caches[0].streams->value == 1);

    // b5429-b5440: cells and layers, no seqs; a quantized cache; a resolved auto flash attention.
    const LlamaLog b5429 = parse(
        "llama_context: flash_attn    = auto\n"
        "llama_kv_cache_unified: size = 4352.00 MiB (262144 cells,   8 layers), K (q8_0): 2176.00 MiB, V "
        "(q8_0): "
        "2176.00 MiB\n"
        "llama_context: Flash Attention was auto, set to enabled\n");
    const auto& q = b5429.run().caches[0];
    CHECK(q.type_k == "q8_0");
    CHECK(q.k->text == "2176.00 MiB");
    CHECK_FALSE(q.seqs.has_value());
    CHECK(b5429.run().flash_attn == "auto");
    CHECK(b5429.run().flash_attn_resolved == "enabled");

    // The full-size SWA cache of a library user (LM Studio, llama-cpp-python): both halves the
    // same size, and the warning that says why.
    const LlamaLog full = parse(
        "llama_kv_cache_unified_iswa: using full-size SWA cache (ref: "
        "https://github.com/ggml-org/llama.cpp/pull/13194#issuecomment-2868343055)\n"
        "llama_kv_cache_unified_iswa: creating non-SWA KV cache, size = 8192 cells\n"
        "llama_kv_cache_unified: size =  416.00 MiB (  8192 cells,  13 layers,  1/1 seqs), K (f16):  208.00 "
        "MiB, V "
        "(f16):  208.00 MiB\n"
        "llama_kv_cache_unified_iswa: creating     SWA KV cache, size = 8192 cells\n"
        "llama_kv_cache_unified: size =  416.00 MiB (  8192 cells,  13 layers,  1/1 seqs), K (f16):  208.00 "
        "MiB, V "
        "(f16):  208.00 MiB\n");
    CHECK(full.run().swa_full_line == 1);
    REQUIRE(full.run().caches.size() == 2);
    CHECK(full.run().caches[0].kind == LlamaCacheKind::non_swa);
    CHECK(full.run().caches[1].kind == LlamaCacheKind::swa);
}

TEST_CASE("llamacpp log: Ollama's lines: its version, config, estimate, runner and measured caches",
          "[llamacpp-log]") {
    // Written from ollama-2024-12-llama32-3b-estimate-parallel4.log and the shapes of Ollama's
    // routes.go, server.go and ml/backend.go lines; the v0.30 runner is llama-server itself.
    const LlamaLog log = parse(
        "time=2025-10-01T10:00:00.000Z level=INFO source=routes.go:1475 msg=\"server config\" "
        "env=\"map[OLLAMA_CONTEXT_LENGTH:4096 OLLAMA_FLASH_ATTENTION:false OLLAMA_KV_CACHE_TYPE:q8_0 "
        "OLLAMA_NUM_PARALLEL:1]\"\n"
        "time=2025-10-01T10:00:00.001Z level=INFO source=routes.go:1528 msg=\"Listening on 127.0.0.1:11434 "
        "(version "
        "0.12.3)\"\n"
        "time=2025-10-01T10:00:05.000Z level=INFO source=server.go:400 msg=\"starting llama server\" "
        "cmd=\"/usr/lib/ollama/llama-server -m /root/.ollama/models/blobs/sha256-x -c 8192 -np 2 "
        "--cache-type-k q8_0 "
        "--port 40001\"\n"
        "time=2025-10-01T10:00:06.000Z level=INFO source=backend.go:326 msg=\"kv cache\" device=CUDA0 "
        "size=\"459.0 "
        "MiB\"\n");
    CHECK(log.engine == "ollama");
    CHECK(log.ollama_version == "0.12.3");
    CHECK(log.ollama_num_parallel->value == 1);
    CHECK(log.ollama_context_length->value == 4096);
    CHECK(log.ollama_kv_cache_type == "q8_0");
    CHECK(log.ollama_flash_attention == "false");
    const LlamaRun& r = log.run();
    CHECK(r.ollama_ctx_size->value == 8192);
    CHECK(r.ollama_parallel->value == 2);
    CHECK(r.ollama_cache_type == "q8_0");
    REQUIRE(r.ollama_kv_devices.size() == 1);
    CHECK(r.ollama_kv_devices[0].device == "CUDA0");
    CHECK(r.ollama_kv_devices[0].size.text == "459.0 MiB");
    // One decimal of MiB: the bytes lie within 0.05 MiB of 459 MiB.
    CHECK(r.ollama_kv_devices[0].size.low == 459 * MiB - MiB / 20);
    CHECK(r.ollama_kv_devices[0].size.high == 459 * MiB + MiB / 20);

    // journald's cut: a line broken inside a key still gives the estimate on its second half.
    const LlamaLog cut = parse(
        "Oct 03 13:18:04 gemma ollama[26513]: time=2025-10-03T13:18:04.224+02:00 level=INFO "
        "source=server.go:544 "
        "msg=offload library=cpu layers.requested=-1 layers.model=29 memory.available=\"[27.5 GiB]\" "
        "memory.gpu_o\n"
        "verhead=\"0 B\" memory.required.full=\"2.6 GiB\" memory.required.partial=\"0 B\" "
        "memory.required.kv=\"448.0 MiB\" memory.required.allocations=\"[2.6 GiB]\"\n");
    CHECK(cut.engine == "ollama");
    CHECK(cut.run().ollama_required_kv->text == "448.0 MiB");
    CHECK(cut.run().ollama_required_kv->line == 2);
}

TEST_CASE("llamacpp log: LM Studio's marker names the engine", "[llamacpp-log]") {
    const LlamaLog log = parse(
        "2025-08-14 10:00:00 [DEBUG] [LM STUDIO SERVER] Loading model\n"
        "llama_kv_cache_unified: size = 4096.00 MiB (131072 cells,  16 layers,  1/1 seqs), K (f16): 2048.00 "
        "MiB, V "
        "(f16): 2048.00 MiB\n");
    CHECK(log.engine == "lmstudio");

    // A llama-server loading a file of the lmstudio-community publisher is not LM Studio; its auto
    // slots line says the cache is unified (written from the shape of server.cpp's line, b6931 on).
    const LlamaLog server = parse(
        "main: n_parallel is set to auto, using n_parallel = 4 and kv_unified = true\n"
        "srv    load_model: loading model "
        "'/models/lmstudio-community/gemma-3-12b-it-GGUF/gemma-3-12b-it-Q4_K_M.gguf'\n"
        "llama_kv_cache: size = 1536.00 MiB (  8192 cells,   8 layers,  4/1 seqs), K (f16):  768.00 MiB, V "
        "(f16):  "
        "768.00 MiB\n");
    CHECK(server.engine == "llamacpp");
    REQUIRE(server.run().kv_unified.has_value());
    CHECK(*server.run().kv_unified);
    CHECK(server.run().n_slots->value == 4);
}

TEST_CASE("llamacpp log: a paste with no cache line is an error that lists what it understood",
          "[llamacpp-log]") {
    auto none = kvcalc::parse_llamacpp_log("hello\nworld\n");
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().code == "unrecognised_log");
    CHECK(none.error().field == "engine_log");
    CHECK(none.error().message.find("No line was understood") != std::string::npos);

    // Written from llamacpp-b6699-gpt-oss-20b-131072-fa.log's first lines: a paste cut before the cache.
    auto cut = kvcalc::parse_llamacpp_log(
        "build: 6699 (c08002a1) with cc (GCC) 14.3.1 20250808 (Red Hat 14.3.1-3) for x86_64-redhat-linux\n"
        "llama_context: n_ctx         = 131072\n");
    REQUIRE_FALSE(cut.ok());
    const std::string& msg = cut.error().message;
    CHECK(msg.find("line 1 (llama.cpp build 6699 (c08002a1))") != std::string::npos);
    CHECK(msg.find("line 2 (context n_ctx 131,072 (llama_context))") != std::string::npos);
    CHECK(msg.find("KV self size") != std::string::npos);  // says what it looked for

    // vLLM's log is not llama.cpp's.
    CHECK_FALSE(
        kvcalc::parse_llamacpp_log(read_file(std::string(KVCALC_SOURCE_DIR) +
                                             "/tests/fixtures/engine-logs/vllm-v0.19-qwen3-8b-h100-tp1.log"))
            .ok());
}
