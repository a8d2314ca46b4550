#pragma once

// libjxl's headers then leave its functions unmarked, so the forwarders can be hidden (below).
#define JXL_STATIC_DEFINE

#include "wi_codec_library.h"

/// The address of `name` in `library`, opened if it is not yet. Aborts with the reason if the
/// library cannot be opened (WebImage's coders check with `wi_codec_library_load` first and throw
/// instead) or lacks `name` (a library other than the one the headers describe: going on would
/// call through a wrong pointer).
void *wi_codec_library_symbol(wi_codec_library library, const char *name);

// Each forwarder defines the library's own function, so the Swift coders call libavif, libheif
// and libjxl as if linked, and the executable needs none of them at start. The forwarders stand
// for the library in the whole link: an app's own calls to it land here too (and work); an app
// that links a static libavif.a, libheif.a or libjxl.a gets duplicate symbols. The first call looks
// the real function up; later calls read the cached pointer (a racing first call looks it up
// twice and stores the same address). Forwarders are hidden: one in the dynamic symbol table — an
// executable linked with -export-dynamic, as SwiftPM's static Swift runtime does — would also
// catch the library's calls to its own functions, even during dlopen, before the handle exists.
#define WI_RESOLVE(library, name)                                                                   \
    static __typeof__(&name) resolved;                                                              \
    __typeof__(&name) fn = __atomic_load_n(&resolved, __ATOMIC_ACQUIRE);                            \
    if (!fn) {                                                                                      \
        fn = (__typeof__(&name))wi_codec_library_symbol(library, #name);                            \
        __atomic_store_n(&resolved, fn, __ATOMIC_RELEASE);                                          \
    }

#define WI_FORWARD(library, type, name, params, args)                                               \
    __attribute__((visibility("hidden"))) type name params {                                        \
        WI_RESOLVE(library, name)                                                                   \
        return fn args;                                                                             \
    }

#define WI_FORWARD_VOID(library, name, params, args)                                                \
    __attribute__((visibility("hidden"))) void name params {                                        \
        WI_RESOLVE(library, name)                                                                   \
        fn args;                                                                                    \
    }
