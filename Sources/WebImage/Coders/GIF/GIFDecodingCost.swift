extension GIFCoder: FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool { format == .gif }

    /// giflib decodes one frame's rows of palette indices at a time onto the canvas; the canvas,
    /// the copy kept for "restore to previous", the previous canvas the frame collector compares
    /// with and the copy a write makes of a canvas a frame still shares are full size. Then every
    /// output frame and one resample. GIF has no colour profile to convert.
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let size = header.pixelSize
        let frames = DecodingCost.frameCount(header, options)
        let target = options.targetSize(for: size, frameCount: frames)
        var plain = options
        plain.convertsToSRGB = false
        let output = DecodingCost.output(decoded: size, target: target, frames: frames, header: header, options: plain)
        // giflib's decoder state and one row of indices; the structure scan keeps each frame's header.
        let giflib = Cost.sum(64 * 1024, size.width, Cost.product(max(1, header.frameCount), 256))
        return Cost.sum(Cost.product(Cost.rgba(size), 4), output, giflib, DecodingCost.overhead)
    }
}
