#pragma once
#include <stddef.h>
#include <stdint.h>

/// Averages each `fx` × `fy` block of the `width` × `height` straight RGBA8 pixels at `source`
/// into one pixel of `out` (rows of ceil(width / fx) pixels, packed; edge blocks average what they
/// cover), colour weighted by alpha. `fx` and `fy` are 1...256. `column_sums` is scratch of
/// `width * 4` entries.
void wi_box_shrink(const uint8_t *source, size_t source_bytes_per_row, int32_t width, int32_t height,
                   int32_t fx, int32_t fy, uint8_t *out, uint16_t *column_sums);
