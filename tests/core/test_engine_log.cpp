// Engine startup logs as operators paste them: timestamps, worker and rank prefixes, colour
// codes, CRLF line ends, lines Markdown cut or joined, and the lines that matter somewhere in
// the noise. Each figure comes back with the line that stated it.
#include "check/engine_log.hpp"
#include "support.hpp"

namespace {

kvcalc::EngineLog parse(const std::string& text, const std::string& engine = {}) {
    auto r = kvcalc::parse_engine_log(text, engine);
    INFO((r ? "" : r.error().message));
    REQUIRE(r.ok());
    return r.value();
}

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

// A vLLM V1 start of Llama-4-Scout on 8 GPUs, advertising 1M tokens.
const char* vllm_v1 =
    "INFO 05-12 10:30:41 [__init__.py:239] Automatically detected platform cuda.\n"
    "INFO 05-12 10:30:44 [api_server.py:1043] vLLM API server version 0.9.1\n"
    "INFO 05-12 10:30:58 [core.py:455] Initializing a V1 LLM engine (v0.9.1) with config: "
    "model='meta-llama/Llama-4-Scout-17B-16E-Instruct', speculative_config=None, dtype=torch.bfloat16, "
    "max_seq_len=1048576, download_dir=None, load_format=auto, tensor_parallel_size=8, "
    "pipeline_parallel_size=1, kv_cache_dtype=auto\n"
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

// vLLM V0 (v0.6.5 on): blocks, and memory in its long sentence.
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
    "mem_fraction_static=0.871, max_running_requests=None, context_length=None, page_size=1, tp_size=1)\n"
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
    CHECK(log.version == "0.9.1");
    REQUIRE(log.pool_tokens);
    CHECK(log.pool_tokens->value == 681280);
    CHECK(log.pool_tokens->line == 7);
    REQUIRE(log.max_model_len);
    CHECK(log.max_model_len->value ==
          1048576);  // the concurrency line outranks the config line's max_seq_len
    CHECK(log.max_model_len->line == 8);
    CHECK(log.max_model_len_what == "\"Maximum concurrency for N tokens per request\"");
    REQUIRE(log.concurrency);
    CHECK(*log.concurrency->hundredths == 65);
    CHECK(log.concurrency->context == 1048576);
    REQUIRE(log.kv_memory);  // the smaller rank: 43.19 GiB printed, so 43.185 to 43.195 GiB
    CHECK(log.kv_memory->text == "43.19 GiB");
    CHECK(log.kv_memory->bytes == 4319 * GiB / 100);
    CHECK(log.kv_memory->low == (43185 * GiB + 999) / 1000);
    CHECK(log.kv_memory->high == 43195 * GiB / 1000);
    CHECK(log.kv_memory->line == 6);
    REQUIRE(log.tp);
    CHECK(log.tp->value == 8);
    CHECK(log.tp->line == 3);
    CHECK(log.pp->value == 1);
    CHECK(log.kv_cache_dtype == "auto");
    CHECK(log.model_dtype == "bfloat16");
    REQUIRE(log.understood.size() == 10);  // the engine line's version said once, on line 2
    CHECK(log.understood[0].line == 2);
    CHECK(log.understood[0].what == "vLLM version 0.9.1");
    CHECK(log.understood[0].repeats == 1);
    CHECK(log.understood[3].what == "max model length 1,048,576");
    CHECK(log.understood[6].what == "vLLM available KV cache memory 43.21 GiB per GPU");
    CHECK(log.understood[6].text ==
          "(VllmWorker rank=0 pid=2871) INFO 05-12 10:31:58 [gpu_worker.py:227] Available KV cache memory: "
          "43.21 GiB");
    CHECK(log.understood[8].what == "vLLM GPU KV cache size: 681,280 tokens");
    CHECK(log.understood[9].what == "vLLM maximum concurrency 0.65x for 1,048,576 tokens per request");
}

