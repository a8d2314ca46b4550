#pragma once
#include <stddef.h>
#include <stdint.h>

/// One axis of a separable filter: destination index i reads `counts[i]` source pixels from
/// `starts[i]` on, weighted by `weights[i * stride + k]` (zero past `counts[i]`). Starts never decrease.
typedef struct wi_resample_axis {
    const int32_t *starts;
    const int32_t *counts;
    const float *weights;
    int32_t stride;
    int32_t destination;
    int32_t max_count;
} wi_resample_axis;

/// A resample of straight RGBA8 rows to straight RGBA8 rows, filtered premultiplied in float.
typedef struct wi_resample_plan {
    const uint8_t *source;
    size_t source_bytes_per_row;
    /// The source columns the horizontal taps read: [span_start, span_start + span_count).
    int32_t span_start;
    int32_t span_count;
    wi_resample_axis horizontal;
    wi_resample_axis vertical;
    uint8_t *destination;
    size_t destination_bytes_per_row;
} wi_resample_plan;

/// Bytes of scratch memory one `wi_resample_rows` call needs.
size_t wi_resample_scratch_bytes(const wi_resample_plan *plan);

/// Makes destination rows [first_row, end_row). Calls on disjoint row ranges may run at once, each
/// with scratch of its own; every row comes out the same whichever call makes it.
void wi_resample_rows(const wi_resample_plan *plan, int32_t first_row, int32_t end_row, void *scratch);
