extension HEIFCoder: FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool { format == .heic || format == .heif }

    /// libheif 1.15 decodes the primary image at full size (an embedded thumbnail, when one
    /// covers the target, costs less): libde265's padded pictures and per-block state, libheif's
    /// copy, a grid image's full-size canvas, the colour conversion chain (4:2:0 → 4:4:4 → RGB →
    /// interleaved RGBA) and, with alpha, a second HEVC picture — planned at 2 bytes a sample,
    /// since the header does not give the depth. Then WebImage's copy, the resample and colour.
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let size = header.pixelSize
        let target = options.targetSize(for: size)
        let pixels = Cost.product(size.width + 64, size.height + 64)
        let perPixel = 48 + (header.hasAlpha == false ? 0 : 16)
        let libheif = Cost.sum(Cost.product(pixels, perPixel), 4 << 20)
        let output = DecodingCost.output(decoded: size, target: target, frames: 1, header: header, options: options)
        return Cost.sum(libheif, Cost.rgba(size), output, header.dataSize, DecodingCost.overhead)
    }
}
