#pragma once

// A function marked WI_TARGETS is built once per x86-64 vector width it gains from, and the
// dynamic loader picks the one the CPU runs; elsewhere it is built once. Clang vector types
// written once lower to each width's registers. Not under a sanitizer: the loader runs the ifunc
// resolver before the sanitizer's runtime is up, and the instrumented resolver crashes at start.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define WI_NO_CLONES 1
#endif
#endif
#if defined(__x86_64__) && defined(__ELF__) && !defined(WI_NO_CLONES)
#define WI_TARGETS __attribute__((target_clones("avx2", "default")))
#else
#define WI_TARGETS
#endif
#define WI_INLINE static inline __attribute__((always_inline))
