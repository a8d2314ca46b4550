#pragma once
#include <stddef.h>

/// The codec libraries WebImage opens on first use instead of linking: together with what they
/// pull in (libde265, x265, libhwy, aom, dav1d, rav1e, SVT-AV1, abseil…) they cost a process ~17 ms
/// of loading and static initializers at every start, whether or not it ever sees an AVIF, HEIF or
/// JPEG XL image.
typedef enum wi_codec_library {
    WI_CODEC_LIBRARY_AVIF,
    WI_CODEC_LIBRARY_HEIF,
    WI_CODEC_LIBRARY_JXL,
} wi_codec_library;

/// Opens `library` once per process (later calls only read the handle). Returns 0, or -1 with
/// the dynamic loader's reason in `message` (NUL-terminated, cut to `capacity`).
int wi_codec_library_load(wi_codec_library library, char *message, size_t capacity);

/// The file name opened for `library` (the soname the headers' version belongs to).
const char *wi_codec_library_soname(wi_codec_library library);

/// The Debian package that installs that file.
const char *wi_codec_library_package(wi_codec_library library);
