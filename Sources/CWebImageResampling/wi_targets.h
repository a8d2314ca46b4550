#pragma once

// A function marked WI_TARGETS is built once per x86-64 vector width it gains from, and the
// dynamic loader picks the one the CPU runs; elsewhere it is built once. Clang vector types
// written once lower to each width's registers.
#if defined(__x86_64__) && defined(__ELF__)
#define WI_TARGETS __attribute__((target_clones("avx2", "default")))
#else
#define WI_TARGETS
#endif
#define WI_INLINE static inline __attribute__((always_inline))
