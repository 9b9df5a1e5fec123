// Engine startup logs as operators paste them: timestamps, worker prefixes, colour codes,
// CRLF line ends, and the lines that matter somewhere in the noise.
#include "engine_log.hpp"
#include "support.hpp"

namespace {

kvcalc::EngineLog parse(const std::string& text) {
    auto r = kvcalc::parse_engine_log(text);
    INFO((r ? "" : r.error().message));
    REQUIRE(r.ok());
    return r.value();
}

// A vLLM V1 start of Llama-4-Scout on 8 GPUs, advertising 1M tokens.
const char* vllm_v1 =
    "INFO 05-12 10:30:41 [__init__.py:239] Automatically detected platform cuda.\n"
    "INFO 05-12 10:30:44 [api_server.py:1043] vLLM API server version 0.9.1\n"
    "INFO 05-12 10:30:58 [core.py:455] Initializing a V1 LLM engine (v0.9.1) with config: "
    "model='meta-llama/Llama-4-Scout-17B-16E-Instruct', speculative_config=None, dtype=torch.bfloat16, "
    "max_seq_len=1048576, download_dir=None, load_format=auto, tensor_parallel_size=8, "
    "pipeline_parallel_size=1\n"
    "(VllmWorker rank=0 pid=2871) INFO 05-12 10:31:40 [gpu_model_runner.py:1595] Model loading took 25.1243 "
    "GiB "
    "and 31.240129 seconds\n"
    "(VllmWorker rank=0 pid=2871) INFO 05-12 10:31:58 [gpu_worker.py:227] Available KV cache memory: 43.21 "
    "GiB\n"
    "(VllmWorker rank=1 pid=2872) INFO 05-12 10:31:58 [gpu_worker.py:227] Available KV cache memory: 43.19 "
    "GiB\n"
    "INFO 05-12 10:31:02 [kv_cache_utils.py:716] GPU KV cache size: 681,280 tokens\n"
    "INFO 05-12 10:31:02 [kv_cache_utils.py:720] Maximum concurrency for 1,048,576 tokens per request: "
    "0.65x\n"
    "INFO 05-12 10:31:30 [api_server.py:1090] Starting vLLM API server on http://0.0.0.0:8000\n";

// vLLM V0 (before the token line existed): blocks, and memory in its long sentence.
const char* vllm_v0 =
    "INFO 01-13 11:35:21 model_runner.py:1099] Loading model weights took 14.9595 GB\n"
    "INFO 01-13 11:35:23 worker.py:241] Memory profiling takes 1.32 seconds\n"
    "INFO 01-13 11:35:23 worker.py:241] the current vLLM instance can use total_gpu_memory (39.50GiB) x "
    "gpu_memory_utilization (0.90) = 35.55GiB\n"
    "INFO 01-13 11:35:23 worker.py:241] model weights take 14.96GiB; non_torch_memory takes 0.10GiB; PyTorch "
    "activation peak memory takes 9.37GiB; the rest of the memory reserved for KV Cache is 11.12GiB.\n"
    "INFO 01-13 11:35:23 gpu_executor.py:76] # GPU blocks: 5693, # CPU blocks: 2048\n"
    "INFO 01-13 11:35:23 gpu_executor.py:80] Maximum concurrency for 32768 tokens per request: 2.78x\n"
    "INFO 01-13 11:35:30 launcher.py:19] Available routes are:\n";

// SGLang serving Qwen3-8B on one GPU.
const char* sglang =
    "[2025-06-10 14:02:11] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', "
    "tokenizer_path='Qwen/Qwen3-8B', "
    "mem_fraction_static=0.871, max_running_requests=None, context_length=None, page_size=1)\n"
    "[2025-06-10 14:02:19 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=63.05 "
    "GB, "
    "mem usage=15.49 GB.\n"
    "[2025-06-10 14:02:20 TP0] KV Cache is allocated. #tokens: 386961, K size: 26.57 GB, V size: 26.57 GB\n"
    "[2025-06-10 14:02:20 TP0] Memory pool end. avail mem=8.71 GB\n"
    "[2025-06-10 14:02:24 TP0] max_total_num_tokens=386961, chunked_prefill_size=8192, "
    "max_prefill_tokens=16384, "
    "max_running_requests=4096, context_len=40960, available_gpu_mem=7.98 GB\n"
    "[2025-06-10 14:02:25] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)\n";

}  // namespace

