#include "wi_resample.h"

#include <string.h>

#include "wi_targets.h"

// Every build, every CPU: the same float operations in the same order, so a resize gives the
// same bytes whichever code path (and however many threads) made it.
#pragma clang fp contract(off)
// The vector helpers are always inlined: their by-value vector arguments never cross a call.
#pragma clang diagnostic ignored "-Wpsabi"

// Sixteen floats: four RGBA pixels, in four SSE registers or two AVX2 ones (AVX-512 measured no
// faster: the passes wait on memory).
typedef float f16 __attribute__((ext_vector_type(16)));
typedef float f4 __attribute__((ext_vector_type(4)));
typedef int32_t i16 __attribute__((ext_vector_type(16)));
typedef uint8_t u16 __attribute__((ext_vector_type(16)));

/// Source rows the horizontal pass filters at once, side by side in one vector.
#define WI_BLOCK 4

WI_INLINE f16 load16(const float *p) { f16 v; memcpy(&v, p, sizeof v); return v; }
WI_INLINE void store16(float *p, f16 v) { memcpy(p, &v, sizeof v); }
WI_INLINE void store4(float *p, f4 v) { memcpy(p, &v, sizeof v); }

/// `v` where `mask` lanes are set, `otherwise` elsewhere.
WI_INLINE f16 select16(i16 mask, f16 v, f16 otherwise) {
    return (f16)(((i16)v & mask) | ((i16)otherwise & ~mask));
}

/// Each pixel's alpha in all four of its lanes.
WI_INLINE f16 alphas(f16 v) {
    return __builtin_shufflevector(v, v, 3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15);
}

/// `k` in the colour lanes, 1 in the alpha lanes.
WI_INLINE f16 colourOnly(f16 k) {
    const f16 one = 1;
    return __builtin_shufflevector(k, one, 0, 1, 2, 19, 4, 5, 6, 23, 8, 9, 10, 27, 12, 13, 14, 31);
}

/// The `i`th pixel (four floats) of `v`.
WI_INLINE f4 pixel(f16 v, int i) {
    switch (i) {
    case 0: return __builtin_shufflevector(v, v, 0, 1, 2, 3);
    case 1: return __builtin_shufflevector(v, v, 4, 5, 6, 7);
    case 2: return __builtin_shufflevector(v, v, 8, 9, 10, 11);
    default: return __builtin_shufflevector(v, v, 12, 13, 14, 15);
    }
}

/// Straight bytes → premultiplied floats (c·a/255, a); an opaque pixel's bytes unchanged.
/// `Bitmap.premultiplied` in Swift is the same rule for one pixel.
WI_INLINE f16 premultiplied(f16 v) {
    const f16 one = 1;
    f16 a = alphas(v);
    f16 k = select16(a == 255, one, a * (1.0f / 255.0f));
    return v * colourOnly(k);
}

