#include "wi_png.h"

#include <png.h>
#include <setjmp.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct wi_png_decoder {
    png_structp png;
    png_infop info;
    uint64_t max_pixels;
    char message[256];
    int failed;
    int too_large;
    int header_ready;
    int complete;
    uint32_t width, height;
    int has_alpha, interlaced, bit_depth, color_type;
    uint8_t *pixels;
    int external;  // pixels belong to the caller (wi_png_decoder_set_buffer)
    size_t rowbytes;
    uint32_t rows_done;
    int pass;
    wi_png_layout layout;  // the source's own layout, before libpng's transforms
};

static void wi_png_error_fn(png_structp png, png_const_charp msg) {
    wi_png_decoder *dec = png_get_error_ptr(png);
    // Messages set before png_error (our own checks) win over libpng's generic text.
    if (dec->message[0] == 0) snprintf(dec->message, sizeof dec->message, "%s", msg);
    png_longjmp(png, 1);
}

static void wi_png_warning_fn(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;  // ancillary-chunk problems: libpng recovers, and so do we
}

/// What the fast path needs to reproduce the transforms below: palette with tRNS alpha, colour key.
static void wi_png_capture_layout(png_structp png, png_infop info, wi_png_decoder *dec) {
    wi_png_layout *l = &dec->layout;
    l->width = dec->width;
    l->height = dec->height;
    l->color_type = dec->color_type;
    l->bit_depth = dec->bit_depth;
    png_bytep trans_alpha = NULL;
    int num_trans = 0;
    png_color_16p trans_color = NULL;
    int trns = png_get_tRNS(png, info, &trans_alpha, &num_trans, &trans_color) != 0;
    if (dec->color_type == PNG_COLOR_TYPE_PALETTE) {
        png_colorp palette = NULL;
        int num_palette = 0;
        if (!png_get_PLTE(png, info, &palette, &num_palette)) num_palette = 0;
        for (int i = 0; i < 256; i++) {
            int in = i < num_palette && palette;
            l->palette[i * 4] = in ? palette[i].red : 0;
            l->palette[i * 4 + 1] = in ? palette[i].green : 0;
            l->palette[i * 4 + 2] = in ? palette[i].blue : 0;
            l->palette[i * 4 + 3] = trns && trans_alpha && i < num_trans ? trans_alpha[i] : 0xFF;
        }
    } else if (trns && trans_color) {
        l->has_key = 1;
        l->key[0] = dec->color_type == PNG_COLOR_TYPE_RGB ? trans_color->red : trans_color->gray;
        l->key[1] = trans_color->green;
        l->key[2] = trans_color->blue;
    }
}

static void wi_png_info_fn(png_structp png, png_infop info) {
    wi_png_decoder *dec = png_get_progressive_ptr(png);
    png_uint_32 w, h;
    int depth, ctype, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &ctype, &interlace, NULL, NULL);
    dec->width = w;
    dec->height = h;
    dec->bit_depth = depth;
    dec->color_type = ctype;
    dec->interlaced = interlace != PNG_INTERLACE_NONE;
    int trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    dec->has_alpha = (ctype & PNG_COLOR_MASK_ALPHA) != 0 || trns;
    if ((uint64_t)w * (uint64_t)h > dec->max_pixels) {
        dec->too_large = 1;
        snprintf(dec->message, sizeof dec->message, "image is %ux%u, over the limit of %llu pixels",
                 (unsigned)w, (unsigned)h, (unsigned long long)dec->max_pixels);
        png_error(png, dec->message);
    }
    wi_png_capture_layout(png, info, dec);
    if (ctype == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (trns) png_set_tRNS_to_alpha(png);
    if (depth == 16) png_set_strip_16(png);
    if (ctype == PNG_COLOR_TYPE_GRAY || ctype == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!dec->has_alpha) png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    dec->rowbytes = png_get_rowbytes(png, info);
    if (dec->rowbytes != (size_t)w * 4) png_error(png, "unexpected row layout after transforms");
    dec->header_ready = 1;
    // Stop here so the caller can hand in the buffer the pixels should end up in (no copy);
    // libpng keeps the unread bytes and resumes on the next feed.
    if (!dec->pixels) png_process_data_pause(png, 1);
}

