#include "wi_png_rows.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define WI_INLINE static inline __attribute__((always_inline))

static int wi_channels(int color_type) {
    switch (color_type) {
    case 0: return 1;
    case 2: return 3;
    case 3: return 1;
    case 4: return 2;
    case 6: return 4;
    default: return 0;
    }
}

static int wi_depth_allowed(int color_type, int depth) {
    switch (color_type) {
    case 0: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    default: return depth == 8 || depth == 16;
    }
}

// ---- Unfiltering (PNG 1.2 section 9): byte loops for any bpp, one pixel a vector for 3 and 4.

static void wi_unfilter_up(uint8_t *restrict row, const uint8_t *restrict prior, size_t n) {
    for (size_t i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + prior[i]);
}

static void wi_unfilter_sub(uint8_t *row, size_t n, size_t bpp) {
    for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
}

static void wi_unfilter_avg(uint8_t *restrict row, const uint8_t *restrict prior, size_t n, size_t bpp) {
    for (size_t i = 0; i < bpp && i < n; i++) row[i] = (uint8_t)(row[i] + (prior[i] >> 1));
    for (size_t i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prior[i]) >> 1));
}

static void wi_unfilter_paeth(uint8_t *restrict row, const uint8_t *restrict prior, size_t n, size_t bpp) {
    for (size_t i = 0; i < bpp && i < n; i++) row[i] = (uint8_t)(row[i] + prior[i]);
    for (size_t i = bpp; i < n; i++) {
        int a = row[i - bpp], b = prior[i], c = prior[i - bpp];
        int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
        int predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
        row[i] = (uint8_t)(row[i] + predicted);
    }
}

#if defined(__SSE2__)
// One pixel a vector, always four bytes moved: a 3-byte pixel's fourth lane carries the next
// byte through unchanged (its lanes are masked out of every sum), so the rows need 4 bytes of slack.
WI_INLINE __m128i wi_load_pixel(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128((int)v);
}

/// Also writes the pixel as RGBA8 when `dst` is set (8-bit RGB and RGBA without a colour key):
/// the expansion pass then skips the row.
WI_INLINE void wi_emit_pixel(uint8_t *p, uint8_t *restrict dst, size_t k, __m128i v, size_t bpp) {
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(v);
    memcpy(p, &x, 4);
    if (dst) {
        if (bpp == 3) x |= 0xFF000000u;
        memcpy(dst + 4 * k, &x, 4);
    }
}

WI_INLINE __m128i wi_byte_mask(size_t bpp) { return bpp == 4 ? _mm_set1_epi8(-1) : _mm_setr_epi8(-1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0); }

WI_INLINE void wi_sub_pixels(uint8_t *row, uint8_t *restrict dst, size_t n, size_t bpp) {
    const __m128i mask = wi_byte_mask(bpp);
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0, k = 0; i < n; i += bpp, k++) {
        a = _mm_add_epi8(wi_load_pixel(row + i), _mm_and_si128(a, mask));
        wi_emit_pixel(row + i, dst, k, a, bpp);
    }
}

WI_INLINE void wi_avg_pixels(uint8_t *restrict row, const uint8_t *restrict prior, uint8_t *restrict dst, size_t n, size_t bpp) {
    const __m128i one = _mm_set1_epi8(1), mask = wi_byte_mask(bpp);
    __m128i a = _mm_setzero_si128();
    for (size_t i = 0, k = 0; i < n; i += bpp, k++) {
        __m128i b = wi_load_pixel(prior + i);
        // pavgb rounds up; the filter rounds down.
        __m128i avg = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
        a = _mm_add_epi8(wi_load_pixel(row + i), _mm_and_si128(avg, mask));
        wi_emit_pixel(row + i, dst, k, a, bpp);
    }
}

WI_INLINE __m128i wi_abs16(__m128i x) { return _mm_max_epi16(x, _mm_sub_epi16(_mm_setzero_si128(), x)); }

