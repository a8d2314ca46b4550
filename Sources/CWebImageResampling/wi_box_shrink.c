#include "wi_box_shrink.h"

#include <string.h>

#include "wi_targets.h"

typedef uint32_t u4 __attribute__((ext_vector_type(4)));
typedef uint16_t h4 __attribute__((ext_vector_type(4)));
typedef double d4 __attribute__((ext_vector_type(4)));
typedef uint8_t b4 __attribute__((ext_vector_type(4)));

/// `(sum + count / 2) / count` per lane, exactly: sums stay below 2^25, so a double's quotient is
/// within 2^-28 of the true one and truncates to the same integer.
WI_INLINE u4 roundedQuotient(u4 sum, uint32_t count) {
    d4 q = __builtin_convertvector(sum + count / 2, d4) / (double)count;
    return __builtin_convertvector(q, u4);
}

/// The block's colour weighted by alpha (Σ c·a / Σ a), so transparent pixels' colour does not
/// leak into the average; alpha is the plain mean.
static u4 alphaWeighted(const uint8_t *block, size_t bytesPerRow, int32_t columns, int32_t rows, uint32_t count) {
    u4 weighted = 0;
    for (int32_t y = 0; y < rows; y++) {
        const uint8_t *row = block + (size_t)y * bytesPerRow;
        for (int32_t x = 0; x < columns; x++) {
            b4 bytes;
            memcpy(&bytes, row + 4 * (size_t)x, 4);
            u4 p = __builtin_convertvector(bytes, u4);
            weighted += p * (u4){p.w, p.w, p.w, 1};
        }
    }
    uint32_t alphaSum = weighted.w;
    u4 pixel = 0;
    if (alphaSum != 0) {
        for (int c = 0; c < 3; c++) pixel[c] = (weighted[c] + alphaSum / 2) / alphaSum;
    }
    pixel.w = (alphaSum + count / 2) / count;
    return pixel;
}

WI_TARGETS
void wi_box_shrink(const uint8_t *source, size_t source_bytes_per_row, int32_t width, int32_t height,
                   int32_t fx, int32_t fy, uint8_t *out, uint16_t *column_sums) {
    int32_t outWidth = (width + fx - 1) / fx, outHeight = (height + fy - 1) / fy;
    size_t rowBytes = 4 * (size_t)width;
    for (int32_t oy = 0; oy < outHeight; oy++) {
        int32_t y0 = oy * fy, rows = height - y0 < fy ? height - y0 : fy;
        // Plain per-channel column sums of the band (at most 256 × 255: 16 bits), a loop over
        // bytes that vectorises. Blocks whose alpha sum says "all opaque" are done from these;
        // the rest are summed again weighted by alpha, so no transparency scan is needed.
        const uint8_t *band = source + (size_t)y0 * source_bytes_per_row;
        for (size_t i = 0; i < rowBytes; i++) column_sums[i] = band[i];
        for (int32_t y = 1; y < rows; y++) {
            const uint8_t *row = band + (size_t)y * source_bytes_per_row;
            for (size_t i = 0; i < rowBytes; i++) column_sums[i] = (uint16_t)(column_sums[i] + row[i]);
        }
        uint8_t *dst = out + (size_t)oy * (size_t)outWidth * 4;
        for (int32_t ox = 0; ox < outWidth; ox++) {
            int32_t first = ox * fx, columns = width - first < fx ? width - first : fx;
            u4 sum = 0;
            for (int32_t x = first; x < first + columns; x++) {
                h4 sums;
                memcpy(&sums, column_sums + 4 * (size_t)x, sizeof sums);
                sum += __builtin_convertvector(sums, u4);
            }
            uint32_t count = (uint32_t)(columns * rows);
            u4 pixel = sum.w == 255 * count
                ? roundedQuotient(sum, count)
                : alphaWeighted(band + 4 * (size_t)first, source_bytes_per_row, columns, rows, count);
            b4 bytes = __builtin_convertvector(pixel, b4);
            memcpy(dst + 4 * (size_t)ox, &bytes, 4);
        }
    }
}
