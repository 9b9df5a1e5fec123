// GPUs by name, with the memory the engines see: the total that CUDA (or ROCm) reports,
// which vLLM multiplies by gpu_memory_utilization. It is below the nominal size: the
// driver and ECC keep part of it (an H100 "80GB" reports about 79.1 GiB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kvcalc {

struct GpuPreset {
    const char* id;                       // "h100-80gb"
    const char* name;                     // "NVIDIA H100 80GB"
    const char* nominal;                  // "80 GB HBM3", as sold
    std::uint64_t memory_gib_hundredths;  // 7911: 79.11 GiB, as vLLM logs total_gpu_memory
    bool measured;                        // false: estimated, see source
    const char* source;                   // where the figure comes from
};

std::size_t gpu_preset_count();
const GpuPreset& gpu_preset_at(std::size_t i);
// Case-insensitive; "_" and " " read as "-" ("H100_80GB", "rtx 4090").
const GpuPreset* find_gpu_preset(std::string_view id);

// floor(hundredths x 2^30 / 100): the figure in bytes.
std::uint64_t gpu_memory_bytes(const GpuPreset& g);

}  // namespace kvcalc
