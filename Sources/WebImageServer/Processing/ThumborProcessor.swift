import Foundation
import Logging
import WebImage

/// Turns a decoded source into the variant a thumbor path asks for, with WebImage's transformers:
/// `trim` first, then geometry (``ThumborGeometry``: crop box, then scale), flips, then the filters
/// in the order given.
///
/// Filters understood: `format(jpeg|png|webp|gif|avif)`, `quality(0–100)`, `blur(radius[,sigma])`,
/// `rotate(degrees)` (whole multiples of 90 modulo 360, counter-clockwise, as thumbor), `round_corner(a[|b],r,g,b[,1])`
/// (one radius; `1` = transparent corners), `fill(color|transparent)` (flattens transparency onto the
/// colour), `grayscale()`, `no_upscale()`, `upscale()`, `strip_icc()` and `strip_exif()` (WebImage's
/// encoders write neither, so both always hold), `max_bytes(n)` (lower quality until the output
/// fits). Any other filter is ignored with a log line, as thumbor does.
public struct ThumborProcessor: Sendable {
    /// What the request asked of the encoder.
    public struct Output: Sendable, Hashable {
        /// `format(...)`, or nil for the negotiated one.
        public var format: ImageFormat?
        public var quality: Int?
        public var maxBytes: Int?
    }

    let path: ThumborPath
    let logger: Logger

    public init(path: ThumborPath, logger: Logger = Logger(label: "WebImageServer")) {
        self.path = path
        self.logger = logger
    }

    /// The encoder settings the filters ask for; throws for a value no encoder can honour.
    public func output() throws(ThumborPathError) -> Output {
        var output = Output()
        for filter in path.filters {
            switch filter.name {
            case "format":
                guard let name = filter.arguments.first?.lowercased(),
                      let format = ["jpeg": ImageFormat.jpeg, "jpg": .jpeg, "png": .png, "webp": .webp, "gif": .gif, "avif": .avif][name]
                else { throw .badFilter(filter.description) }
                output.format = format
            case "quality":
                guard let value = filter.arguments.first.flatMap({ Int($0) }), (0...100).contains(value) else {
                    throw .badFilter(filter.description)
                }
                output.quality = value
            case "max_bytes":
                guard let value = filter.arguments.first.flatMap({ Int($0) }), value > 0 else { throw .badFilter(filter.description) }
                output.maxBytes = value
            default:
                break
            }
        }
        return output
    }

    /// The size the variant will have, from the source's size alone (the output-pixel limit is
    /// checked on this before any work).
    public func outputSize(forSource size: PixelSize) -> PixelSize {
        geometry(forSource: size).size
    }

    /// The size to decode a source at (upright), as a thumbnail decode's box.
    public struct DecodeBox: Sendable, Hashable {
        public var size: PixelSize
        /// false when ``size`` is the variant's own size (the whole source is used): the decode
        /// then makes exactly that size, and no second resample follows.
        public var keepsAspectRatio: Bool
    }

    /// The smallest upright size a source of `size` can be decoded at and still give this
    /// variant every pixel it needs, or nil for full size: the geometry's scale applied to the
    /// whole source. A codec's scaled decode (JPEG's DCT scaling, WebP's scaler) then never
    /// makes the full-size bitmap. `trim` looks at the source's own pixels, so it decodes in full.
    public func decodeBox(forSource size: PixelSize) -> DecodeBox? {
        guard path.trim == nil, !size.isEmpty else { return nil }
        let geometry = geometry(forSource: size)
        let scale = max(Double(geometry.size.width) / Double(geometry.region.width),
                        Double(geometry.size.height) / Double(geometry.region.height))
        guard scale < 1 else { return nil }
        if geometry.region == PixelRect(x: 0, y: 0, width: size.width, height: size.height) {
            return DecodeBox(size: geometry.size, keepsAspectRatio: false)
        }
        let decoded = PixelSize(width: Int((Double(size.width) * scale).rounded(.up)),
                                height: Int((Double(size.height) * scale).rounded(.up)))
        return decoded == size ? nil : DecodeBox(size: decoded, keepsAspectRatio: true)
    }

