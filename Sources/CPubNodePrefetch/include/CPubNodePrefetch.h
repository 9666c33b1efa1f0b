#ifndef CPUBNODE_PREFETCH_H
#define CPUBNODE_PREFETCH_H

#include <stddef.h>
#if defined(__APPLE__)
#include <malloc/malloc.h>
#else
#include <malloc.h>
#endif

/// Asks the processor to bring the cache lines of `bytes` bytes from `address` toward its caches
/// without waiting for them. A hint: it never faults, whatever the address (even a freed or
/// unmapped one), and changes nothing but timing. Inlined where Swift calls it.
static inline __attribute__((always_inline)) void pubnode_prefetch(const void *address, size_t bytes) {
    const char *line = (const char *)((size_t)address & ~(size_t)63);
    const char *end = (const char *)address + bytes;
    for (; line < end; line += 64) {
        __builtin_prefetch(line, 0, 3);
    }
}

/// The bytes the allocator holds for the block at `address`, which `malloc` returned: at least
/// what was asked for.
static inline size_t pubnode_heap_bytes(const void *address) {
#if defined(__APPLE__)
    return malloc_size(address);
#else
    return malloc_usable_size((void *)address);
#endif
}

#endif
