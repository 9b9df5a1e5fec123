// The figures are vLLM's own log line "the current vLLM instance can use total_gpu_memory
// (X GiB) x gpu_memory_utilization ..." (torch.cuda.mem_get_info's total) as published in
// public vLLM issues and logs. Where several values were seen (drivers differ by a few
// hundredths), the lowest is kept: a deployment that fits on it fits on the others.
// Two are estimates and say so.
#include "check/gpu_presets.hpp"

namespace kvcalc {
namespace {

const GpuPreset presets[] = {
    {"h100-80gb", "NVIDIA H100 80GB", "80 GB HBM3", 7911, true,
     "vLLM logs total_gpu_memory 79.11-79.15 GiB on H100 80GB; nvidia-smi shows 81,559 MiB"},
    {"h200-141gb", "NVIDIA H200 141GB", "141 GB HBM3e", 13981, true,
     "vLLM logs total_gpu_memory 139.81 GiB on H200; nvidia-smi shows 143,771 MiB"},
    {"a100-40gb", "NVIDIA A100 40GB", "40 GB HBM2", 3939, true,
     "vLLM logs total_gpu_memory 39.39-39.56 GiB on A100 40GB; nvidia-smi shows 40,960 MiB"},
    {"a100-80gb", "NVIDIA A100 80GB", "80 GB HBM2e", 7915, false,
     "estimate: nvidia-smi's 81,920 MiB less the ~0.85 GiB that the driver keeps on the 80 GB "
     "parts (H100 80GB: 80 GiB nominal, 79.11 GiB reported)"},
    {"l40s", "NVIDIA L40S", "48 GB GDDR6", 4431, true,
     "vLLM logs total_gpu_memory 44.31-44.39 GiB on L40S; nvidia-smi shows 46,068 MiB (ECC on)"},
    {"rtx-4090", "NVIDIA GeForce RTX 4090", "24 GB GDDR6X", 2353, true,
     "vLLM logs total_gpu_memory 23.53-23.67 GiB on RTX 4090; nvidia-smi shows 24,564 MiB"},
    {"b200", "NVIDIA B200", "180 GB HBM3e", 17852, false,
     "estimate: nvidia-smi's 183,359 MiB (179.06 GiB) less the 0.54 GiB by which CUDA's total "
     "falls below nvidia-smi's on H100 (81,559 MiB shown, 79.11 GiB reported)"},
    {"mi300x", "AMD Instinct MI300X", "192 GB HBM3", 19145, true,
     "vLLM on ROCm logs total_gpu_memory 191.45 GiB on one MI300X"},
};

char fold(char c) {
    if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
    if (c == '_' || c == ' ') return '-';
    return c;
}

}  // namespace

std::size_t gpu_preset_count() {
    return sizeof presets / sizeof presets[0];
}
const GpuPreset& gpu_preset_at(std::size_t i) {
    return presets[i];
}

const GpuPreset* find_gpu_preset(std::string_view id) {
    for (const auto& p : presets) {
        std::string_view pid = p.id;
        if (pid.size() != id.size()) continue;
        bool same = true;
        for (std::size_t i = 0; i < id.size() && same; ++i)
            same = fold(id[i]) == pid[i];
        if (same) return &p;
    }
    return nullptr;
}

std::uint64_t gpu_memory_bytes(const GpuPreset& g) {
    return g.memory_gib_hundredths * (std::uint64_t{1} << 30) / 100;
}

}  // namespace kvcalc