TEST_CASE("engine log: vLLM V0 blocks and memory, no separators") {
    auto log = parse(vllm_v0);
    CHECK(log.engine == "vllm");
    CHECK(log.v0);
    CHECK_FALSE(log.pool_tokens);
    REQUIRE(log.gpu_blocks);
    CHECK(log.gpu_blocks->value == 5693);  // "# CPU blocks: 2048" after the comma is not read as part of it
    CHECK(log.gpu_blocks_what == "\"# GPU blocks: N\"");
    REQUIRE(log.kv_memory);
    CHECK(log.kv_memory->bytes == 1112 * GiB / 100);  // 11.12 GiB
    CHECK(log.max_model_len->value == 32768);
    CHECK(*log.concurrency->hundredths == 278);
    CHECK(log.understood.size() == 3);
}

TEST_CASE("engine log: V0's \"Memory profiling results\" line, and a block line Markdown cut") {
    // vllm#10517 as posted: a GitHub comment turned "# GPU blocks" into a heading and dropped it.
    auto log = parse(
        "Loading model weights took 14.9888 GB\n"
        "Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB "
        "peak_torch_memory=17.06GiB memory_usage_post_profile=15.35Gib non_torch_memory=0.35GiB "
        "kv_cache_size=4.12GiB gpu_memory_utilization=0.90\n"
        "GPU blocks: 2110, # CPU blocks: 2048\n"
        "Maximum concurrency for 20000 tokens per request: 1.69x\n");
    CHECK(log.v0);
    REQUIRE(log.kv_memory);
    CHECK(log.kv_memory->text == "4.12 GiB");
    CHECK(log.kv_memory->line == 2);
    CHECK(log.kv_memory_what == "V0 \"Memory profiling results: ... kv_cache_size\"");
    REQUIRE(log.gpu_blocks);
    CHECK(log.gpu_blocks->value == 2110);
    CHECK(log.gpu_blocks->line == 3);
    CHECK(log.understood[0].what == "vLLM V0 memory profiling: kv_cache_size 4.12 GiB per GPU");
    CHECK(log.understood[1].what == "vLLM GPU blocks: 2,110");
    // Other devices' spellings; never the CPU's swap blocks.
    CHECK(
        parse("INFO 10-02 gpu_executor.py:122] # CUDA blocks: 4096, # CPU blocks: 512\n").gpu_blocks->value ==
        4096);
    CHECK_FALSE(kvcalc::parse_engine_log("# CPU blocks: 2048\n").ok());
}

TEST_CASE("engine log: vLLM's refusal to start states the memory and the answer") {
    auto log = parse(
        "(EngineCore_DP0 pid=1094) ValueError: To serve at least one request with the models's max seq len "
        "(131072), "
        "(32.00 GiB KV cache is needed, which is larger than the available KV cache memory (20.50 GiB). "
        "Based on the "
        "available memory, the estimated maximum model length is 83968. Try increasing "
        "`gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine.\n");
    REQUIRE(log.refusal);
    CHECK(*log.refusal->max_model_len == 131072);
    CHECK(log.refusal->needed->text == "32.00 GiB");
    CHECK(log.refusal->available->text == "20.50 GiB");
    CHECK(*log.refusal->estimated_max_len == 83968);
    CHECK_FALSE(log.refusal->cut);
    CHECK(log.max_model_len->value == 131072);
    CHECK(log.kv_memory->text == "20.50 GiB");  // the available memory is the pool's
    CHECK(log.understood[0].what ==
          "vLLM refused to start: max seq len 131,072, 32.00 GiB needed, 20.50 GiB available, estimated "
          "maximum model "
          "length 83,968");
    // Newer wording ("model's", format_gib's "24.0"), wrapped over two lines, and a cut copy.
    auto wrapped = parse(
        "ValueError: To serve at least one request with the model's max seq len (262144),\n"
        "(24.0 GiB KV cache is needed, which is larger than the available KV cache memory (3.18 GiB). Based "
        "on the "
        "available memory, the estimated maximum model length is 34736.\n");
    CHECK(wrapped.refusal->needed->text == "24.0 GiB");
    CHECK(wrapped.refusal->needed->low == (23995 * GiB + 999) / 1000);  // two decimals whatever is printed
    CHECK(*wrapped.refusal->estimated_max_len == 34736);
    auto cut = parse(
        "ValueError: To serve at least one request with the models's max seq len (131072), (4.54 GiB KV "
        "cache is "
        "needed, which is larger than the available KV cache memory (1.71 GiB). Based on the available "
        "memory, the "
        "estimated maximum model lengt");
    CHECK(cut.refusal->cut);
    CHECK_FALSE(cut.refusal->estimated_max_len);
    CHECK(
        cut.understood[0].what ==
        "vLLM refused to start: max seq len 131,072, 4.54 GiB needed, 1.71 GiB available (the message is cut "
        "before its estimate)");
    // V0's refusal.
    auto v0 = parse(
        "The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in "
        "KV cache "
        "(23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing "
        "the "
        "engine.\n");
    CHECK(v0.v0_refusal_tokens->value == 23648);
    CHECK(v0.max_model_len->value == 29000);
}

