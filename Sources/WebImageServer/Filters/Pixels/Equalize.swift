import WebImage

/// thumbor's `equalize()` (`ext/filters/_equalize.c`): histogram equalisation of each colour
/// channel, `(cdf(v) − cdfMin) / (pixels − cdfMin) × 255` in single-precision floats, truncated.
/// Kept from the C code: the search for `cdfMin` stops at the first value any channel has, so a
/// channel whose darkest value is brighter than another's keeps `cdfMin` 0. A channel of one value
/// (0 / 0) becomes 0, as the C code's NaN-to-byte conversion makes on x86.
struct EqualizeTransformer: ImageTransformer {
    var transformerKey: String { "Equalize" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        image.rewritingPixels { pixels, _, _ in
            Self.tables(for: UnsafeBufferPointer(pixels)).apply(to: pixels)
        }
    }

    /// The three channels' tables from the histogram of `pixels`.
    static func tables(for pixels: UnsafeBufferPointer<UInt8>) -> ChannelTables {
        var histograms = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
        for channel in 0..<3 {
            histograms[channel].withUnsafeMutableBufferPointer { histogram in
                var i = channel
                while i < pixels.count {
                    histogram[Int(pixels[i])] += 1
                    i += 4
                }
            }
        }
        // The cumulative count at each value the channel has; 0 where it has none.
        let cumulative = histograms.map { histogram in
            var total = 0
            return histogram.map { count in
                total += count
                return count > 0 ? total : 0
            }
        }
        var minimum = [0, 0, 0]
        var value = 0
        while minimum == [0, 0, 0], value < 256 {
            for channel in 0..<3 where cumulative[channel][value] != 0 { minimum[channel] = cumulative[channel][value] }
            value += 1
        }
        let area = pixels.count / 4
        return ChannelTables { channel, v in
            let color = (Float(cumulative[channel][v]) - Float(minimum[channel])) / Float(area - minimum[channel]) * 255
            // A C float-to-unsigned-char store: truncated, NaN (and anything out of range) as x86 makes it.
            guard color == color, color > -1, color < 256 else { return 0 }
            return UInt8(color)
        }
    }
}