    /// The variant's pixels from `image`, a decode of a source whose upright size is
    /// `sourceSize` — smaller when it was decoded to ``decodeBox(forSource:)``: the geometry is
    /// worked out on the source's own size (a crop box is in its pixels) and mapped onto the
    /// decoded ones. Every step's size is checked against `budget` before its pixels are made
    /// (throws ``OutputBudget/Exceeded``). Returns nil when a transformer cannot apply.
    public func process(_ image: Image, sourceSize: PixelSize? = nil, budget: OutputBudget = .unlimited) throws(OutputBudget.Exceeded) -> Image? {
        var image = image
        var source = sourceSize ?? image.uprightSize
        let frames = image.frames.count
        if let trim = path.trim {
            // Trim works on the upright pixels and comes before everything else (thumbor's order).
            let size = image.uprightSize
            if image.orientation != .up, let upright = CroppingTransformer(rect: PixelRect(x: 0, y: 0, width: size.width, height: size.height)).transform(image, forKey: "") {
                image = upright
            }
            if let rect = TrimBounds.rect(in: image.bitmap, corner: trim.corner, tolerance: trim.tolerance),
               rect != PixelRect(x: 0, y: 0, width: size.width, height: size.height),
               let trimmed = CroppingTransformer(rect: rect).transform(image, forKey: "") {
                image = trimmed
            }
            source = image.uprightSize
        }
        let decoded = image.uprightSize
        let geometry = geometry(forSource: source)
        let region = geometry.region.scaled(from: source, to: decoded)
        var steps: [any ImageTransformer] = []
        var size = decoded
        func add(_ transformer: any ImageTransformer, making next: PixelSize) throws(OutputBudget.Exceeded) {
            try budget.check(next, frames: frames)
            steps.append(transformer)
            size = next
        }
        // The encoders write no EXIF, so the pixels must leave upright: a full-size crop turns them.
        if region != PixelRect(x: 0, y: 0, width: decoded.width, height: decoded.height) || image.orientation != .up {
            try add(CroppingTransformer(rect: region), making: PixelSize(width: region.width, height: region.height))
        }
        if geometry.size != size {
            try add(ResizingTransformer(size: geometry.size, scaleMode: .fill), making: geometry.size)
        }
        if path.flipHorizontally || path.flipVertically {
            try add(FlippingTransformer(horizontal: path.flipHorizontally, vertical: path.flipVertically), making: size)
        }
        for filter in path.filters {
            if let step = transformer(for: filter, size: size) { try add(step.0, making: step.1) }
        }
        guard !steps.isEmpty else { return image }
        return PipelineTransformer(steps).transform(image, forKey: "")
    }

    private func geometry(forSource size: PixelSize) -> ThumborGeometry {
        let names = Set(path.filters.map(\.name))
        return ThumborGeometry(source: size, path: path, upscale: names.contains("upscale"), noUpscale: names.contains("no_upscale"))
    }

    /// The transformer a filter asks for on a `size` image, with the size it makes.
    private func transformer(for filter: ThumborFilter, size: PixelSize) -> (any ImageTransformer, PixelSize)? {
        let numbers = filter.arguments.map { Double($0) }
        switch filter.name {
        case "format", "quality", "max_bytes", "no_upscale", "upscale", "strip_icc", "strip_exif":
            return nil  // encoder settings or geometry, handled elsewhere
        case "grayscale":
            return (GrayscaleTransformer(), size)
        case "blur":
            guard let radius = numbers.first ?? nil, radius > 0 else { return nil }
            return (BlurTransformer(radius: min(numbers.count > 1 ? numbers[1] ?? radius : radius, 150)), size)
        case "rotate":
            guard let quarterTurns = filter.arguments.first.flatMap(Self.quarterTurns), quarterTurns > 0 else { return nil }
            let angle = Double(quarterTurns) * .pi / 2
            return (RotationTransformer(angle: angle, fitSize: true), Bitmap.rotatedSize(size, angle: angle, fitSize: true))
        case "round_corner":
            guard let radiusText = filter.arguments.first, let radius = Double(radiusText.split(separator: "|")[0]), radius > 0 else { return nil }
            return (RoundCornerTransformer(cornerRadius: radius), size)
        case "fill":
            guard let color = filter.arguments.first.flatMap(Self.color), color.a > 0 else { return nil }
            return (FillTransformer(color: color), size)
        default:
            logger.info("ignoring unknown filter", metadata: ["filter": "\(filter.name)"])
            return nil
        }
    }