TEST_CASE("engine log: vLLM V1 with thousands separators, worker prefixes and two ranks") {
    auto log = parse(vllm_v1);
    CHECK(log.engine == "vllm");
    REQUIRE(log.pool_tokens);
    CHECK(*log.pool_tokens == 681280);
    CHECK(log.pool_tokens_source == "vLLM \"GPU KV cache size\" (line 7)");
    REQUIRE(log.max_model_len);
    CHECK(*log.max_model_len == 1048576);  // the concurrency line outranks the config line's max_seq_len
    CHECK(log.max_model_len_source == "vLLM \"Maximum concurrency for N tokens per request\" (line 8)");
    REQUIRE(log.concurrency_hundredths);
    CHECK(*log.concurrency_hundredths == 65);
    REQUIRE(log.kv_memory_bytes);
    CHECK(*log.kv_memory_bytes == 4319ull * 1073741824 / 100);  // the smaller rank: 43.19 GiB, rounded down
    CHECK(log.kv_memory_text == "43.19 GiB");
    REQUIRE(log.understood.size() == 5);
    CHECK(log.understood[0].line == 3);
    CHECK(log.understood[0].what == "vLLM engine config max_seq_len 1,048,576");
    CHECK(log.understood[1].what == "vLLM KV cache memory 43.21 GiB per GPU");
    CHECK(log.understood[1].text ==
          "(VllmWorker rank=0 pid=2871) INFO 05-12 10:31:58 [gpu_worker.py:227] Available KV cache memory: "
          "43.21 GiB");
    CHECK(log.understood[3].what == "vLLM GPU KV cache size: 681,280 tokens");
    CHECK(log.understood[4].what == "vLLM max model length 1,048,576 tokens, maximum concurrency 0.65x");
}

TEST_CASE("engine log: vLLM V0 blocks and memory, no separators") {
    auto log = parse(vllm_v0);
    CHECK(log.engine == "vllm");
    CHECK_FALSE(log.pool_tokens);
    REQUIRE(log.gpu_blocks);
    CHECK(*log.gpu_blocks == 5693);  // "# CPU blocks: 2048" after the comma is not read as part of it
    REQUIRE(log.kv_memory_bytes);
    CHECK(*log.kv_memory_bytes == 1112ull * 1073741824 / 100);  // 11.12 GiB
    REQUIRE(log.max_model_len);
    CHECK(*log.max_model_len == 32768);
    CHECK(*log.concurrency_hundredths == 278);
    CHECK(log.understood.size() == 3);
}

TEST_CASE("engine log: SGLang's allocation and scheduler lines") {
    auto log = parse(sglang);
    CHECK(log.engine == "sglang");
    REQUIRE(log.pool_tokens);
    CHECK(*log.pool_tokens == 386961);
    CHECK(log.pool_tokens_source == "SGLang max_total_num_tokens (line 5)");  // the later of the two
    REQUIRE(log.max_model_len);
    CHECK(*log.max_model_len == 40960);  // context_len=, not the server args' context_length=None
    CHECK(log.max_model_len_source == "SGLang context_len (line 5)");
    CHECK_FALSE(log.kv_memory_bytes);  // "K size: ... GB" is not the pool
    REQUIRE(log.understood.size() == 3);
    CHECK(log.understood[0].what == "SGLang KV cache allocated: 386,961 tokens");
    CHECK(log.understood[1].what == "SGLang max_total_num_tokens 386,961");
    CHECK(log.understood[2].what == "SGLang context_len 40,960");
}

