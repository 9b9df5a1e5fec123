// The wasm modules' allocator (they link with -sMALLOC=none): malloc and free for what the
// core does, a few short calls at a time. It is here, beside the bindings, because it is
// part of the wasm build only: the core and the native CLI use the system allocator.
//
// Every block is a power of two, from 32 bytes up, with a 16-byte header that holds its size
// class, so payloads keep malloc's 16-byte alignment. A freed block waits on its class's
// list for the next request of that class; blocks are never merged or returned. The heap
// grows to the peak of each class and is reused from then on, which the JS API's test of
// 10,000 bad inputs in a row checks (heapStats: the break and the bytes in use stay put).
// It is about 0.9 KB gzip smaller than emmalloc, the smallest allocator Emscripten ships.
#include "allocator.hpp"

#include <emscripten/heap.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" unsigned char __heap_base;  // the linker's end of static data: the heap starts here

namespace {

constexpr std::size_t header = 16;
constexpr unsigned min_class = 5;  // 32-byte blocks: the header and 16 bytes of payload
constexpr unsigned classes = 31;   // up to 1 GiB blocks; wasm32 memory ends at 2 GiB

struct FreeBlock {
    FreeBlock* next;
};

struct Heap {
    std::uintptr_t top = 0;                // the break: memory above it is not handed out yet
    FreeBlock* free_blocks[classes] = {};  // one list per class
    std::size_t in_use = 0;                // bytes of the blocks handed out (headers included)
};

Heap heap;

std::size_t class_bytes(unsigned c) {
    return std::size_t{1} << c;
}

unsigned& class_of_block(void* block) {
    return *static_cast<unsigned*>(block);
}

// The smallest class whose blocks hold n bytes of payload, or `classes` when none does.
unsigned class_for(std::size_t n) {
    unsigned c = min_class;
    while (c < classes && class_bytes(c) - header < n)
        ++c;
    return c;
}

// bytes of fresh memory at the break, growing the wasm memory when needed (through
// Emscripten, which also renews the JS views of it), or nullptr.
void* claim(std::size_t bytes) {
    if (heap.top == 0)
        heap.top = (reinterpret_cast<std::uintptr_t>(&__heap_base) + header - 1) & ~(header - 1);
    std::uintptr_t start = heap.top, end = start + bytes;
    if (end < start) return nullptr;
    if (end > emscripten_get_heap_size() && !emscripten_resize_heap(end)) return nullptr;
    heap.top = end;
    return reinterpret_cast<void*>(start);
}

void* no_memory() {
    errno = ENOMEM;
    return nullptr;
}

}  // namespace

extern "C" {

void* malloc(std::size_t n) {
    unsigned c = class_for(n);
    if (c >= classes) return no_memory();
    void* block = heap.free_blocks[c];
    if (block) {
        heap.free_blocks[c] = heap.free_blocks[c]->next;
    } else if (!(block = claim(class_bytes(c)))) {
        return no_memory();
    }
    class_of_block(block) = c;
    heap.in_use += class_bytes(c);
    return static_cast<unsigned char*>(block) + header;
}

void free(void* p) {
    if (!p) return;
    void* block = static_cast<unsigned char*>(p) - header;
    unsigned c = class_of_block(block);
    heap.in_use -= class_bytes(c);
    auto* f = static_cast<FreeBlock*>(block);
    f->next = heap.free_blocks[c];
    heap.free_blocks[c] = f;
}

void* calloc(std::size_t count, std::size_t size) {
    std::size_t n = 0;
    if (__builtin_mul_overflow(count, size, &n)) return no_memory();
    void* p = malloc(n);
    if (p) std::memset(p, 0, n);
    return p;
}

void* realloc(void* p, std::size_t n) {
    if (!p) return malloc(n);
    std::size_t capacity = class_bytes(class_of_block(static_cast<unsigned char*>(p) - header)) - header;
    if (n <= capacity) return p;
    void* q = malloc(n);
    if (!q) return nullptr;  // p stays valid, as realloc promises
    std::memcpy(q, p, capacity);
    free(p);
    return q;
}

// Every block is 16-byte aligned; nothing in the module asks for more.
void* aligned_alloc(std::size_t alignment, std::size_t n) {
    if (alignment > header || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return nullptr;
    }
    return malloc(n);
}

void* memalign(std::size_t alignment, std::size_t n) {
    return aligned_alloc(alignment, n);
}

int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
    if (alignment < sizeof(void*)) return EINVAL;
    void* p = aligned_alloc(alignment, n);
    if (!p) return errno;
    *out = p;
    return 0;
}

}  // extern "C"

namespace kvcalc_wasm {

HeapStats heap_stats() {
    claim(0);  // sets the break on a heap that has not been used yet
    return {heap.top, heap.in_use};
}

}  // namespace kvcalc_wasm