TEST_CASE("engine log: SGLang's allocation and scheduler lines") {
    auto log = parse(sglang);
    CHECK(log.engine == "sglang");
    REQUIRE(log.sglang_tokens);
    CHECK(log.sglang_tokens->value == 386961);
    CHECK(log.k_size->text == "26.57 GB");
    CHECK(log.v_size->text == "26.57 GB");
    CHECK(log.max_total_num_tokens->value == 386961);
    CHECK(log.max_total_num_tokens->line == 5);
    CHECK(log.context_len->value == 40960);  // context_len=, not the server args' context_length=None
    CHECK(log.max_model_len->value == 40960);
    CHECK(log.max_running_requests->value == 4096);
    CHECK(log.page_size->value == 1);
    CHECK(log.tp->value == 1);
    CHECK_FALSE(log.kv_memory);  // "K size: ... GB" is not vLLM's pool memory
    CHECK(log.understood[0].what == "tensor parallel 1");
    CHECK(log.understood[1].what == "SGLang page size 1");
    CHECK(log.understood[2].what == "model dtype bfloat16");
    CHECK(log.understood[3].what ==
          "SGLang KV cache allocated: 386,961 tokens, K size: 26.57 GB, V size: 26.57 GB");
}

TEST_CASE("engine log: SGLang's MLA, sliding-window and Mamba lines, every rank once") {
    auto log = parse(
        "[2025-07-01 09:00:01 TP0] KV Cache is allocated. #tokens: 1,234,567, KV size: 40.12 GB\n"
        "[2025-07-01 09:00:01 TP1] KV Cache is allocated. #tokens: 1,234,567, KV size: 40.12 GB\n"
        "[2025-07-01 09:00:01 TP0] Use Sliding window memory pool. full_layer_tokens=200000, "
        "swa_layer_tokens=160000\n"
        "[2025-07-01 09:00:02 TP0] Mamba Cache is allocated. max_mamba_cache_size: 96, conv_state size: 0.10 "
        "GB, "
        "ssm_state size: 4.50 GB\n");
    CHECK(log.sglang_tokens->value == 1234567);
    CHECK(log.kv_size->text == "40.12 GB");
    CHECK_FALSE(log.v_size);  // "KV size" holds "V size": not read as one
    CHECK(log.full_layer_tokens->value == 200000);
    CHECK(log.swa_layer_tokens->value == 160000);
    CHECK(log.mamba_cache_size->value == 96);
    CHECK(log.tp_ranks_seen == 2);
    REQUIRE(log.understood.size() == 3);
    CHECK(log.understood[0].repeats == 1);  // TP1 said the same
}

TEST_CASE("engine log: colour codes, CRLF, and colour codes that lost their ESC in a paste") {
    auto log = parse(
        "\x1b[1;36m(VllmWorkerProcess pid=240)\x1b[0;0m INFO 02-14 08:23:15 worker.py:266] noise\r\n"
        "\x1b[1;36m(EngineCore_0 pid=77)\x1b[0;0m INFO 02-14 08:23:20 [kv_cache_utils.py:716] GPU KV cache "
        "size: "
        "1,234,560 tokens\r\n"
        "[1;36m(EngineCore_0 pid=77)[0;0m INFO 02-14 08:23:20 [kv_cache_utils.py:720] Maximum concurrency "
        "for "
        "131,072 tokens per request: 9.42x\r\n");
    CHECK(log.pool_tokens->value == 1234560);
    CHECK(log.understood[0].line == 2);
    CHECK(log.understood[0].text ==
          "(EngineCore_0 pid=77) INFO 02-14 08:23:20 [kv_cache_utils.py:716] GPU KV cache size: 1,234,560 "
          "tokens");
    CHECK(*log.concurrency->hundredths == 942);
    CHECK(log.understood[1].text.find("[1;36m") == std::string::npos);
}

