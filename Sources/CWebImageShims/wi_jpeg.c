#include "wi_jpeg.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// A progressive JPEG can carry thousands of tiny scans, each costing a full pass over the
// coefficients (a known CPU bomb). Real encoders emit at most a few dozen. The default cap when
// the caller sets none (wi_jpeg_set_limits).
#define WI_JPEG_MAX_SCANS 500

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    char first_warning[JMSG_LENGTH_MAX];
    int warnings;
    int truncated;
} wi_jpeg_error_mgr;

static void wi_jpeg_error_exit(j_common_ptr cinfo) {
    wi_jpeg_error_mgr *err = (wi_jpeg_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void wi_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace messages
    wi_jpeg_error_mgr *err = (wi_jpeg_error_mgr *)cinfo->err;
    if (err->warnings == 0) (*cinfo->err->format_message)(cinfo, err->first_warning);
    err->warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF) err->truncated = 1;
    cinfo->err->num_warnings++;
}

static void wi_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void wi_jpeg_init_error(wi_jpeg_error_mgr *err) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = wi_jpeg_error_exit;
    err->pub.emit_message = wi_jpeg_emit_message;
    err->pub.output_message = wi_jpeg_output_message;
    err->message[0] = 0;
    err->first_warning[0] = 0;
    err->warnings = 0;
    err->truncated = 0;
}

struct wi_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    wi_jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    const uint8_t *data;
    size_t size;
    int created;
    int failed;
    int started;
    int max_scans;
    int limit_hit;  // WI_JPEG_LIMIT_*
    JOCTET *icc;  // from jpeg_read_icc_profile (malloc'ed)
};

// libjpeg hands back the progress struct; the decoder that embeds it is found by its offset.
static void wi_jpeg_progress(j_common_ptr cinfo) {
    if (cinfo->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)cinfo;
        wi_jpeg_decoder *dec = (wi_jpeg_decoder *)((char *)cinfo->progress - offsetof(wi_jpeg_decoder, progress));
        // As djpeg -maxscans: any scan past the cap is refused (a sequential file has one per component).
        if (d->input_scan_number > dec->max_scans) {
            wi_jpeg_error_mgr *err = (wi_jpeg_error_mgr *)cinfo->err;
            dec->limit_hit = WI_JPEG_LIMIT_SCANS;
            snprintf(err->message, sizeof err->message,
                     "JPEG has more than %d scans", dec->max_scans);
            longjmp(err->jump, 1);
        }
    }
}

#define WI_TRAP(dec)                                   \
    do {                                               \
        if ((dec)->failed) return -1;                  \
        if (setjmp((dec)->err.jump)) {                 \
            (dec)->failed = 1;                         \
            return -1;                                 \
        }                                              \
    } while (0)

wi_jpeg_decoder *wi_jpeg_decoder_create(const uint8_t *data, size_t size) {
    wi_jpeg_decoder *dec = calloc(1, sizeof *dec);
    if (!dec) return NULL;
    dec->data = data;
    dec->size = size;
    wi_jpeg_init_error(&dec->err);
    dec->cinfo.err = &dec->err.pub;
    if (setjmp(dec->err.jump)) {
        dec->failed = 1;
        return dec;  // the caller reads the message; destroy is still safe
    }
    jpeg_create_decompress(&dec->cinfo);
    dec->created = 1;
    dec->max_scans = WI_JPEG_MAX_SCANS;
    dec->progress.progress_monitor = wi_jpeg_progress;
    dec->cinfo.progress = &dec->progress;
    return dec;
}

void wi_jpeg_set_limits(wi_jpeg_decoder *dec, long max_memory, int max_scans) {
    if (max_scans > 0) dec->max_scans = max_scans;
    // With libjpeg-turbo's jmemnobs there is no backing store: whole-image arrays that do not
    // fit in what is left of this are a libjpeg error (JERR_NO_BACKING_STORE), raised in C.
    if (dec->created && max_memory > 0) dec->cinfo.mem->max_memory_to_use = max_memory;
}

