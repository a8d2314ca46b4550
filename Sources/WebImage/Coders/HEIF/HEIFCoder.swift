import CHEIF
import Foundation

/// HEIF and HEIC through libheif (Debian's 1.15, HEVC by libde265): the primary image to RGBA8
/// (10-bit sources too), alpha, the `irot`/`imir`/`clap` transforms applied by libheif as it
/// decodes (so the pixels arrive upright and the orientation is `.up`), and thumbnail decodes
/// that use the file's own embedded thumbnail when it covers the asked size. Decode only.
///
/// **Opt-in** (`ImageCodersManager.shared.addCoder(HEIFCoder())`), not a default coder, because of
/// one known gap: the pixel limit is checked on the header's `ispe` size, but libde265 allocates
/// what the HEVC stream itself declares, before libheif compares the two, so a small file can
/// cost gigabytes before the mismatch is refused (`Fuzz/Findings/`). Until the stream's SPS is
/// read and checked first, enable this coder only for trusted sources — never in front of the internet.
public struct HEIFCoder: ImageCoder {
    public init() {}

    public var coderKey: String? { "HEIFCoder" }

    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat.detect(data)
        return format == .heic || format == .heif
    }

    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        try HEIFDecoding.withPrimaryImage(data) { handle in
            let size = PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
            try options.checkPixelLimit(width: size.width, height: size.height)
            // Planned at full size: whether an embedded thumbnail covers the target is not in the header.
            let header = ImageHeader(format: ImageFormat.detect(data), pixelSize: size,
                                     hasAlpha: heif_image_handle_has_alpha_channel(handle) != 0, dataSize: data.count)
            try options.checkDecodeBudget(decodingCost(of: header, options: options))
            let target = options.targetSize(for: size)
            let source = target.flatMap { HEIFDecoding.thumbnail(of: handle, covering: $0) } ?? handle
            defer { if source != handle { heif_image_handle_release(source) } }
            var bitmap = try HEIFDecoding.rgba(of: source)
            if let target, target != bitmap.size { bitmap = bitmap.resampled(to: target) }
            return Image(bitmap: bitmap, scale: options.scaleFactor ?? 1, format: ImageFormat.detect(data),
                         originalData: target == nil ? data : nil, hasAlpha: heif_image_handle_has_alpha_channel(handle) != 0
            ).colorManaged(HEIFDecoding.colorProfile(of: handle), options: options)
        }
    }

    /// The primary image's displayed size (libheif reports it with the transforms applied).
    public func header(of data: Data) throws -> ImageHeader {
        try HEIFDecoding.withPrimaryImage(data) { handle in
            ImageHeader(format: ImageFormat.detect(data),
                        pixelSize: PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle))),
                        hasAlpha: heif_image_handle_has_alpha_channel(handle) != 0, dataSize: data.count)
        }
    }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data {
        throw ImageCoderError.encodingFailed(format, reason: "HEIFCoder decodes only")
    }
}
