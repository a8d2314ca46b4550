#pragma once
// setjmp traps around libjpeg. Every function here returns 0 on success and -1 after libjpeg
// reported a fatal error; the message is then in wi_jpeg_error(). libjpeg's default error_exit
// (which calls exit()) is never installed, and no longjmp ever crosses a Swift frame.
#include <stddef.h>
#include <stdint.h>

typedef struct wi_jpeg_decoder wi_jpeg_decoder;

typedef struct {
    uint32_t width;
    uint32_t height;
    int components;
    int is_cmyk;          // CMYK or YCCK source: decode with wi_jpeg_start(..., want_cmyk = 1)
    int is_grayscale;
    int is_progressive;
    int is_multi_scan;    // progressive, or components in separate scans: whole-image coefficient arrays
    int data_precision;   // bits per sample (8, or 12 for a 12-bit file)
    int h_samp[4];        // sampling factors of the first four components (0 past num_components)
    int v_samp[4];
    int adobe_inverted;   // Adobe APP14 marker seen: CMYK samples are stored inverted
    const uint8_t *exif;  // APP1 payload starting with "Exif\0\0", or NULL
    size_t exif_length;
    const uint8_t *icc;   // the ICC profile from the APP2 markers (joined), or NULL; owned by the decoder
    size_t icc_length;
} wi_jpeg_header;

/// Reads from `data[0..<size]`, which must stay alive until destroy. A truncated stream is
/// completed with a fake EOI (libjpeg-turbo's memory source), which counts as a warning.
wi_jpeg_decoder *wi_jpeg_decoder_create(const uint8_t *data, size_t size);
void wi_jpeg_decoder_destroy(wi_jpeg_decoder *dec);
const char *wi_jpeg_error(const wi_jpeg_decoder *dec);
/// Corrupt-data warnings so far (premature end of data, bad Huffman codes, ...).
int wi_jpeg_warning_count(const wi_jpeg_decoder *dec);
const char *wi_jpeg_first_warning(const wi_jpeg_decoder *dec);
/// Whether the data ended before the image did (libjpeg inserted a fake EOI).
int wi_jpeg_truncated(const wi_jpeg_decoder *dec);

int wi_jpeg_read_header(wi_jpeg_decoder *dec, wi_jpeg_header *header);

enum {
    WI_JPEG_LIMIT_NONE = 0,
    WI_JPEG_LIMIT_SCANS = 1,   // more scans than the cap
    WI_JPEG_LIMIT_MEMORY = 2,  // libjpeg needed more memory than max_memory allowed
};
/// Caps what the decode may do; call before wi_jpeg_start. max_memory (bytes, 0 = libjpeg's
/// default) bounds libjpeg's own allocations; max_scans (0 = the default of 500) bounds the scans
/// read. Passing either is an error raised inside libjpeg, reported by wi_jpeg_limit_hit.
void wi_jpeg_set_limits(wi_jpeg_decoder *dec, long max_memory, int max_scans);
/// Which limit stopped the decode (WI_JPEG_LIMIT_*), after a call returned -1.
int wi_jpeg_limit_hit(const wi_jpeg_decoder *dec);
/// Starts decompression scaled by scale_num/8 (1...16). Output is RGBA8 (alpha 255), or raw
/// CMYK when want_cmyk is set. Writes the scaled output size.
int wi_jpeg_start(wi_jpeg_decoder *dec, unsigned scale_num, int want_cmyk,
                  uint32_t *out_width, uint32_t *out_height);
/// Reads up to max_rows rows into dst (rows `stride` bytes apart); rows_read may be 0 at the end.
int wi_jpeg_read_rows(wi_jpeg_decoder *dec, uint8_t *dst, size_t stride, uint32_t max_rows,
                      uint32_t *rows_read);
int wi_jpeg_finish(wi_jpeg_decoder *dec);

/// Encodes straight RGBA8 (alpha ignored) as baseline JPEG. On success *out is malloc'ed and the
/// caller frees it with wi_free. Error text goes into errbuf.
int wi_jpeg_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                        int quality, int progressive, const uint8_t *icc, size_t icc_length,
                        uint8_t **out, size_t *out_size, char *errbuf, size_t errbuf_size);

void wi_free(void *ptr);