WI_INLINE __m128i wi_select(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

WI_INLINE void wi_paeth_pixels(uint8_t *restrict row, const uint8_t *restrict prior, uint8_t *restrict dst, size_t n, size_t bpp) {
    const __m128i zero = _mm_setzero_si128(), low = _mm_set1_epi16(0xFF);
    const __m128i mask = bpp == 4 ? _mm_set1_epi16(-1) : _mm_setr_epi16(-1, -1, -1, 0, 0, 0, 0, 0);
    __m128i a = zero, c = zero;  // left and upper-left, one sample a 16-bit lane
    for (size_t i = 0, k = 0; i < n; i += bpp, k++) {
        __m128i b = _mm_unpacklo_epi8(wi_load_pixel(prior + i), zero);
        __m128i x = _mm_unpacklo_epi8(wi_load_pixel(row + i), zero);
        __m128i pa = _mm_sub_epi16(b, c), pb = _mm_sub_epi16(a, c);
        __m128i pc = wi_abs16(_mm_add_epi16(pa, pb));
        pa = wi_abs16(pa);
        pb = wi_abs16(pb);
        __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
        // Ties go to a, then b, then c.
        __m128i nearest = wi_select(_mm_cmpeq_epi16(smallest, pa), a,
                                    wi_select(_mm_cmpeq_epi16(smallest, pb), b, c));
        a = _mm_and_si128(_mm_add_epi16(x, _mm_and_si128(nearest, mask)), low);
        c = b;
        wi_emit_pixel(row + i, dst, k, _mm_packus_epi16(a, a), bpp);
    }
}
#endif

#if defined(__SSE2__)
WI_INLINE void wi_filter_pixels(int filter, uint8_t *restrict row, const uint8_t *restrict prior, uint8_t *restrict dst, size_t n, size_t bpp) {
    switch (filter) {
    case 1: wi_sub_pixels(row, dst, n, bpp); break;
    case 3: wi_avg_pixels(row, prior, dst, n, bpp); break;
    default: wi_paeth_pixels(row, prior, dst, n, bpp); break;
    }
}
#endif

/// Undoes one row's filter in place: 0 for a filter type PNG does not define, 2 when the
/// row's RGBA8 is written to `dst` as well (only given for 8-bit RGB/RGBA without a key).
static int wi_unfilter(int filter, uint8_t *restrict row, const uint8_t *restrict prior, uint8_t *restrict dst, size_t n, size_t bpp) {
    if (filter > 4) return 0;
    if (filter == 0) return 1;
    if (filter == 2) {
        wi_unfilter_up(row, prior, n);
        return 1;
    }
#if defined(__SSE2__)
    if (bpp == 3 || bpp == 4) {
        // Each combination its own copy, so bpp and dst are constants in the pixel loop.
        if (bpp == 4 && dst) wi_filter_pixels(filter, row, prior, dst, n, 4);
        else if (bpp == 4) wi_filter_pixels(filter, row, prior, NULL, n, 4);
        else if (dst) wi_filter_pixels(filter, row, prior, dst, n, 3);
        else wi_filter_pixels(filter, row, prior, NULL, n, 3);
        return dst ? 2 : 1;
    }
#endif
    switch (filter) {
    case 1: wi_unfilter_sub(row, n, bpp); return 1;
    case 3: wi_unfilter_avg(row, prior, n, bpp); return 1;
    default: wi_unfilter_paeth(row, prior, n, bpp); return 1;
    }
}

// ---- Expansion to RGBA8, as wi_png.c's libpng transforms: palette and tRNS to alpha, gray to RGB,
// low depths scaled up, 16 bits cut to their high byte (the colour key compares all 16).

WI_INLINE unsigned wi_sample(const uint8_t *src, size_t k, int wide) {
    return wide ? (unsigned)(src[2 * k] << 8 | src[2 * k + 1]) : src[k];
}

WI_INLINE void wi_put(uint8_t *dst, unsigned r, unsigned g, unsigned b, unsigned a) {
    dst[0] = (uint8_t)r;
    dst[1] = (uint8_t)g;
    dst[2] = (uint8_t)b;
    dst[3] = (uint8_t)a;
}

static void wi_expand_rgb8(const uint8_t *restrict src, uint8_t *restrict dst, size_t w) {
    size_t k = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // Four bytes read, the fourth (the next pixel's red) replaced by opaque alpha.
    for (; k + 1 < w; k++) {
        uint32_t v;
        memcpy(&v, src + 3 * k, 4);
        v |= 0xFF000000u;
        memcpy(dst + 4 * k, &v, 4);
    }
#endif
    for (; k < w; k++) wi_put(dst + 4 * k, src[3 * k], src[3 * k + 1], src[3 * k + 2], 0xFF);
}

WI_INLINE void wi_expand_wide(const wi_png_layout *l, const uint8_t *restrict src, uint8_t *restrict dst, size_t w, int wide) {
    const unsigned mask = wide ? 0xFFFF : 0xFF, shift = wide ? 8 : 0;
    const unsigned k0 = l->key[0] & mask, k1 = l->key[1] & mask, k2 = l->key[2] & mask;
    switch (l->color_type) {
    case 6:
        if (!wide) {
            memcpy(dst, src, w * 4);
            return;
        }
        for (size_t i = 0; i < w * 4; i++) dst[i] = src[2 * i];
        return;
    case 4:
        for (size_t k = 0; k < w; k++) {
            unsigned g = wi_sample(src, 2 * k, wide) >> shift;
            wi_put(dst + 4 * k, g, g, g, wi_sample(src, 2 * k + 1, wide) >> shift);
        }
        return;
    case 2:
        if (!l->has_key && !wide) {
            wi_expand_rgb8(src, dst, w);
            return;
        }
        for (size_t k = 0; k < w; k++) {
            unsigned r = wi_sample(src, 3 * k, wide), g = wi_sample(src, 3 * k + 1, wide), b = wi_sample(src, 3 * k + 2, wide);
            unsigned a = l->has_key && r == k0 && g == k1 && b == k2 ? 0 : 0xFF;
            wi_put(dst + 4 * k, r >> shift, g >> shift, b >> shift, a);
        }
        return;
    case 0:
        for (size_t k = 0; k < w; k++) {
            unsigned v = wi_sample(src, k, wide), g = v >> shift;
            wi_put(dst + 4 * k, g, g, g, l->has_key && v == k0 ? 0 : 0xFF);
        }
        return;
    case 3:
        for (size_t k = 0; k < w; k++) memcpy(dst + 4 * k, l->palette + 4 * src[k], 4);
        return;
    }
}

/// Depths 1, 2 and 4 (gray and palette): samples packed high bits first.
static void wi_expand_packed(const wi_png_layout *l, const uint8_t *restrict src, uint8_t *restrict dst, size_t w) {
    const unsigned depth = (unsigned)l->bit_depth, mask = (1u << depth) - 1, scale = 255 / mask;
    const unsigned key = l->key[0] & mask;
    for (size_t k = 0; k < w; k++) {
        size_t bit = k * depth;
        unsigned v = (src[bit >> 3] >> (8 - depth - (bit & 7))) & mask;
        if (l->color_type == 3) {
            memcpy(dst + 4 * k, l->palette + 4 * v, 4);
        } else {
            unsigned g = v * scale;
            wi_put(dst + 4 * k, g, g, g, l->has_key && v == key ? 0 : 0xFF);
        }
    }
}

static void wi_expand(const wi_png_layout *l, const uint8_t *restrict src, uint8_t *restrict dst, size_t w) {
    if (l->bit_depth < 8) wi_expand_packed(l, src, dst, w);
    else if (l->bit_depth == 16) wi_expand_wide(l, src, dst, w, 1);
    else wi_expand_wide(l, src, dst, w, 0);
}

int wi_png_rows_decode(const wi_png_layout *l, const uint8_t *zlib, size_t zlib_size, uint8_t *rgba) {
    const int channels = wi_channels(l->color_type);
    if (!channels || !wi_depth_allowed(l->color_type, l->bit_depth) || l->width == 0 || l->height == 0) {
        return WI_PNG_ROWS_UNSUPPORTED;
    }
    const size_t w = l->width, h = l->height;
    // width < 2^32 and at most 64 bits a pixel: the row's bit count fits 64 bits.
    const uint64_t bits = (uint64_t)w * (uint64_t)channels * (uint64_t)l->bit_depth;
    const size_t rowbytes = (size_t)((bits + 7) / 8), bpp = (size_t)(channels * l->bit_depth + 7) / 8;
    size_t total;
    if (rowbytes > SIZE_MAX - 1 || __builtin_mul_overflow(rowbytes + 1, h, &total)) return WI_PNG_ROWS_NO_MEMORY;

    // Slack past the last row and the zero row: the pixel loops move four bytes at a time.
    uint8_t *raw = total <= SIZE_MAX - 4 ? malloc(total + 4) : NULL;
    uint8_t *zero = calloc(rowbytes + 4, 1);
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    int status = WI_PNG_ROWS_OK;
    if (!raw || !zero || !inflater) {
        status = WI_PNG_ROWS_NO_MEMORY;
        goto done;
    }
    size_t used = 0, produced = 0;
    switch (libdeflate_zlib_decompress_ex(inflater, zlib, zlib_size, raw, total, &used, &produced)) {
    case LIBDEFLATE_SUCCESS:
        if (produced != total) status = WI_PNG_ROWS_SHORT;
        else if (used != zlib_size) status = WI_PNG_ROWS_TRAILING;
        break;
    case LIBDEFLATE_INSUFFICIENT_SPACE: status = WI_PNG_ROWS_LONG; break;
    default: status = WI_PNG_ROWS_BAD_DATA; break;
    }
    if (status != WI_PNG_ROWS_OK) goto done;

    const int fused = l->bit_depth == 8 && (l->color_type == 6 || (l->color_type == 2 && !l->has_key));
    const uint8_t *prior = zero;
    for (size_t y = 0; y < h; y++) {
        uint8_t *row = raw + y * (rowbytes + 1), *out = rgba + y * w * 4;
        const int done = wi_unfilter(row[0], row + 1, prior, fused ? out : NULL, rowbytes, bpp);
        if (!done) {
            status = WI_PNG_ROWS_BAD_FILTER;
            goto done;
        }
        if (done != 2) wi_expand(l, row + 1, out, w);
        prior = row + 1;
    }
done:
    libdeflate_free_decompressor(inflater);
    free(zero);
    free(raw);
    return status;
}
