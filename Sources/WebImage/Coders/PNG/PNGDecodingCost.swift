import CWebImageShims
import Foundation

extension PNGCoder: FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool { format == .png }

    /// Size, frame count (APNG), bit depth, interlace, alpha and colour chunks, from the chunks
    /// before the first IDAT.
    public func header(of data: Data) throws -> ImageHeader {
        let decoder = PNGPushDecoder(maxPixelCount: .max)
        try decoder.feedUntilHeader(data)
        var header = decoder.header(frameCount: 1, dataSize: data.count)
        if let animation = APNGDecoding.animationInfo(data) {
            header.pixelSize = animation.canvasSize
            header.frameCount = animation.frameCount
        }
        return header
    }

    /// libpng decodes every row into a full-size RGBA bitmap — an Adam7 image needs all of it
    /// before the last pass anyway — then the bitmap is resampled to the target. libpng's own
    /// memory is a few rows at the source depth, zlib's window, the unread input it saves when
    /// paused, and one ancillary chunk (iCCP) up to its 8 MB chunk limit; text chunks are skipped.
    /// A plain non-interlaced stream is instead inflated whole (libdeflate): its filtered rows, up
    /// to 8 bytes a pixel, plus the joined IDAT data, which libpng's saved input would have been.
    /// An APNG keeps its canvas, the disposal copy, the frame being blended, the previous
    /// canvas and every output frame.
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let size = header.pixelSize
        let frames = DecodingCost.frameCount(header, options)
        let target = options.targetSize(for: size, frameCount: frames)
        let rows = Cost.product(size.width + 16, 8, 6)
        let inflated = Cost.product(size.height, Cost.sum(Cost.product(size.width, header.bitDepth > 8 ? 8 : 4), 1))
        let libpng = Cost.sum(rows, 8_000_000, 256 * 1024, Cost.product(header.dataSize, 2), inflated)
        let output = DecodingCost.output(decoded: size, target: target, frames: frames, header: header, options: options)
        guard frames > 1 else { return Cost.sum(Cost.rgba(size), output, libpng, DecodingCost.overhead) }
        return Cost.sum(Cost.product(Cost.rgba(size), 5), output, libpng, DecodingCost.overhead)
    }
}

extension PNGPushDecoder {
    /// What the chunks read so far say (valid once the header is ready).
    func header(frameCount: Int, dataSize: Int) -> ImageHeader {
        let hasProfile = colorProfile != nil
        return ImageHeader(
            format: .png, pixelSize: size, frameCount: frameCount,
            isInterlaced: decoderHandle.map { wi_png_is_interlaced($0) != 0 } ?? false,
            bitDepth: decoderHandle.map { Int(wi_png_bit_depth($0)) } ?? 8, hasAlpha: hasAlpha, isLossless: true,
            hasColorProfile: hasProfile, dataSize: dataSize)
    }
}