TEST_CASE("engine log: SGLang MLA and hybrid lines") {
    auto log = parse(
        "[2025-07-01 09:00:01 TP0] KV Cache is allocated. #tokens: 1,234,567, KV size: 40.12 GB\n"
        "[2025-07-01 09:00:01 TP0] Use sliding window memory pool. full_layer_tokens=200000, "
        "swa_layer_tokens=160000\n"
        "[2025-07-01 09:00:02 TP0] Mamba Cache is allocated. max_mamba_cache_size: 96, conv_state size: 0.10 "
        "GB, "
        "ssm_state size: 4.50 GB\n");
    CHECK(*log.pool_tokens == 1234567);
    CHECK(*log.full_layer_tokens == 200000);
    CHECK(*log.swa_layer_tokens == 160000);
    CHECK(*log.mamba_cache_size == 96);
}

TEST_CASE("engine log: colour codes and CRLF line ends") {
    auto log = parse(
        "\x1b[1;36m(VllmWorkerProcess pid=240)\x1b[0;0m INFO 02-14 08:23:15 worker.py:266] noise\r\n"
        "\x1b[1;36m(EngineCore_0 pid=77)\x1b[0;0m INFO 02-14 08:23:20 [kv_cache_utils.py:716] GPU KV cache "
        "size: "
        "1,234,560 tokens\r\n");
    REQUIRE(log.pool_tokens);
    CHECK(*log.pool_tokens == 1234560);
    CHECK(log.understood[0].line == 2);
    CHECK(log.understood[0].text.find('\x1b') == std::string::npos);  // shown without control characters
}

TEST_CASE("engine log: a memory-only log, and the last start wins for tokens") {
    auto mem = parse("INFO 09-01 12:00:00 [gpu_worker.py:227] Available KV cache memory: 50.32 GiB\n");
    CHECK_FALSE(mem.pool_tokens);
    CHECK(*mem.kv_memory_bytes == 5032ull * 1073741824 / 100);
    auto restarted = parse(
        "INFO [kv_cache_utils.py:716] GPU KV cache size: 100,000 tokens\n"
        "INFO [kv_cache_utils.py:716] GPU KV cache size: 90,000 tokens\n");
    CHECK(*restarted.pool_tokens == 90000);
    CHECK(restarted.pool_tokens_source == "vLLM \"GPU KV cache size\" (line 2)");
}

TEST_CASE("engine log: malformed numbers are not read") {
    // "1,23" is not a thousands group; "681,2800" neither. Neither line gives a pool.
    auto r = kvcalc::parse_engine_log(
        "GPU KV cache size: 1,23 tokens\nGPU KV cache size: 681,2800 tokens\nGPU KV cache size: many "
        "tokens\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "unrecognised_log");
}

TEST_CASE("engine log: nothing recognisable is an error that says what was looked for") {
    auto r = kvcalc::parse_engine_log("Starting server\nLoading model\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "unrecognised_log");
    CHECK(r.error().field == "engine_log");
    CHECK(
        r.error().message ==
        "engine log: no line states the KV pool; looked for vLLM's \"GPU KV cache size: N tokens\", \"# GPU "
        "blocks: "
        "N\" (V0), \"Available KV cache memory: X GiB\" or \"the rest of the memory reserved for KV Cache is "
        "X GiB\" "
        "(V0), and SGLang's \"KV Cache is allocated. #tokens: N\" or \"max_total_num_tokens=N\". No line was "
        "understood");
}

TEST_CASE("engine log: understood lines that give no pool are named in the error") {
    auto r = kvcalc::parse_engine_log(
        "INFO 05-12 10:31:02 [kv_cache_utils.py:720] Maximum concurrency for 1,048,576 tokens per request: "
        "0.65x\n"
        "[2025-06-10 14:02:24 TP0] chunked_prefill_size=8192, context_len=40960\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "unrecognised_log");
    const std::string& m = r.error().message;
    CHECK(m.substr(m.find(". Understood:")) ==
          ". Understood: line 1 (vLLM max model length 1,048,576 tokens, maximum concurrency 0.65x); line 2 "
          "(SGLang "
          "context_len 40,960), but none of these is a pool size");
}
