import Foundation

extension ImageCoder {
    /// For a coder that does not plan its own decodes: every frame at full size four times over
    /// (decoder canvas, a copy, the kept frame, its colour conversion), the resample to the
    /// target, and twice the encoded bytes for metadata copies.
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let frames = options.decodeFirstFrameOnly ? 1 : max(1, header.frameCount)
        let full = Cost.rgba(header.pixelSize)
        let target = options.targetSize(for: header.pixelSize, frameCount: frames) ?? header.pixelSize
        return Cost.sum(Cost.product(full, 4, frames), Bitmap.resamplingCost(from: header.pixelSize, to: target),
                        Cost.product(header.dataSize, 2), DecodingCost.overhead)
    }
}

/// The parts every coder's plan shares.
enum DecodingCost {
    /// Per decode: Swift and codec bookkeeping, small tables, allocator rounding of big blocks.
    static let overhead = 1 << 20

    /// What the decoded pixels cost after the codec is done with them: `frames` kept at
    /// `target` (or `decoded` when there is none), one resample from `decoded` to the target, and
    /// the sRGB conversion, which makes a new copy of every frame while the old ones still live.
    static func output(decoded: PixelSize, target: PixelSize?, frames: Int, header: ImageHeader, options: ImageDecodeOptions) -> Int {
        let kept = Cost.product(Cost.rgba(target ?? decoded), max(1, frames))
        let resample = target.map { Bitmap.resamplingCost(from: decoded, to: $0) } ?? 0
        let converts = options.convertsToSRGB && header.hasColorProfile != false
        return Cost.sum(kept, resample, converts ? kept : 0)
    }

    /// The frames a decode keeps: one with ``ImageDecodeOptions/decodeFirstFrameOnly``.
    static func frameCount(_ header: ImageHeader, _ options: ImageDecodeOptions) -> Int {
        options.decodeFirstFrameOnly ? 1 : max(1, header.frameCount)
    }

    /// Bytes of one coded plane set (YUV or JPEG components) at `bytesPerSample`, from the
    /// header's sampling factors; three full-size planes when it gives none.
    static func planeBytes(_ header: ImageHeader, bytesPerSample: Int, padding: Int = 0) -> Int {
        let size = header.pixelSize
        let sampling = header.componentSampling.isEmpty ? [PixelSize](repeating: PixelSize(width: 1, height: 1), count: 3) : header.componentSampling
        let maxH = max(1, sampling.map(\.width).max() ?? 1)
        let maxV = max(1, sampling.map(\.height).max() ?? 1)
        var total = 0
        for plane in sampling {
            let w = (size.width * max(1, plane.width) + maxH - 1) / maxH + padding
            let h = (size.height * max(1, plane.height) + maxV - 1) / maxV + padding
            total = Cost.sum(total, Cost.product(w, h, bytesPerSample))
        }
        return total
    }
}

extension ImageCodersManager {
    /// The peak bytes decoding an image with `header` under `options` allocates, planned by the
    /// coder for `header.format` (see ``ImageCoder/decodingCost(of:options:)``); for a format no
    /// coder claims, the generic plan.
    public func decodingCost(of header: ImageHeader, options: ImageDecodeOptions = .default) -> Int {
        let coder = allCoders.reversed().first { ($0 as? any FormatClaiming)?.decodes(header.format) == true }
        guard let coder else { return GenericDecodingCost().decodingCost(of: header, options: options) }
        return coder.decodingCost(of: header, options: options)
    }
}

/// A coder that can tell from an ``ImageFormat`` alone whether it decodes it (the cost plan has a
/// header, not bytes, to pick a coder by).
protocol FormatClaiming {
    func decodes(_ format: ImageFormat) -> Bool
}

/// Only the protocol's default plan.
private struct GenericDecodingCost: ImageCoder {
    func canDecode(_ data: Data) -> Bool { false }
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image { throw ImageCoderError.emptyData }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data { throw ImageCoderError.emptyData }
}
