extension AVIFCoder: FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool { format == .avif }

    /// libavif 0.11 has no scaled decode: each frame is a full-size AV1 picture (YUV at its
    /// depth and chroma, plus an alpha picture), converted to a full-size RGBA bitmap, then
    /// resampled. dav1d pads pictures to 128 and may keep a film-grain copy and its per-block
    /// state; a sequence keeps up to 8 reference pictures. Grid images are assembled in a
    /// full-size copy by libavif.
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let size = header.pixelSize
        let frames = DecodingCost.frameCount(header, options)
        let target = options.targetSize(for: size, frameCount: frames)
        let sampleBytes = header.bitDepth > 8 ? 2 : 1
        let yuv = DecodingCost.planeBytes(header, bytesPerSample: sampleBytes, padding: 192)
        let alpha = header.hasAlpha == false ? 0 : Cost.product(size.width + 192, size.height + 192, sampleBytes)
        let pictures = header.frameCount > 1 ? 11 : 4
        let blocks = Cost.product(size.width / 4 + 32, size.height / 4 + 32, 96)
        let av1 = Cost.sum(Cost.product(Cost.sum(yuv, alpha), pictures), blocks, Cost.product(size.width + 256, 2048))
        let output = DecodingCost.output(decoded: size, target: target, frames: frames, header: header, options: options)
        // The RGBA conversion of the frame being made, next to the kept frames.
        return Cost.sum(av1, Cost.rgba(size), output, header.dataSize, DecodingCost.overhead)
    }
}