/// Pixel `j` of each of `a`, `b`, `c`, `d`, side by side.
WI_INLINE f16 column(f16 a, f16 b, f16 c, f16 d, int j) {
    switch (j) {
    case 0: return __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 1, 2, 3, 16, 17, 18, 19),
                                           __builtin_shufflevector(c, d, 0, 1, 2, 3, 16, 17, 18, 19),
                                           0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    case 1: return __builtin_shufflevector(__builtin_shufflevector(a, b, 4, 5, 6, 7, 20, 21, 22, 23),
                                           __builtin_shufflevector(c, d, 4, 5, 6, 7, 20, 21, 22, 23),
                                           0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    case 2: return __builtin_shufflevector(__builtin_shufflevector(a, b, 8, 9, 10, 11, 24, 25, 26, 27),
                                           __builtin_shufflevector(c, d, 8, 9, 10, 11, 24, 25, 26, 27),
                                           0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    default: return __builtin_shufflevector(__builtin_shufflevector(a, b, 12, 13, 14, 15, 28, 29, 30, 31),
                                            __builtin_shufflevector(c, d, 12, 13, 14, 15, 28, 29, 30, 31),
                                            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    }
}

/// Four RGBA8 pixels from `row` (only `count` of them) as floats, premultiplied when asked; `all`
/// keeps the AND of their bytes (an opaque row ANDs to 255 in every alpha byte).
WI_INLINE f16 premultipliedPixels(const uint8_t *row, int32_t count, int premultiply, u16 *all) {
    u16 bytes = 255;
    if (count == 4) memcpy(&bytes, row, sizeof bytes); else memcpy(&bytes, row, 4 * (size_t)count);
    *all &= bytes;
    f16 v = __builtin_convertvector(bytes, f16);
    return premultiply ? premultiplied(v) : v;
}

/// `count` pixels of each of WI_BLOCK rows as floats (premultiplied when asked), side by side:
/// pixel i of row r at `block + 16 * i + 4 * r`, so a pixel's four rows fill one cache line.
/// `all[r]` keeps the AND of row r's bytes.
WI_INLINE void premultiplyBlock(const uint8_t *const rows[WI_BLOCK], int32_t count, int premultiply, float *block,
                                u16 all[WI_BLOCK]) {
    int32_t i = 0;
    for (; i + 4 <= count; i += 4) {
        size_t offset = 4 * (size_t)i;
        f16 a = premultipliedPixels(rows[0] + offset, 4, premultiply, &all[0]),
            b = premultipliedPixels(rows[1] + offset, 4, premultiply, &all[1]),
            c = premultipliedPixels(rows[2] + offset, 4, premultiply, &all[2]),
            d = premultipliedPixels(rows[3] + offset, 4, premultiply, &all[3]);
        float *out = block + 16 * (size_t)i;
        store16(out, column(a, b, c, d, 0));
        store16(out + 16, column(a, b, c, d, 1));
        store16(out + 32, column(a, b, c, d, 2));
        store16(out + 48, column(a, b, c, d, 3));
    }
    if (i < count) {
        int32_t n = count - i;
        size_t offset = 4 * (size_t)i;
        f16 a = premultipliedPixels(rows[0] + offset, n, premultiply, &all[0]),
            b = premultipliedPixels(rows[1] + offset, n, premultiply, &all[1]),
            c = premultipliedPixels(rows[2] + offset, n, premultiply, &all[2]),
            d = premultipliedPixels(rows[3] + offset, n, premultiply, &all[3]);
        for (int j = 0; j < n; j++) store16(block + 16 * (size_t)(i + j), column(a, b, c, d, j));
    }
}

/// The block (source column `spanStart` first) through the horizontal taps: row r of the block
/// into `out[r]`. The rows sit side by side, so one vector op applies a tap to the same pixel of
/// every row; four destination pixels go at once (independent sums, so the adds overlap), each
/// pixel's taps summed in order. A pixel with fewer taps than its neighbours adds zero-weight ones
/// (its weights are zero past its count, the block zero past the span); pixels past the row's end
/// repeat the last and land in the ring rows' padding.
WI_INLINE void filterBlock(const wi_resample_axis *h, int32_t spanStart, const float *block, float *const out[WI_BLOCK]) {
    int32_t last = h->destination - 1;
    for (int32_t x = 0; x <= last; x += 4) {
        const float *taps[4], *w[4];
        int32_t n = 0;
        for (int j = 0; j < 4; j++) {
            int32_t p = x + j < last ? x + j : last;
            taps[j] = block + 16 * (size_t)(h->starts[p] - spanStart);
            w[j] = h->weights + (size_t)p * (size_t)h->stride;
            n = h->counts[p] > n ? h->counts[p] : n;
        }
        f16 s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int32_t k = 0; k < n; k++) {
            s0 = s0 + load16(taps[0] + 16 * k) * w[0][k];
            s1 = s1 + load16(taps[1] + 16 * k) * w[1][k];
            s2 = s2 + load16(taps[2] + 16 * k) * w[2][k];
            s3 = s3 + load16(taps[3] + 16 * k) * w[3][k];
        }
        for (int r = 0; r < WI_BLOCK; r++) {
            float *row = out[r] + 4 * (size_t)x;
            store4(row, pixel(s0, r));
            store4(row + 4, pixel(s1, r));
            store4(row + 8, pixel(s2, r));
            store4(row + 12, pixel(s3, r));
        }
    }
}

/// WI_BLOCK source rows premultiplied and through the horizontal taps into `out[r]`. Sets
/// `opaque[r]` to whether every pixel of the span in row r was opaque. While blocks come out
/// opaque the next is converted without the premultiply (which leaves an opaque pixel as it is)
/// and redone if it turns out not to be.
WI_INLINE void filterRows(const wi_resample_plan *plan, const uint8_t *const rows[WI_BLOCK], float *block,
                          float *const out[WI_BLOCK], int opaque[WI_BLOCK], int *lastOpaque) {
    u16 all[WI_BLOCK] = {255, 255, 255, 255};
    premultiplyBlock(rows, plan->span_count, !*lastOpaque, block, all);
    int blockOpaque = 1;
    for (int r = 0; r < WI_BLOCK; r++) {
        opaque[r] = (all[r][3] & all[r][7] & all[r][11] & all[r][15]) == 255;
        blockOpaque &= opaque[r];
    }
    if (*lastOpaque && !blockOpaque) premultiplyBlock(rows, plan->span_count, 1, block, all);
    *lastOpaque = blockOpaque;
    filterBlock(&plan->horizontal, plan->span_start, block, out);
}

/// Premultiplied sums → straight bytes, rounded and clamped; `count` pixels of the four stored.
/// `Bitmap.straightBytes` in Swift is the same rule for one pixel.
WI_INLINE void store(f16 p, int isOpaque, uint8_t *out, int32_t count) {
    if (!isOpaque) {
        // Colour over alpha; a pixel that rounds to fully transparent stores black.
        const f16 zero = 0;
        f16 a = alphas(p);
        p = select16(a < 0.5f, zero, p * colourOnly(255 / a));
    }
    f16 t = p + 0.5f;
    const f16 top = 255, bottom = 0;
    t = select16(t < 255, t, top);
    t = select16(t >= 0, t, bottom);
    u16 bytes = __builtin_convertvector(__builtin_convertvector(t, i16), u16);
    if (count == 4) memcpy(out, &bytes, sizeof bytes); else memcpy(out, &bytes, 4 * (size_t)count);
}

/// One destination row: `rows[k]` (the horizontally filtered rows of its window) weighted by
/// `weights[k]`, two rows at a time, then stored.
WI_INLINE void sumRows(const float *const *rows, const float *weights, int32_t count, int32_t width,
                       int isOpaque, uint8_t *out) {
    for (int32_t x = 0; x < width; x += 4) {
        size_t i = 4 * (size_t)x;
        f16 acc;
        int32_t k;
        if (count >= 2) {
            acc = load16(rows[0] + i) * weights[0] + load16(rows[1] + i) * weights[1];
            k = 2;
        } else {
            acc = load16(rows[0] + i) * weights[0];
            k = 1;
        }
        for (; k + 1 < count; k += 2) {
            acc = acc + (load16(rows[k] + i) * weights[k] + load16(rows[k + 1] + i) * weights[k + 1]);
        }
        if (k < count) acc = acc + load16(rows[k] + i) * weights[k];
        store(acc, isOpaque, out + i, width - x < 4 ? width - x : 4);
    }
}

/// Ring rows hold whole groups of four pixels (both passes' step).
static size_t ringRowFloats(const wi_resample_plan *plan) {
    return (size_t)((plan->horizontal.destination + 3) / 4) * 16;
}

/// Ring rows: the widest vertical window, and the rows a block filters beyond the one needed.
static size_t ringRows(const wi_resample_plan *plan) {
    return (size_t)plan->vertical.max_count + WI_BLOCK - 1;
}

/// The block of source rows: the span, and zeros past it for the taps of a group's pixels that
/// read beyond their own.
static size_t blockFloats(const wi_resample_plan *plan) {
    return (size_t)(plan->span_count + plan->horizontal.max_count) * 4 * WI_BLOCK;
}

static size_t roundUp(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

size_t wi_resample_scratch_bytes(const wi_resample_plan *plan) {
    size_t rows = ringRows(plan);
    // The ring plus one row that takes a short block's missing rows; the block of source rows;
    // the window's row pointers; each ring row's opacity.
    return 64 + roundUp((rows + 1) * ringRowFloats(plan) * sizeof(float))
        + roundUp(blockFloats(plan) * sizeof(float))
        + roundUp(rows * sizeof(float *)) + rows;
}

WI_TARGETS
void wi_resample_rows(const wi_resample_plan *plan, int32_t first_row, int32_t end_row, void *scratch) {
    const wi_resample_axis *v = &plan->vertical;
    int32_t slots = (int32_t)ringRows(plan), width = plan->horizontal.destination;
    size_t rowFloats = ringRowFloats(plan);
    char *next = (char *)roundUp((size_t)scratch);
    float *ring = (float *)next;
    float *discard = ring + (size_t)slots * rowFloats;
    next += roundUp((size_t)(slots + 1) * rowFloats * sizeof(float));
    float *block = (float *)next;
    size_t spanFloats = (size_t)plan->span_count * 4 * WI_BLOCK;
    memset(block + spanFloats, 0, (blockFloats(plan) - spanFloats) * sizeof(float));
    next += roundUp(blockFloats(plan) * sizeof(float));
    const float **rows = (const float **)next;
    next += roundUp((size_t)slots * sizeof(float *));
    unsigned char *ringOpaque = (unsigned char *)next;

    // The source rows this band reads: from its first window's start to its farthest window's end.
    int32_t nextRow = v->starts[first_row], endRow = 0, lastOpaque = 1;
    for (int32_t y = first_row; y < end_row; y++) {
        if (v->starts[y] + v->counts[y] > endRow) endRow = v->starts[y] + v->counts[y];
    }
    for (int32_t y = first_row; y < end_row; y++) {
        int32_t start = v->starts[y], count = v->counts[y];
        // Filter the source rows this destination row needs and the ring lacks, a block at a time.
        while (nextRow < start + count) {
            int32_t n = endRow - nextRow < WI_BLOCK ? endRow - nextRow : WI_BLOCK;
            const uint8_t *source[WI_BLOCK];
            float *out[WI_BLOCK];
            int rowOpaque[WI_BLOCK];
            for (int r = 0; r < WI_BLOCK; r++) {
                // A short block at the band's end repeats its last row into a row nobody reads.
                int32_t row = nextRow + (r < n ? r : n - 1);
                source[r] = plan->source + (size_t)row * plan->source_bytes_per_row + 4 * (size_t)plan->span_start;
                out[r] = r < n ? ring + (size_t)(row % slots) * rowFloats : discard;
            }
            filterRows(plan, source, block, out, rowOpaque, &lastOpaque);
            for (int r = 0; r < n; r++) ringOpaque[(nextRow + r) % slots] = (unsigned char)rowOpaque[r];
            nextRow += n;
        }
        int isOpaque = 1;
        for (int32_t k = 0; k < count; k++) {
            int32_t slot = (start + k) % slots;
            rows[k] = ring + (size_t)slot * rowFloats;
            isOpaque &= ringOpaque[slot];
        }
        sumRows(rows, v->weights + (size_t)y * (size_t)v->stride, count, width, isOpaque,
                plan->destination + (size_t)y * plan->destination_bytes_per_row);
    }
}
