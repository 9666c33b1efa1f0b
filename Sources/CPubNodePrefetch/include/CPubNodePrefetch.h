#ifndef CPUBNODE_PREFETCH_H
#define CPUBNODE_PREFETCH_H

#include <stddef.h>
#include <stdint.h>
#if defined(__APPLE__)
#include <malloc/malloc.h>
#else
#include <malloc.h>
#endif

/// Asks the processor to bring the cache lines of `bytes` bytes from `address` toward its caches
/// without waiting for them. A hint: it never faults, whatever the address (even a freed or
/// unmapped one), and changes nothing but timing. Inlined where Swift calls it.
/// The arithmetic is on integers: the range may run past the object, or the object be gone.
static inline __attribute__((always_inline)) void pubnode_prefetch(const void *address, size_t bytes) {
    uintptr_t start = (uintptr_t)address;
    for (uintptr_t line = start & ~(uintptr_t)63; line < start + bytes; line += 64) {
        __builtin_prefetch((const void *)line, 0, 3);
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
