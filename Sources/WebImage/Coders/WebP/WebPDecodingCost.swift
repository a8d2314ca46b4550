import CWebP

enum WebPDecodingCost {
    /// The header facts a plan needs, from the bitstream features and the RIFF chunks.
    static func header(_ bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures, frameCount: Int) -> ImageHeader {
        ImageHeader(
            format: .webp, pixelSize: PixelSize(width: Int(features.width), height: Int(features.height)),
            orientation: WebPMetadata.orientation(in: bytes), frameCount: frameCount,
            hasAlpha: features.has_alpha != 0,
            // 1 lossy, 2 lossless, 0 mixed (an animation can hold both).
            isLossless: features.format == 1 ? false : (features.format == 2 ? true : nil),
            hasColorProfile: WebPMetadata.colorProfile(in: bytes) != nil, dataSize: bytes.count)
    }

    /// libwebp's own memory for one picture of `size` decoded to `output`: lossy VP8 keeps a few
    /// macroblock rows (and the scaler's rows); alpha is a full-size plane, plus a full-size ARGB
    /// buffer when it is coded losslessly; lossless VP8L decodes through a full-size ARGB buffer
    /// and its transforms, and allocates every Huffman group's tables up front (up to 20 KB each,
    /// 65,536 groups, each needing at least 20 bits of the file).
    static func libwebp(_ header: ImageHeader, size: PixelSize, output: PixelSize) -> Int {
        let pixels = Cost.product(size.width, size.height)
        var total = Cost.sum(512 * 1024, Cost.product(size.width + 64, 256), Cost.product(output.width + 64, 64))
        if header.isLossless != false {
            let metaBlocks = Cost.product((size.width + 3) / 4, (size.height + 3) / 4)
            let groups = min(65536, metaBlocks, header.dataSize * 2 / 5 + 1)
            total = Cost.sum(total, Cost.product(pixels, 8), Cost.product(groups, 5002 * 4))
        }
        if header.hasAlpha != false { total = Cost.sum(total, Cost.product(pixels, 6)) }
        return total
    }
}

extension WebPCoder: FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool { format == .webp }

    /// A still decodes straight to the target through libwebp's scaler (no full-size bitmap); an
    /// animation is composited by libwebpdemux on its canvas (plus the previous one for
    /// disposal), each canvas copied out, kept as the collector's previous, then resampled.
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let size = header.pixelSize
        let frames = DecodingCost.frameCount(header, options)
        let target = options.targetSize(for: size, frameCount: frames)
        // An animation (even of one frame) has no single bitstream format; unknown counts as one.
        if header.frameCount <= 1 && header.isLossless != nil {
            let output = DecodingCost.output(decoded: target ?? size, target: nil, frames: 1, header: header, options: options)
            return Cost.sum(output, WebPDecodingCost.libwebp(header, size: size, output: target ?? size), DecodingCost.overhead)
        }
        let output = DecodingCost.output(decoded: size, target: target, frames: frames, header: header, options: options)
        return Cost.sum(Cost.product(Cost.rgba(size), 4), output, WebPDecodingCost.libwebp(header, size: size, output: size),
                        DecodingCost.overhead)
    }
}