static void wi_png_row_fn(png_structp png, png_bytep new_row, png_uint_32 row, int pass) {
    wi_png_decoder *dec = png_get_progressive_ptr(png);
    if (!new_row || row >= dec->height || !dec->pixels) return;
    png_progressive_combine_row(png, dec->pixels + (size_t)row * dec->rowbytes, new_row);
    dec->pass = pass;
    dec->rows_done = row + 1;
}

/// Whether the last row of the last pass reached the buffer. libpng only warns when the image
/// data ends early and leaves the missing rows unwritten: that is an error here, not stale memory.
static int wi_png_all_rows_delivered(const wi_png_decoder *dec) {
    if (!dec->interlaced) return dec->rows_done == dec->height;
    for (int pass = 6; pass >= 0; pass--) {
        png_uint_32 rows = PNG_PASS_ROWS(dec->height, pass), cols = PNG_PASS_COLS(dec->width, pass);
        if (rows == 0 || cols == 0) continue;
        return dec->pass == pass && dec->rows_done == PNG_ROW_FROM_PASS_ROW(rows - 1, pass) + 1;
    }
    return 1;
}

static void wi_png_end_fn(png_structp png, png_infop info) {
    (void)info;
    wi_png_decoder *dec = png_get_progressive_ptr(png);
    if (dec->pixels && !wi_png_all_rows_delivered(dec)) {
        snprintf(dec->message, sizeof dec->message, "image data ends before the last row");
        png_error(png, dec->message);
    }
    dec->complete = 1;
}

wi_png_decoder *wi_png_decoder_create(uint64_t max_pixels) {
    wi_png_decoder *dec = calloc(1, sizeof *dec);
    if (!dec) return NULL;
    dec->max_pixels = max_pixels;
    dec->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, dec, wi_png_error_fn, wi_png_warning_fn);
    if (!dec->png) {
        free(dec);
        return NULL;
    }
    dec->info = png_create_info_struct(dec->png);
    if (!dec->info) {
        png_destroy_read_struct(&dec->png, NULL, NULL);
        free(dec);
        return NULL;
    }
    // Our own pixel limit is checked in the info callback; lift libpng's 1M-per-side default so
    // the typed error is ours, and keep its chunk-size guard.
    png_set_user_limits(dec->png, 0x7fffffff, 0x7fffffff);
    // Chunks nobody reads are dropped unread: libpng would otherwise keep up to 1000 of them,
    // each up to its 8 MB chunk limit, which no decode plan could bound.
    static const png_byte unread[] = "tEXt\0zTXt\0iTXt\0sPLT\0eXIf\0hIST\0pCAL\0sCAL\0";
    png_set_keep_unknown_chunks(dec->png, PNG_HANDLE_CHUNK_NEVER, unread, 8);
    png_set_progressive_read_fn(dec->png, dec, wi_png_info_fn, wi_png_row_fn, wi_png_end_fn);
    return dec;
}

void wi_png_decoder_destroy(wi_png_decoder *dec) {
    if (!dec) return;
    png_destroy_read_struct(&dec->png, &dec->info, NULL);
    if (!dec->external) free(dec->pixels);
    free(dec);
}

int wi_png_decoder_set_buffer(wi_png_decoder *dec, uint8_t *buffer) {
    if (!dec->header_ready || dec->pixels) return -1;
    if (buffer) {
        dec->pixels = buffer;
        dec->external = 1;
        return 0;
    }
    // Zeroed, so rows not yet received read as transparent in a partial image.
    dec->pixels = calloc((size_t)dec->height, dec->rowbytes);
    return dec->pixels ? 0 : -1;
}

void wi_png_decoder_detach_buffer(wi_png_decoder *dec) {
    if (dec->external) {
        dec->pixels = NULL;
        dec->external = 0;
        dec->failed = 1;  // rows can no longer be delivered anywhere
    }
}