TEST_CASE("engine log: lines Markdown joined into one paragraph, and a line cut before its figure") {
    // A paste without a code block: the renderer joins the lines with spaces.
    auto joined = parse(
        "INFO [gpu_worker.py:298] Available KV cache memory: 1.53 GiB INFO [kv_cache_utils.py:1087] GPU KV "
        "cache "
        "size: 61,600 tokens INFO [kv_cache_utils.py:1091] Maximum concurrency for 10,000 tokens per "
        "request: 2.10x");
    CHECK(joined.kv_memory->text == "1.53 GiB");
    CHECK(joined.pool_tokens->value == 61600);
    CHECK(*joined.concurrency->hundredths == 210);
    auto cut = parse(
        "(EngineCore_DP0 pid=2378760) INFO 09-26 17:58:22 [kv_cache_utils.py:1087] GPU KV cache size: 61,600 "
        "tokens\n"
        "(EngineCore_DP0 pid=2378760) INFO 09-26 17:58:22 [kv_cache_utils.py:1091] Maximum concurrency for "
        "10,000 "
        "tokens per");
    REQUIRE(cut.concurrency);
    CHECK_FALSE(cut.concurrency->hundredths);
    CHECK(cut.max_model_len->value == 10000);  // the part that survived still says the max model length
    CHECK(cut.understood[1].what ==
          "vLLM max model length 10,000 tokens (the concurrency line is cut before its figure)");
}

TEST_CASE("engine log: v0.19's profiling override is not the pool; a real override is") {
    auto log = parse(
        "(Worker pid=442) INFO 04-22 01:43:09 [v1/core/kv_cache_utils.py:829] Overriding num_gpu_blocks=0 "
        "with "
        "num_gpu_blocks_override=512\n"
        "(EngineCore pid=243) INFO 04-22 01:43:15 [v1/core/kv_cache_utils.py:1319] GPU KV cache size: "
        "1,075,312 tokens\n"
        "(APIServer pid=1) DEBUG 04-22 01:43:19 [v1/metrics/loggers.py:273] Engine 000: vllm "
        "cache_config_info with "
        "initialization after num_gpu_blocks is: 67207\n");
    CHECK(log.gpu_blocks->value == 67207);
    CHECK(log.gpu_blocks_what == "\"num_gpu_blocks is: N\"");
    CHECK(log.understood[0].what == "vLLM profiling: a dummy cache of 512 blocks (not the pool)");
    auto overridden = parse("INFO Overriding num_gpu_blocks=29751 with num_gpu_blocks_override=1000\n");
    CHECK(overridden.gpu_blocks->value == 1000);
}

TEST_CASE("engine log: a rank that prints no KV memory of its own has it from its DEBUG lines") {
    // vLLM v0.19 with pp 2: only the first stage prints the INFO line; the pool follows the smaller.
    auto log = parse(
        "(Worker_PP0 pid=442) DEBUG [gpu_worker.py:424] Initial free memory: 77.76 GiB; Requested memory: "
        "0.950000 "
        "(util), 75.23 GiB\n"
        "(Worker_PP0 pid=442) DEBUG [gpu_worker.py:435] Memory profiling takes 9.87 seconds. Total non KV "
        "cache "
        "memory: 8.69GiB; torch peak memory increase: 1.1GiB\n"
        "(Worker_PP0 pid=442) INFO [gpu_worker.py:436] Available KV cache memory: 66.54 GiB\n"
        "(Worker_PP1 pid=443) DEBUG [gpu_worker.py:424] Initial free memory: 77.76 GiB; Requested memory: "
        "0.950000 "
        "(util), 75.23 GiB\n"
        "(Worker_PP1 pid=443) DEBUG [gpu_worker.py:435] Memory profiling takes 14.85 seconds. Total non KV "
        "cache "
        "memory: 9.6GiB; torch peak memory increase: 2.01GiB\n"
        "(EngineCore pid=243) INFO [kv_cache_utils.py:1319] GPU KV cache size: 1,075,312 tokens\n");
    REQUIRE(log.kv_memory);
    CHECK(log.kv_memory->text == "75.23 GiB - 9.6 GiB");
    CHECK(log.kv_memory->low == (75225 * GiB + 999) / 1000 - 9605 * GiB / 1000);
    CHECK(log.kv_memory->high == 75235 * GiB / 1000 - (9595 * GiB + 999) / 1000);
    CHECK(log.kv_memory_what ==
          "(Worker_PP1 pid=443)'s \"Requested memory\" less its \"Total non KV cache memory\"");
}