int wi_jpeg_limit_hit(const wi_jpeg_decoder *dec) {
    if (dec->limit_hit) return dec->limit_hit;
    if (dec->err.pub.msg_code == JERR_NO_BACKING_STORE || dec->err.pub.msg_code == JERR_OUT_OF_MEMORY)
        return WI_JPEG_LIMIT_MEMORY;
    return WI_JPEG_LIMIT_NONE;
}

void wi_jpeg_decoder_destroy(wi_jpeg_decoder *dec) {
    if (!dec) return;
    if (dec->created) {
        // jpeg_destroy never raises errors, but keep a trap in case a future libjpeg does.
        if (setjmp(dec->err.jump) == 0) jpeg_destroy_decompress(&dec->cinfo);
    }
    free(dec->icc);
    free(dec);
}

const char *wi_jpeg_error(const wi_jpeg_decoder *dec) { return dec->err.message; }
int wi_jpeg_warning_count(const wi_jpeg_decoder *dec) { return dec->err.warnings; }
const char *wi_jpeg_first_warning(const wi_jpeg_decoder *dec) { return dec->err.first_warning; }
int wi_jpeg_truncated(const wi_jpeg_decoder *dec) { return dec->err.truncated; }

int wi_jpeg_read_header(wi_jpeg_decoder *dec, wi_jpeg_header *header) {
    WI_TRAP(dec);
    jpeg_mem_src(&dec->cinfo, dec->data, (unsigned long)dec->size);
    jpeg_save_markers(&dec->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&dec->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&dec->cinfo, TRUE);
    memset(header, 0, sizeof *header);
    header->width = dec->cinfo.image_width;
    header->height = dec->cinfo.image_height;
    header->components = dec->cinfo.num_components;
    header->is_cmyk = dec->cinfo.jpeg_color_space == JCS_CMYK || dec->cinfo.jpeg_color_space == JCS_YCCK;
    header->is_grayscale = dec->cinfo.jpeg_color_space == JCS_GRAYSCALE;
    header->is_progressive = dec->cinfo.progressive_mode;
    // libjpeg keeps every coefficient of the image when it cannot emit rows scan by scan.
    header->is_multi_scan = dec->cinfo.progressive_mode || dec->cinfo.comps_in_scan < dec->cinfo.num_components;
    header->data_precision = dec->cinfo.data_precision;
    for (int c = 0; c < dec->cinfo.num_components && c < 4; c++) {
        header->h_samp[c] = dec->cinfo.comp_info[c].h_samp_factor;
        header->v_samp[c] = dec->cinfo.comp_info[c].v_samp_factor;
    }
    header->adobe_inverted = dec->cinfo.saw_Adobe_marker;
    for (jpeg_saved_marker_ptr m = dec->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            header->exif = m->data;
            header->exif_length = m->data_length;
            break;
        }
    }
    // A profile split over APP2 markers in the wrong order or with gaps is a warning, not an
    // error: libjpeg-turbo returns FALSE and the image decodes without it.
    unsigned int icc_length = 0;
    free(dec->icc);
    dec->icc = NULL;
    if (jpeg_read_icc_profile(&dec->cinfo, &dec->icc, &icc_length)) {
        header->icc = dec->icc;
        header->icc_length = icc_length;
    }
    return 0;
}

int wi_jpeg_start(wi_jpeg_decoder *dec, unsigned scale_num, int want_cmyk,
                  uint32_t *out_width, uint32_t *out_height) {
    WI_TRAP(dec);
    dec->cinfo.scale_num = scale_num;
    dec->cinfo.scale_denom = 8;
    dec->cinfo.out_color_space = want_cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(&dec->cinfo);
    dec->started = 1;
    *out_width = dec->cinfo.output_width;
    *out_height = dec->cinfo.output_height;
    return 0;
}

int wi_jpeg_read_rows(wi_jpeg_decoder *dec, uint8_t *dst, size_t stride, uint32_t max_rows,
                      uint32_t *rows_read) {
    *rows_read = 0;
    WI_TRAP(dec);
    JSAMPROW rows[16];
    uint32_t done = 0;
    while (done < max_rows && dec->cinfo.output_scanline < dec->cinfo.output_height) {
        uint32_t batch = max_rows - done;
        if (batch > 16) batch = 16;
        for (uint32_t i = 0; i < batch; i++) rows[i] = dst + (size_t)(done + i) * stride;
        JDIMENSION n = jpeg_read_scanlines(&dec->cinfo, rows, batch);
        if (n == 0) break;
        done += n;
        *rows_read = done;
    }
    return 0;
}

