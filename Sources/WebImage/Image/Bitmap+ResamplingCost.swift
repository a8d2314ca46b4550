extension Bitmap {
    /// The most bytes ``resampled(to:)`` allocates to scale a `source`-sized bitmap to
    /// `destination`, the result included: the box-shrunk intermediate of a big reduction, the
    /// filter taps, and per band of rows made at once its ring of filtered rows and a block of
    /// source rows; and the output. 0 when the sizes are equal (no work). Mirrors `Bitmap+Resampling.swift`
    /// and `wi_resample.c`; change them together.
    public static func resamplingCost(from source: PixelSize, to destination: PixelSize) -> Int {
        guard source != destination, !source.isEmpty, !destination.isEmpty else { return 0 }
        var total = Cost.rgba(destination)
        var filtered = source
        let fx = boxFactor(Double(source.width) / Double(destination.width))
        let fy = boxFactor(Double(source.height) / Double(destination.height))
        if fx > 1 || fy > 1 {
            filtered = PixelSize(width: (source.width + fx - 1) / fx, height: (source.height + fy - 1) / fy)
            // The shrunk bitmap and one row of 16-bit column sums.
            total = Cost.sum(total, Cost.rgba(filtered), Cost.product(source.width, 8))
        }
        let strideX = tapStride(source: filtered.width, destination: destination.width)
        let strideY = tapStride(source: filtered.height, destination: destination.height)
        // Taps: starts and counts and weights (Float) per destination index, both axes.
        let taps = Cost.sum(Cost.product(destination.width, 16 + strideX * 4), Cost.product(destination.height, 16 + strideY * 4))
        // Per band: ring rows (the widest window and three more, padded to groups of four pixels,
        // and one to discard into), four premultiplied source rows side by side, all RGBA floats,
        // and a pointer and a flag per ring row.
        let ringRows = strideY + 4
        let band = Cost.sum(Cost.product(ringRows, (destination.width + 3) / 4 * 4, 16),
                            Cost.product(Cost.sum(filtered.width, strideX), 64), Cost.product(ringRows, 9), 256)
        let bandsAtOnce = min(resamplingBands(destination), ImageWorkQueue.defaultWidth)
        return Cost.sum(total, taps, Cost.product(band, bandsAtOnce), 4096)
    }

    /// Filter taps per output pixel on one axis (`FilterTaps.stride`).
    private static func tapStride(source: Int, destination: Int) -> Int {
        let support = 2 * max(Double(source) / Double(destination), 1)
        return Int(support.rounded(.up)) * 2 + 3
    }
}

/// Saturating byte arithmetic for cost plans: a hostile header's sizes may overflow `Int`, and a
/// plan of `Int.max` still refuses the decode.
enum Cost {
    static func product(_ values: Int...) -> Int {
        var result = 1
        for value in values {
            let (next, overflow) = result.multipliedReportingOverflow(by: max(0, value))
            if overflow { return .max }
            result = next
        }
        return result
    }

    static func sum(_ values: Int...) -> Int {
        var result = 0
        for value in values {
            let (next, overflow) = result.addingReportingOverflow(max(0, value))
            if overflow { return .max }
            result = next
        }
        return result
    }

    static func rgba(_ size: PixelSize) -> Int { product(size.width, size.height, Bitmap.bytesPerPixel) }
}
