#pragma once
// setjmp traps around libpng's push (progressive) reader and its writer. Functions return -1
// after libpng reported an error; the message is then in wi_png_error().
#include <stddef.h>
#include <stdint.h>

#include "wi_png_rows.h"

typedef struct wi_png_decoder wi_png_decoder;

enum {
    WI_PNG_NEED_MORE = 0,   // fed bytes consumed, image not complete yet
    WI_PNG_COMPLETE = 1,    // IEND reached, every row written
    WI_PNG_NEED_BUFFER = 2, // header read: call wi_png_decoder_set_buffer, then feed again
    WI_PNG_ERROR = -1,
};

/// A push decoder producing straight RGBA8 rows (palette, tRNS, gray, low and 16-bit depths
/// expanded or reduced to 8 bits by taking the high byte). The header is rejected before any
/// pixel allocation when width*height exceeds max_pixels.
wi_png_decoder *wi_png_decoder_create(uint64_t max_pixels);
void wi_png_decoder_destroy(wi_png_decoder *dec);
/// Feeds the next bytes of the stream (only new bytes: the decoder keeps its own state).
/// Stops right after the header with WI_PNG_NEED_BUFFER; bytes it had not used yet are kept,
/// and a feed of 0 bytes after set_buffer goes on with them.
int wi_png_decoder_feed(wi_png_decoder *dec, const uint8_t *data, size_t size);
/// Where the RGBA8 rows go: height * width * 4 bytes owned by the caller, alive until the decode
/// ends or wi_png_decoder_detach_buffer; NULL makes the decoder allocate (zeroed) its own.
int wi_png_decoder_set_buffer(wi_png_decoder *dec, uint8_t *buffer);
/// Forgets a caller's buffer; the decoder cannot continue afterwards.
void wi_png_decoder_detach_buffer(wi_png_decoder *dec);
const char *wi_png_error(const wi_png_decoder *dec);
/// The source's layout (colour type, depth, palette and tRNS as libpng read them), for
/// wi_png_rows_decode; NULL before the header.
const wi_png_layout *wi_png_source_layout(const wi_png_decoder *dec);

int wi_png_header_ready(const wi_png_decoder *dec);
/// The header declared more than max_pixels pixels (width and height are set).
int wi_png_too_large(const wi_png_decoder *dec);
uint32_t wi_png_width(const wi_png_decoder *dec);
uint32_t wi_png_height(const wi_png_decoder *dec);
/// Whether the source had an alpha channel or tRNS transparency.
int wi_png_has_alpha(const wi_png_decoder *dec);
int wi_png_is_interlaced(const wi_png_decoder *dec);
/// Rows written so far in the current pass, and the pass (0...6 for Adam7, 0 otherwise).
uint32_t wi_png_rows_done(const wi_png_decoder *dec);
int wi_png_pass(const wi_png_decoder *dec);
/// The RGBA8 buffer (width*4 bytes a row), NULL before the header is parsed.
const uint8_t *wi_png_pixels(const wi_png_decoder *dec);
/// Header-only facts, valid once the header is ready.
int wi_png_bit_depth(const wi_png_decoder *dec);
int wi_png_color_type(const wi_png_decoder *dec);
/// Colour metadata, valid once the header is ready (these chunks come before the pixels).
/// The iCCP profile, inflated, owned by the decoder; NULL when absent.
const uint8_t *wi_png_icc(const wi_png_decoder *dec, size_t *length);
/// Whether an sRGB chunk says the pixels are sRGB.
int wi_png_has_srgb(const wi_png_decoder *dec);
/// gAMA: the file gamma × 100000 (45455 for 1/2.2), 0 when absent.
int32_t wi_png_gamma(const wi_png_decoder *dec);
/// cHRM: white, red, green, blue as x, y pairs × 100000 into out; 0 when absent.
int wi_png_chromaticities(const wi_png_decoder *dec, int32_t out[8]);

/// Encodes straight RGBA8 as PNG (colour type RGBA, or RGB when has_alpha is 0); at levels 1-6 a
/// photograph gets Paeth rows and zlib's Z_RLE. On success *out is malloc'ed; free it with wi_free.
int wi_png_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                       int has_alpha, int compression_level, const uint8_t *icc, size_t icc_length,
                       uint8_t **out, size_t *out_size, char *errbuf, size_t errbuf_size);