int wi_png_decoder_feed(wi_png_decoder *dec, const uint8_t *data, size_t size) {
    if (dec->failed) return WI_PNG_ERROR;
    if (dec->complete) return WI_PNG_COMPLETE;
    if (setjmp(png_jmpbuf(dec->png))) {
        dec->failed = 1;
        return WI_PNG_ERROR;
    }
    png_process_data(dec->png, dec->info, (png_bytep)data, size);
    if (dec->complete) return WI_PNG_COMPLETE;
    return dec->header_ready && !dec->pixels ? WI_PNG_NEED_BUFFER : WI_PNG_NEED_MORE;
}

const char *wi_png_error(const wi_png_decoder *dec) { return dec->message; }
const wi_png_layout *wi_png_source_layout(const wi_png_decoder *dec) { return dec->header_ready ? &dec->layout : NULL; }
int wi_png_header_ready(const wi_png_decoder *dec) { return dec->header_ready; }
int wi_png_too_large(const wi_png_decoder *dec) { return dec->too_large; }
uint32_t wi_png_width(const wi_png_decoder *dec) { return dec->width; }
uint32_t wi_png_height(const wi_png_decoder *dec) { return dec->height; }
int wi_png_has_alpha(const wi_png_decoder *dec) { return dec->has_alpha; }
int wi_png_is_interlaced(const wi_png_decoder *dec) { return dec->interlaced; }
uint32_t wi_png_rows_done(const wi_png_decoder *dec) { return dec->rows_done; }
int wi_png_pass(const wi_png_decoder *dec) { return dec->pass; }
const uint8_t *wi_png_pixels(const wi_png_decoder *dec) { return dec->pixels; }
int wi_png_bit_depth(const wi_png_decoder *dec) { return dec->bit_depth; }

const uint8_t *wi_png_icc(const wi_png_decoder *dec, size_t *length) {
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 size;
    *length = 0;
    if (!dec->header_ready || !png_get_iCCP(dec->png, dec->info, &name, &compression, &profile, &size)) return NULL;
    *length = size;
    return profile;
}

int wi_png_has_srgb(const wi_png_decoder *dec) {
    return dec->header_ready && png_get_valid(dec->png, dec->info, PNG_INFO_sRGB) != 0;
}

int32_t wi_png_gamma(const wi_png_decoder *dec) {
    png_fixed_point gamma = 0;
    if (!dec->header_ready || !png_get_gAMA_fixed(dec->png, dec->info, &gamma)) return 0;
    return gamma;
}

int wi_png_chromaticities(const wi_png_decoder *dec, int32_t out[8]) {
    png_fixed_point v[8];
    if (!dec->header_ready || !png_get_cHRM_fixed(dec->png, dec->info, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])) return 0;
    for (int i = 0; i < 8; i++) out[i] = v[i];
    return 1;
}
int wi_png_color_type(const wi_png_decoder *dec) { return dec->color_type; }

typedef struct {
    uint8_t *buffer;
    size_t size;
    size_t capacity;
    int oom;
} wi_png_sink;

static void wi_png_write_fn(png_structp png, png_bytep data, size_t length) {
    wi_png_sink *sink = png_get_io_ptr(png);
    if (sink->size + length > sink->capacity) {
        size_t grown = sink->capacity ? sink->capacity * 2 : 64 * 1024;
        while (grown < sink->size + length) grown *= 2;
        uint8_t *bigger = realloc(sink->buffer, grown);
        if (!bigger) {
            sink->oom = 1;
            png_error(png, "out of memory while encoding");
        }
        sink->buffer = bigger;
        sink->capacity = grown;
    }
    memcpy(sink->buffer + sink->size, data, length);
    sink->size += length;
}

static void wi_png_flush_fn(png_structp png) { (void)png; }

typedef struct {
    png_structp png;
    png_infop info;
    wi_png_sink sink;
    char message[256];
} wi_png_encoder;