    /// thumbor's `rotate(degrees)`: whole degrees, a multiple of 90 taken modulo 360, as 0–3
    /// quarter turns; nil for anything else (the filter is then ignored, as thumbor does).
    static func quarterTurns(_ text: String) -> Int? {
        guard let degrees = Int(text), degrees % 90 == 0 else { return nil }
        return (degrees % 360 + 360) % 360 / 90
    }

    /// thumbor's colours: a name it knows, or hex `rgb`/`rrggbb`; `transparent`.
    static func color(_ text: String) -> RGBA? {
        let named: [String: RGBA] = [
            "white": RGBA(r: 255, g: 255, b: 255), "black": RGBA(r: 0, g: 0, b: 0), "red": RGBA(r: 255, g: 0, b: 0),
            "green": RGBA(r: 0, g: 128, b: 0), "blue": RGBA(r: 0, g: 0, b: 255), "transparent": RGBA(r: 0, g: 0, b: 0, a: 0),
        ]
        let lower = text.lowercased()
        if let color = named[lower] { return color }
        let hex = lower.hasPrefix("#") ? String(lower.dropFirst()) : lower
        guard hex.count == 3 || hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
        if hex.count == 3 {
            func expand(_ nibble: UInt32) -> UInt8 { UInt8(nibble * 17) }
            return RGBA(r: expand(value >> 8 & 0xF), g: expand(value >> 4 & 0xF), b: expand(value & 0xF))
        }
        return RGBA(r: UInt8(value >> 16 & 0xFF), g: UInt8(value >> 8 & 0xFF), b: UInt8(value & 0xFF))
    }
}

/// thumbor's `grayscale()`: Rec. 601 luma in every channel, alpha kept.
struct GrayscaleTransformer: ImageTransformer {
    var transformerKey: String { "GrayscaleTransformer" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        image.transformingPixels { pixels in
            var index = 0
            while index < pixels.count {
                let luma = (299 * Int(pixels[index]) + 587 * Int(pixels[index + 1]) + 114 * Int(pixels[index + 2]) + 500) / 1000
                pixels[index] = UInt8(luma)
                pixels[index + 1] = UInt8(luma)
                pixels[index + 2] = UInt8(luma)
                index += 4
            }
        }
    }
}

/// thumbor's `fill(color)`: transparent areas take the colour (the image is flattened onto it).
struct FillTransformer: ImageTransformer {
    let color: RGBA
    var transformerKey: String { "FillTransformer(\(color))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        let frames = image.frames.map { ImageFrame(bitmap: $0.bitmap.flattened(over: color), duration: $0.duration) }
        return Image(frames: frames, loopCount: image.loopCount, scale: image.scale, orientation: image.orientation,
                     format: image.format, originalData: nil, hasAlpha: false, colorProfile: image.colorProfile)
    }
}

extension PixelRect {
    /// This rectangle of an image `from` pixels wide and high, on the same image decoded at `to`
    /// (edges rounded outwards, kept inside, at least 1×1).
    func scaled(from: PixelSize, to: PixelSize) -> PixelRect {
        guard from != to, !from.isEmpty else { return self }
        let sx = Double(to.width) / Double(from.width), sy = Double(to.height) / Double(from.height)
        let left = min(to.width - 1, Int((Double(x) * sx).rounded(.down)))
        let top = min(to.height - 1, Int((Double(y) * sy).rounded(.down)))
        let right = max(left + 1, min(to.width, Int((Double(x + width) * sx).rounded(.up))))
        let bottom = max(top + 1, min(to.height, Int((Double(y + height) * sy).rounded(.up))))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

extension Image {
    /// This image with EXIF orientation applied (what the geometry is computed on).
    var uprightSize: PixelSize {
        orientation.swapsDimensions ? PixelSize(width: height, height: width) : pixelSize
    }

    /// Every frame's RGBA bytes changed in place by `body` (orientation and timing kept).
    func transformingPixels(_ body: (inout [UInt8]) -> Void) -> Image? {
        let frames = frames.map { frame -> ImageFrame in
            var pixels = frame.bitmap.pixels
            body(&pixels)
            return ImageFrame(bitmap: Bitmap(width: frame.bitmap.width, height: frame.bitmap.height, pixels: pixels), duration: frame.duration)
        }
        return Image(frames: frames, loopCount: loopCount, scale: scale, orientation: orientation,
                     format: format, originalData: nil, hasAlpha: hasAlpha, colorProfile: colorProfile)
    }
}