TEST_CASE("engine log: what the deployment was, wherever a line states it") {
    auto args = parse(
        "(APIServer pid=1) INFO non-default args: {'model': 'x', 'max_model_len': 8192, "
        "'tensor_parallel_size': 2, "
        "'pipeline_parallel_size': 2, 'kv_cache_dtype': 'fp8', 'dtype': 'float32', 'max_num_batched_tokens': "
        "4096, "
        "'block_size': 32}\nGPU KV cache size: 100,000 tokens\n");
    CHECK(args.max_model_len->value == 8192);
    CHECK(args.max_model_len_what == "the max_model_len argument");
    CHECK(args.tp->value == 2);
    CHECK(args.pp->value == 2);
    CHECK(args.kv_cache_dtype == "fp8");
    CHECK(args.model_dtype == "float32");
    CHECK(args.max_num_batched_tokens->value == 4096);
    CHECK(args.block_size->value == 32);
    // vLLM 0.23.1rc1 serving MiniMax-M3 states the block it sets for the model's sparse block.
    auto m3 = parse(
        "INFO 07-08 01:29:44 [config.py:77] Setting KV cache block size to 128 to match MiniMax-M3 sparse "
        "block size (was 16).\nGPU KV cache size: 237,312 tokens\n");
    REQUIRE(m3.block_size);
    CHECK(m3.block_size->value == 128);
    // ... and the indexer keys' dtype its indexer selection line names.
    auto idx = parse(
        "(Worker_TP0 pid=23802) INFO 07-08 01:30:27 [indexer.py:497] MiniMax M3 indexer: selected MSA "
        "(fmha_sm100 "
        "score + Triton top-k) [topk_blocks=16, indexer_kv_dtype=fp8]\nGPU KV cache size: 237,312 tokens\n");
    CHECK(idx.indexer_kv_dtype == "fp8");
    CHECK(parse("indexer_kv_dtype=auto\nGPU KV cache size: 1,000 tokens\n").indexer_kv_dtype.empty());
    auto command = parse(
        "vllm serve x --tensor-parallel-size 4 --max-model-len 32768\n"
        "python -m sglang.launch_server --tp 8 (not attn_tp_size=2)\nGPU KV cache size: 1,000 tokens\n");
    CHECK(command.tp->value == 8);  // the last statement
    CHECK(command.max_model_len->value == 32768);
    auto ranks = parse(
        "(Worker_TP0_EP0 pid=1) INFO x\n(Worker_TP1_EP1 pid=2) INFO x\n"
        "(Worker_TP2_EP2 pid=3) INFO Available KV cache memory: 1.53 GiB\n");
    CHECK(ranks.tp_ranks_seen == 3);  // TP0 to TP2, no gap
    CHECK(ranks.tp_rank_max == 3);
}

