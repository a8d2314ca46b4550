import WebImage

/// How variants are written when the URL does not say: thumbor's `QUALITY`, `WEBP_QUALITY`,
/// `AVIF_QUALITY`, `PROGRESSIVE_JPEG` and `AUTO_PNG_TO_JPG`, with thumbor's defaults.
public struct OutputDefaults: Sendable, Hashable {
    /// JPEG quality without `quality()`, 0–100. thumbor's `QUALITY`: 80.
    public var jpegQuality = 80
    /// WebP quality without `quality()`; nil = ``jpegQuality`` (thumbor's `WEBP_QUALITY`: none).
    public var webpQuality: Int?
    /// AVIF quality without `quality()`; nil = ``jpegQuality`` (thumbor's `AVIF_QUALITY`: none).
    public var avifQuality: Int?
    /// JPEG written progressive (coarse-to-fine over slow links). thumbor's `PROGRESSIVE_JPEG`: on.
    public var progressiveJPEG = true
    /// A PNG variant without transparency written as JPEG; `autojpg()` toggles it per URL.
    /// thumbor's `AUTO_PNG_TO_JPG`: off.
    public var autoPNGToJPG = false

    public init() {}

    /// The quality for `format` when the URL gives none.
    public func quality(for format: ImageFormat) -> Int {
        switch format {
        case .webp: webpQuality ?? jpegQuality
        case .avif: avifQuality ?? jpegQuality
        default: jpegQuality
        }
    }

    /// Whether a PNG without transparency becomes JPEG, for a URL whose `autojpg(...)` said
    /// `requested` (nil: no such filter). thumbor's rule: with the setting on, the filter turns it
    /// off; with it off, the filter's value decides.
    public func convertsPNGToJPEG(requested: Bool?) -> Bool {
        autoPNGToJPG ? requested == nil : requested ?? false
    }
}

extension OutputFormat {
    /// PNG written as JPEG when the PNG-to-JPEG rule holds for this URL, no `format()` asked for
    /// PNG and `variant` has no transparent pixel (thumbor's `can_auto_convert_png_to_jpg`).
    func convertingOpaquePNG(_ variant: Image, output: ThumborProcessor.Output, defaults: OutputDefaults) -> OutputFormat {
        guard format == .png, output.format == nil, defaults.convertsPNGToJPEG(requested: output.autoJPG), !variant.isAnimated,
              !variant.frames.contains(where: { $0.bitmap.containsTransparency }) else { return self }
        var converted = self
        converted.format = .jpeg
        return converted
    }
}