/// Whether Paeth's prediction misses most pixels (about 32 rows sampled): photographs do; graphics,
/// gradients and screenshots, where LZ77 finds repeats run-length matching cannot, mostly hit.
static int wi_png_is_photographic(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha) {
    const int channels = has_alpha ? 4 : 3;
    const uint32_t step = (height / 32) | 1;  // odd, so the rows do not keep one phase of a pattern
    uint64_t sampled = 0, exact = 0;
    for (uint32_t y = 1; y < height; y += step) {
        const uint8_t *row = rgba + (size_t)y * stride, *above = row - stride;
        for (uint32_t x = 1; x < width; x++) {
            int hit = 1;
            for (int c = 0; c < channels; c++) {
                int a = row[(x - 1) * 4 + c], b = above[x * 4 + c], d = above[(x - 1) * 4 + c];
                int p = a + b - d, pa = abs(p - a), pb = abs(p - b), pd = abs(p - d);
                int predicted = pa <= pb && pa <= pd ? a : pb <= pd ? b : d;
                hit &= row[x * 4 + c] == predicted;
            }
            exact += hit;
        }
        sampled += width - 1;
    }
    return sampled > 0 && exact * 10 < sampled * 3;
}

static void wi_png_encode_error_fn(png_structp png, png_const_charp msg) {
    wi_png_encoder *enc = png_get_error_ptr(png);
    snprintf(enc->message, sizeof enc->message, "%s", msg);
    png_longjmp(png, 1);
}

int wi_png_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                       int has_alpha, int compression_level, const uint8_t *icc, size_t icc_length,
                       uint8_t **out, size_t *out_size, char *errbuf, size_t errbuf_size) {
    *out = NULL;
    *out_size = 0;
    // Heap state, so nothing relies on non-volatile locals after a longjmp.
    wi_png_encoder *enc = calloc(1, sizeof *enc);
    if (!enc) {
        snprintf(errbuf, errbuf_size, "out of memory");
        return -1;
    }
    enc->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, enc, wi_png_encode_error_fn, wi_png_warning_fn);
    if (enc->png) enc->info = png_create_info_struct(enc->png);
    if (!enc->png || !enc->info) {
        snprintf(errbuf, errbuf_size, "cannot create the PNG writer");
        png_destroy_write_struct(&enc->png, &enc->info);
        free(enc);
        return -1;
    }
    if (setjmp(png_jmpbuf(enc->png))) {
        snprintf(errbuf, errbuf_size, "%s", enc->message);
        png_destroy_write_struct(&enc->png, &enc->info);
        free(enc->sink.buffer);
        free(enc);
        return -1;
    }
    png_set_write_fn(enc->png, &enc->sink, wi_png_write_fn, wi_png_flush_fn);
    png_set_IHDR(enc->png, enc->info, width, height, 8,
                 has_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (compression_level >= 0) png_set_compression_level(enc->png, compression_level);
    // A photograph's filtered rows hold almost no long matches: run-length matching with Paeth
    // filtering writes them as small as level 6's full search does, for a fraction of its CPU.
    if (compression_level >= 1 && compression_level <= 6 && wi_png_is_photographic(rgba, width, height, stride, has_alpha)) {
        png_set_compression_strategy(enc->png, Z_RLE);
        png_set_filter(enc->png, PNG_FILTER_TYPE_BASE, PNG_FILTER_PAETH);
    }
    if (icc && icc_length > 0) {
        png_set_iCCP(enc->png, enc->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, icc, (png_uint_32)icc_length);
    }
    png_write_info(enc->png, enc->info);
    // Input rows are always RGBA; without alpha the fourth byte is a filler to strip.
    if (!has_alpha) png_set_filler(enc->png, 0, PNG_FILLER_AFTER);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(enc->png, (png_const_bytep)(rgba + (size_t)y * stride));
    }
    png_write_end(enc->png, NULL);
    png_destroy_write_struct(&enc->png, &enc->info);
    *out = enc->sink.buffer;
    *out_size = enc->sink.size;
    free(enc);
    return 0;
}
