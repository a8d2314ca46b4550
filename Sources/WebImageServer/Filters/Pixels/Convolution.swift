import WebImage

/// thumbor's `convolution(matrix,columns[,normalize])` (`ext/filters/_convolution.c`): every
/// channel (alpha too, when the image has it) is the kernel's weighted sum of its neighbourhood,
/// edges repeated, summed in doubles in the kernel's order, truncated and clamped.
struct ConvolutionTransformer: ImageTransformer {
    let kernel: ConvolutionKernel

    var transformerKey: String { "Convolution(\(kernel.columns),\(kernel.weights))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        let convolvesAlpha = image.hasAlpha
        return image.rewritingPixels { pixels, width, height in
            guard width > 0, height > 0 else { return }
            let source = [UInt8](pixels)
            source.withUnsafeBufferPointer { source in
                kernel.weights.withUnsafeBufferPointer { weights in
                    convolve(source, into: pixels, width: width, height: height, weights: weights, alpha: convolvesAlpha)
                }
            }
        }
    }

    /// Each output row sums, per kernel term in order, a whole source row shifted by the term's
    /// column: the rows in the kernel's window are kept as doubles, padded with their edge pixels,
    /// so the inner loop is a multiply-add per byte with no edge cases, four terms a pass.
    private func convolve(_ source: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>,
                          width: Int, height: Int, weights: UnsafeBufferPointer<Double>, alpha: Bool) {
        let (columns, rows) = (kernel.columns, kernel.rows)
        let rowBytes = width * 4
        let padded = (width + columns - 1) * 4
        // Source row `r` lives in slot `r % slots`: a window of `slots` consecutive rows never collides.
        let slots = min(rows, height)
        var window = [Double](repeating: 0, count: slots * padded)
        var held = [Int](repeating: -1, count: slots)
        var sums = [Double](repeating: 0, count: rowBytes)
        window.withUnsafeMutableBufferPointer { window in
            sums.withUnsafeMutableBufferPointer { sums in
                guard let base = window.baseAddress, let sums = sums.baseAddress else { return }
                // Where term t's shifted row starts, for the output row at hand.
                var terms = [UnsafeMutablePointer<Double>](repeating: base, count: weights.count)
                for y in 0..<height {
                    for ky in 0..<rows {
                        let sourceRow = min(max(y + ky - rows / 2, 0), height - 1)
                        let row = base + (sourceRow % slots) * padded
                        if held[sourceRow % slots] != sourceRow {
                            Self.load(row: sourceRow, of: source, width: width, margin: columns / 2, into: row)
                            held[sourceRow % slots] = sourceRow
                        }
                        for kx in 0..<columns { terms[ky * columns + kx] = row + kx * 4 }
                    }
                    sums.update(repeating: 0, count: rowBytes)
                    var t = 0
                    // Four terms a pass, added one after another: the same sums, in the same order.
                    while t + 4 <= weights.count {
                        let (a, b, c, d) = (terms[t], terms[t + 1], terms[t + 2], terms[t + 3])
                        let (wa, wb, wc, wd) = (weights[t], weights[t + 1], weights[t + 2], weights[t + 3])
                        for i in 0..<rowBytes { sums[i] = sums[i] + a[i] * wa + b[i] * wb + c[i] * wc + d[i] * wd }
                        t += 4
                    }
                    while t < weights.count {
                        let (a, wa) = (terms[t], weights[t])
                        for i in 0..<rowBytes { sums[i] += a[i] * wa }
                        t += 1
                    }
                    let outputRow = y * rowBytes
                    var i = 0
                    while i < rowBytes {
                        output[outputRow + i] = truncatedChannel(sums[i])
                        output[outputRow + i + 1] = truncatedChannel(sums[i + 1])
                        output[outputRow + i + 2] = truncatedChannel(sums[i + 2])
                        if alpha { output[outputRow + i + 3] = truncatedChannel(sums[i + 3]) }
                        i += 4
                    }
                }
            }
        }
    }

    /// Source row `row` as doubles, with `margin` copies of its first and last pixel on either side.
    private static func load(row: Int, of source: UnsafeBufferPointer<UInt8>, width: Int, margin: Int,
                             into output: UnsafeMutablePointer<Double>) {
        let start = row * width * 4
        for x in 0..<(width + 2 * margin) {
            let pixel = start + min(max(x - margin, 0), width - 1) * 4
            for c in 0..<4 { output[x * 4 + c] = Double(source[pixel + c]) }
        }
    }
}

/// A convolution kernel as thumbor accepts it: an odd number of terms whose column count divides
/// it (so rows and columns are odd, with a centre), normalised by their sum unless told not to or
/// the sum is 0.
struct ConvolutionKernel: Sendable, Hashable {
    /// Row by row.
    let weights: [Double]
    let columns: Int
    var rows: Int { weights.count / columns }

    /// The most rows or columns a kernel may have: its cost is one pass over the image per term,
    /// and the rows it reads at once stay in cache.
    static let maximumSide = 25
    static let maximumTerms = maximumSide * maximumSide

    /// thumbor's kernel from `terms`, or nil where its C code refuses one (an even count, a column
    /// count that does not divide it) or it is wider or taller than ``maximumSide``.
    init?(terms: [Double], columns: Int, normalized: Bool) {
        guard (1...Self.maximumSide).contains(columns), (1...Self.maximumTerms).contains(terms.count), terms.count % 2 == 1,
              terms.count % columns == 0, terms.count / columns <= Self.maximumSide
        else { return nil }
        var sum = 0.0
        for term in terms { sum += term }
        weights = normalized && sum != 0 ? terms.map { $0 / sum } : terms
        self.columns = columns
    }

    /// `-?\d+(\.\d*)?` terms joined by `;` (thumbor's matrix grammar), at most ``maximumTerms`` of
    /// them, each part at most 9 digits; nil otherwise, found before any term is kept.
    static func parseTerms(_ text: String) -> [Double]? {
        guard text.utf8.lazy.filter({ $0 == UInt8(ascii: ";") }).count < maximumTerms else { return nil }
        var terms: [Double] = []
        for part in text.split(separator: ";", omittingEmptySubsequences: false) {
            var body = part
            if body.first == "-" { body = body.dropFirst() }
            let pieces = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            guard let whole = pieces.first, !whole.isEmpty,
                  pieces.allSatisfy({ $0.count <= FilterArgument.maximumDigits && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                  let value = Double(part.hasSuffix(".") ? part + "0" : part)
            else { return nil }
            terms.append(value)
        }
        return terms
    }
}