int wi_jpeg_finish(wi_jpeg_decoder *dec) {
    WI_TRAP(dec);
    if (dec->started) {
        // Skips any rows the caller did not read (a thumbnail may stop early) and the trailer.
        if (dec->cinfo.output_scanline < dec->cinfo.output_height) {
            jpeg_abort_decompress(&dec->cinfo);
        } else {
            jpeg_finish_decompress(&dec->cinfo);
        }
    }
    return 0;
}

// A growable memory destination we own, so an error half-way never leaves a dangling buffer.
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
} wi_jpeg_dest;

static void wi_dest_init(j_compress_ptr cinfo) { (void)cinfo; }

static boolean wi_dest_empty(j_compress_ptr cinfo) {
    wi_jpeg_dest *dest = (wi_jpeg_dest *)cinfo->dest;
    size_t used = dest->capacity;
    size_t grown = dest->capacity * 2;
    uint8_t *bigger = realloc(dest->buffer, grown);
    if (!bigger) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    dest->buffer = bigger;
    dest->capacity = grown;
    dest->pub.next_output_byte = bigger + used;
    dest->pub.free_in_buffer = grown - used;
    return TRUE;
}

static void wi_dest_term(j_compress_ptr cinfo) { (void)cinfo; }

typedef struct {
    struct jpeg_compress_struct cinfo;
    wi_jpeg_error_mgr err;
    wi_jpeg_dest dest;
} wi_jpeg_encoder;

int wi_jpeg_encode_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                        int quality, int progressive, const uint8_t *icc, size_t icc_length,
                        uint8_t **out, size_t *out_size, char *errbuf, size_t errbuf_size) {
    *out = NULL;
    *out_size = 0;
    // Heap state: everything touched between setjmp and a longjmp lives behind this pointer,
    // so nothing depends on the value of a non-volatile local after the jump.
    wi_jpeg_encoder *enc = calloc(1, sizeof *enc);
    if (!enc) {
        snprintf(errbuf, errbuf_size, "out of memory");
        return -1;
    }
    wi_jpeg_init_error(&enc->err);
    enc->cinfo.err = &enc->err.pub;
    if (setjmp(enc->err.jump)) {
        snprintf(errbuf, errbuf_size, "%s", enc->err.message);
        jpeg_destroy_compress(&enc->cinfo);
        free(enc->dest.buffer);
        free(enc);
        return -1;
    }
    jpeg_create_compress(&enc->cinfo);
    enc->dest.capacity = 64 * 1024;
    enc->dest.buffer = malloc(enc->dest.capacity);
    if (!enc->dest.buffer) ERREXIT1(&enc->cinfo, JERR_OUT_OF_MEMORY, 11);
    enc->dest.pub.init_destination = wi_dest_init;
    enc->dest.pub.empty_output_buffer = wi_dest_empty;
    enc->dest.pub.term_destination = wi_dest_term;
    enc->dest.pub.next_output_byte = enc->dest.buffer;
    enc->dest.pub.free_in_buffer = enc->dest.capacity;
    enc->cinfo.dest = &enc->dest.pub;

    enc->cinfo.image_width = width;
    enc->cinfo.image_height = height;
    enc->cinfo.input_components = 4;
    enc->cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&enc->cinfo);
    jpeg_set_quality(&enc->cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&enc->cinfo);
    jpeg_start_compress(&enc->cinfo, TRUE);
    if (icc && icc_length > 0) jpeg_write_icc_profile(&enc->cinfo, icc, (unsigned int)icc_length);
    while (enc->cinfo.next_scanline < enc->cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)enc->cinfo.next_scanline * stride);
        jpeg_write_scanlines(&enc->cinfo, &row, 1);
    }
    jpeg_finish_compress(&enc->cinfo);
    *out_size = enc->dest.capacity - enc->dest.pub.free_in_buffer;
    *out = enc->dest.buffer;
    jpeg_destroy_compress(&enc->cinfo);
    free(enc);
    return 0;
}

void wi_free(void *ptr) { free(ptr); }
