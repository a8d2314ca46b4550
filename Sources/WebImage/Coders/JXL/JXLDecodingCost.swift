extension JXLScan {
    func imageHeader(dataSize: Int) -> ImageHeader {
        ImageHeader(format: .jpegXL, pixelSize: size, orientation: orientation, frameCount: durations.count,
                    hasAlpha: hasAlpha, dataSize: dataSize)
    }
}

extension JXLCoder: FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool { format == .jpegXL }

    /// libjxl 0.7 decodes the whole image, in float: the frame's colour and extra channels as
    /// float planes, modular channels as 32-bit integers, the XYB or YCbCr intermediates, group
    /// caches and the output conversion — planned at 96 bytes a pixel. An animation also keeps up
    /// to four reference frames and a blending canvas in float. Then WebImage's RGBA canvas, the
    /// copy each frame takes of it, the previous one the collector compares with, and the output.
    /// (libjxl 0.7 allocates through malloc, not its `JxlMemoryManager`, so this plan is the bound.)
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let size = header.pixelSize
        let frames = DecodingCost.frameCount(header, options)
        let target = options.targetSize(for: size, frameCount: frames)
        let pixels = Cost.product(size.width, size.height)
        let perPixel = header.frameCount > 1 ? 96 + 5 * 16 : 96
        let libjxl = Cost.sum(Cost.product(pixels, perPixel), 4 << 20)
        let output = DecodingCost.output(decoded: size, target: target, frames: frames, header: header, options: options)
        return Cost.sum(libjxl, Cost.product(Cost.rgba(size), 3), output, header.dataSize, DecodingCost.overhead)
    }
}