TEST_CASE("engine log: a start after a start: the last one's pool and memory") {
    auto restarted = parse(
        "INFO Available KV cache memory: 20.00 GiB\n"
        "INFO [kv_cache_utils.py:716] GPU KV cache size: 100,000 tokens\n"
        "INFO Available KV cache memory: 30.00 GiB\n"
        "INFO [kv_cache_utils.py:716] GPU KV cache size: 90,000 tokens\n");
    CHECK(restarted.pool_tokens->value == 90000);
    CHECK(restarted.pool_tokens->line == 4);
    CHECK(restarted.kv_memory->text == "30.00 GiB");  // not the smaller figure of the earlier start
    REQUIRE(restarted.notes.size() == 1);
    CHECK(restarted.notes[0] ==
          "line 3: a new start begins; the figures of the start before it are left out");
    // What only the earlier start said (its padding layers, its concurrency) is left out with it.
    auto two = parse(
        "WARNING [kv_cache_utils.py:1059] Add 8 padding layers, may waste at most 15.38% KV cache memory\n"
        "INFO Available KV cache memory: 19.53 GiB\n"
        "INFO GPU KV cache size: 36,560 tokens\n"
        "INFO Maximum concurrency for 8,192 tokens per request: 4.46x\n"
        "INFO Available KV cache memory: 58.11 GiB\n"
        "INFO GPU KV cache size: 476,016 tokens\n");
    CHECK_FALSE(two.padding_layers);
    CHECK_FALSE(two.concurrency);
    CHECK(two.pool_tokens->value == 476016);
    CHECK(two.kv_memory->text == "58.11 GiB");
}

TEST_CASE("engine log: malformed numbers are not read") {
    // "1,23" is not a thousands group; "681,2800" neither. Neither line gives a pool.
    auto r = kvcalc::parse_engine_log(
        "GPU KV cache size: 1,23 tokens\nGPU KV cache size: 681,2800 tokens\nGPU KV cache size: many "
        "tokens\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "unrecognised_log");
}

TEST_CASE("engine log: both engines in one paste are refused unless one is named") {
    const std::string both = std::string(sglang) + vllm_v0;
    auto r = kvcalc::parse_engine_log(both);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "unrecognised_log");
    CHECK(r.error().message ==
          "engine log: it holds lines of both vLLM (line 10) and SGLang (line 3): paste one engine's log, or "
          "give "
          "engine to say which to read");
    auto v = parse(both, "vllm");
    CHECK(v.engine == "vllm");
    CHECK(v.gpu_blocks->value == 5693);
    CHECK_FALSE(v.sglang_tokens);
    auto s = parse(both, "sglang");
    CHECK(s.max_total_num_tokens->value == 386961);
    CHECK_FALSE(s.gpu_blocks);
}

TEST_CASE("engine log: nothing recognisable is an error that says what was looked for") {
    auto r = kvcalc::parse_engine_log("Starting server\nLoading model\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == "unrecognised_log");
    CHECK(r.error().field == "engine_log");
    CHECK(
        r.error().message ==
        "engine log: no line states the KV pool; looked for vLLM's \"GPU KV cache size: N tokens\", \"# GPU "
        "blocks: N\", \"Available KV cache memory: X GiB\", V0's \"kv_cache_size=X GiB\" or \"the rest of "
        "the "
        "memory reserved for KV Cache is X GiB\", its refusal \"To serve at least one request with the "
        "models's "
        "max seq len (N), (X GiB KV cache is needed ...\", and SGLang's \"KV Cache is allocated. #tokens: "
        "N\" or "
        "\"max_total_num_tokens=N\". No line was understood");
    CHECK_FALSE(kvcalc::parse_engine_log("").ok());
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
          ". Understood: line 1 (vLLM maximum concurrency 0.65x for 1,048,576 tokens per request); line 2 "
          "(SGLang "
          "context_len 40,960), but none of these is a pool size");
}

TEST_CASE("engine log: a whole log of megabytes, as pasted, reads in one pass") {
    // 20,000 noise lines around the lines that matter: the figures are found, each once.
    std::string text;
    for (int i = 0; i < 10000; ++i)
        text += "(Worker_TP0 pid=1) DEBUG 04-22 19:59:33 [platforms/cuda.py:293] noise " + std::to_string(i) +
                "\n";
    text += vllm_v1;
    for (int i = 0; i < 10000; ++i)
        text +=
            "(APIServer pid=1) INFO 04-22 20:00:11 [loggers.py:273] throughput " + std::to_string(i) + "\n";
    auto log = parse(text);
    CHECK(log.pool_tokens->value == 681280);
    CHECK(log.pool_tokens->line == 10007);
    CHECK(log.understood.size() == 10);
}
