// The wasm modules' allocator (allocator.cpp): its own view of the heap, for heapStats.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kvcalc_wasm {

struct HeapStats {
    std::uintptr_t top;  // the break: the top of the memory the allocator has claimed
    std::size_t in_use;  // bytes of the blocks handed out and not yet freed (headers included)
};

HeapStats heap_stats();

}  // namespace kvcalc_wasm
