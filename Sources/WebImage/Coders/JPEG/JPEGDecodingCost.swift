/// What a libjpeg-turbo decode allocates, from the header: the output at the DCT scale the
/// decode picks, the resample and colour copies, and libjpeg's own memory — whole-image
/// coefficient arrays for a progressive or multi-scan file (2 bytes a coefficient, 64 a block, per
/// component at its sampling), row buffers, saved markers and the ICC copy.
struct JPEGDecodingCost {
    /// libjpeg's own allocations (what `max_memory_to_use` is set from).
    let libjpeg: Int
    let total: Int

    init(header: ImageHeader, options: ImageDecodeOptions) {
        let size = header.pixelSize
        let target = options.targetSize(for: size)
        let m = target.map { JPEGDecoding.dctScaleNumerator(from: size, to: $0) } ?? 8
        let decoded = PixelSize(width: (size.width * m + 7) / 8, height: (size.height * m + 7) / 8)
        let output = DecodingCost.output(decoded: decoded, target: target, frames: 1, header: header, options: options)
        libjpeg = JPEGDecodingCost.libjpeg(header)
        // CMYK files convert through a 16-row scratch in Swift.
        let cmykScratch = header.componentSampling.count == 4 ? Cost.product(decoded.width, 16 * 4) : 0
        total = Cost.sum(Cost.rgba(decoded), output, libjpeg, cmykScratch, DecodingCost.overhead)
    }

    static func libjpeg(_ header: ImageHeader) -> Int {
        let size = header.pixelSize
        // Unknown sampling: four full-size components, the most a JPEG has.
        let sampling = header.componentSampling.isEmpty
            ? [PixelSize](repeating: PixelSize(width: 1, height: 1), count: 4) : header.componentSampling
        let maxH = max(1, sampling.map(\.width).max() ?? 1)
        let maxV = max(1, sampling.map(\.height).max() ?? 1)
        let samples = header.bitDepth > 8 ? 2 : 1
        var coefficients = 0
        var rows = 0
        for component in sampling {
            let h = max(1, component.width), v = max(1, component.height)
            let blocksWide = (size.width * h + 8 * maxH - 1) / (8 * maxH)
            let blocksHigh = (size.height * v + 8 * maxV - 1) / (8 * maxV)
            // jdcoefct: the whole image's blocks, rounded up to whole MCUs.
            let roundedWide = (blocksWide + h - 1) / h * h
            let roundedHigh = (blocksHigh + v - 1) / v * v
            coefficients = Cost.sum(coefficients, Cost.product(roundedWide, roundedHigh, 64 * 2))
            // jdmainct (with context rows) and the upsampler: a few iMCU rows of full width.
            rows = Cost.sum(rows, Cost.product(roundedWide + 2, 8, v * 8, 4, samples))
        }
        // Upsampled rows for colour conversion, at full width.
        rows = Cost.sum(rows, Cost.product(size.width + 64, maxV * 8 * 2, sampling.count, samples))
        // Saved APP1/APP2 markers and the joined ICC profile are each at most the file.
        let markers = Cost.product(header.dataSize, 2)
        return Cost.sum(header.isProgressive ? coefficients : 2048, rows, markers, 256 * 1024)
    }
}

extension JPEGCoder: FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool { format == .jpeg }

    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        JPEGDecodingCost(header: header, options: options).total
    }
}
