#include "wi_forward.h"

#include <avif/avif.h>
#include <dlfcn.h>
#include <jxl/version.h>
#include <libheif/heif_version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The soname is the ABI the headers describe: another version of a library is never opened and
// called with the wrong struct layouts (Swift reads libavif's structs directly). For header
// versions not listed, the development package's unversioned name — the library those very
// headers came with — on the machine that built the binary.
#if AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11
#define WI_AVIF_SONAME "libavif.so.15"
#define WI_AVIF_PACKAGE "libavif15"
#else
#define WI_AVIF_SONAME "libavif.so"
#define WI_AVIF_PACKAGE "libavif-dev"
#endif

#if (LIBHEIF_NUMERIC_VERSION >> 24) == 1
#define WI_HEIF_SONAME "libheif.so.1"
#define WI_HEIF_PACKAGE "libheif1"
#else
#define WI_HEIF_SONAME "libheif.so"
#define WI_HEIF_PACKAGE "libheif-dev"
#endif

#if JPEGXL_MAJOR_VERSION == 0 && JPEGXL_MINOR_VERSION == 7
#define WI_JXL_SONAME "libjxl.so.0.7"
#define WI_JXL_PACKAGE "libjxl0.7"
#else
#define WI_JXL_SONAME "libjxl.so"
#define WI_JXL_PACKAGE "libjxl-dev"
#endif

static const char *const sonames[] = {WI_AVIF_SONAME, WI_HEIF_SONAME, WI_JXL_SONAME};
static const char *const packages[] = {WI_AVIF_PACKAGE, WI_HEIF_PACKAGE, WI_JXL_PACKAGE};
static void *handles[3];

const char *wi_codec_library_soname(wi_codec_library library) { return sonames[library]; }

const char *wi_codec_library_package(wi_codec_library library) { return packages[library]; }

int wi_codec_library_load(wi_codec_library library, char *message, size_t capacity) {
    if (__atomic_load_n(&handles[library], __ATOMIC_ACQUIRE)) return 0;
    // No lock: the loader serialises dlopen and counts references, so two racing first calls get
    // the same handle. RTLD_LOCAL keeps the library's symbols out of the global scope, where they
    // would meet the forwarders of the same names.
    void *handle = dlopen(sonames[library], RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(message, capacity, "%s", reason ? reason : "unknown error");
        return -1;
    }
    void *expected = NULL;
    if (!__atomic_compare_exchange_n(&handles[library], &expected, handle, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        dlclose(handle);
    }
    return 0;
}

void *wi_codec_library_symbol(wi_codec_library library, const char *name) {
    // Loaded here too: code of the app's own that calls the library (linked against it) reaches
    // these forwarders as well, before WebImage ever did.
    char message[256];
    if (wi_codec_library_load(library, message, sizeof message) != 0) {
        fprintf(stderr, "WebImage: %s called, but %s\n", name, message);
        abort();
    }
    void *address = dlsym(__atomic_load_n(&handles[library], __ATOMIC_ACQUIRE), name);
    if (!address) {
        fprintf(stderr, "WebImage: no %s in %s\n", name, sonames[library]);
        abort();
    }
    return address;
}
