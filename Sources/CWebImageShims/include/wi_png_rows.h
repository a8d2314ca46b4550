#pragma once
// The whole-buffer PNG fast path: a non-interlaced image's zlib stream inflated by libdeflate into
// its exact size, rows unfiltered and expanded to RGBA8 as libpng's transforms in wi_png.c would.
// libpng reads the header and colour chunks; anything this declines goes back to libpng.
#include <stddef.h>
#include <stdint.h>

/// The source layout, captured by wi_png.c from libpng's info before its transforms.
typedef struct {
    uint32_t width, height;
    int color_type;             // PNG colour type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA
    int bit_depth;              // 1, 2, 4, 8 or 16
    int has_key;                // tRNS colour key for types 0 and 2 (alpha 0 where the sample matches)
    uint16_t key[3];            // gray in key[0], or red, green, blue
    uint8_t palette[256 * 4];   // type 3: RGBA per index; entries past PLTE are opaque black, as libpng's
} wi_png_layout;

enum {
    WI_PNG_ROWS_OK = 0,
    WI_PNG_ROWS_UNSUPPORTED = 1,  // not a layout the fast path takes
    WI_PNG_ROWS_BAD_DATA = 2,     // zlib stream corrupt or its adler32 wrong
    WI_PNG_ROWS_SHORT = 3,        // stream ends before height * (1 + rowbytes) bytes
    WI_PNG_ROWS_LONG = 4,         // stream holds more than that
    WI_PNG_ROWS_TRAILING = 5,     // bytes after the end of the zlib stream
    WI_PNG_ROWS_BAD_FILTER = 6,   // a row's filter byte is over 4
    WI_PNG_ROWS_NO_MEMORY = 7,
};

/// Inflates `zlib` (the IDAT data, concatenated) and writes width * height RGBA8 pixels to `rgba`
/// (tightly packed rows). Returns a WI_PNG_ROWS_ code; `rgba` is partly written on failure.
int wi_png_rows_decode(const wi_png_layout *layout, const uint8_t *zlib, size_t zlib_size, uint8_t *rgba);
