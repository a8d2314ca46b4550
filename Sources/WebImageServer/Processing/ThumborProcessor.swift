import Foundation
import Logging
import WebImage

/// Turns a decoded source into the variant a thumbor path asks for, with WebImage's transformers:
/// `trim` first, then geometry (`ThumborGeometry`: crop box, then scale), flips, then the filters
/// in the order given. Filters are rows of ``FilterTable``: their arguments parsed by its grammar
/// (an encoder setting that does not parse is a 400; any other filter that does not, or one the
/// table lacks, is ignored with a log line, as thumbor does).
public struct ThumborProcessor: Sendable {
    /// What the request asked of the encoder.
    public struct Output: Sendable, Hashable {
        /// `format(...)`, or nil for the negotiated one.
        public var format: ImageFormat?
        public var quality: Int?
        public var maxBytes: Int?
        /// `max_age(n)`: the variant's `Cache-Control` max-age, seconds (0 = no-cache).
        public var maxAge: Int?
        /// `autojpg(…)`: the URL's say on writing an opaque PNG as JPEG (``OutputDefaults/convertsPNGToJPEG(requested:)``).
        public var autoJPG: Bool?
    }

    /// One step of the variant's pipeline, planned on sizes before any pixel is made.
    struct Step {
        let name: String
        let transformer: any ImageTransformer
        /// The size the step makes.
        let size: PixelSize
        let cost: FilterCost
    }

    let path: ThumborPath
    let logger: Logger
    /// The pipeline's detector: `red_eye` reads its cascades and time budget (nil: the standard ones).
    public var smartDetector: SmartDetector?

    public init(path: ThumborPath, logger: Logger = Logger(label: "WebImageServer"), smartDetector: SmartDetector? = nil) {
        self.path = path
        self.logger = logger
        self.smartDetector = smartDetector
    }

    /// The encoder settings the filters ask for; throws for a value no encoder can honour.
    public func output() throws(ThumborPathError) -> Output {
        var output = Output()
        for filter in path.filters {
            guard let row = FilterTable.row(named: filter.name), case .output(let apply) = row.action else { continue }
            guard let values = row.values(of: filter), apply(&output, values) else { throw .badFilter(filter.description) }
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

    /// The steps that turn a decode of `decoded` pixels (upright size; `oriented` when its EXIF
    /// orientation is still to be applied) of a source whose upright size is `source` into the
    /// variant: the list ``process(_:sourceSize:budget:)`` runs and the cost plan adds up.
    /// `focalPoints` are detected ones in `source`'s pixels (see ``focalPoints(detected:sourceSize:)``).
    func steps(decoded: PixelSize, oriented: Bool, source: PixelSize, focalPoints: [FocalPoint] = [], overlays: [String: Image] = [:],
               overlaySizes: [String: PixelSize] = [:]) -> [Step] {
        let geometry = geometry(forSource: source, focalPoints: focalPoints)
        let region = geometry.region.scaled(from: source, to: decoded)
        var steps: [Step] = []
        var size = decoded
        func add(_ name: String, _ transformer: any ImageTransformer, _ next: PixelSize, _ cost: FilterCost) {
            steps.append(Step(name: name, transformer: transformer, size: next, cost: cost))
            size = next
        }
        // The encoders write no EXIF, so the pixels must leave upright: a full-size crop turns them.
        if region != PixelRect(x: 0, y: 0, width: decoded.width, height: decoded.height) || oriented {
            add("crop", CroppingTransformer(rect: region), PixelSize(width: region.width, height: region.height), .copy)
        }
        if geometry.size != size {
            add("resize", ResizingTransformer(size: geometry.size, scaleMode: .fill), geometry.size, Self.resizeCost(from: size, to: geometry.size))
        }
        if path.flipHorizontally || path.flipVertically {
            add("flip", FlippingTransformer(horizontal: path.flipHorizontally, vertical: path.flipVertically), size, .copy)
        }
        for filter in path.filters {
            guard let row = FilterTable.row(named: filter.name) else {
                logger.info("ignoring unknown filter", metadata: ["filter": "\(filter.name)"])
                continue
            }
            if case .leftOut(let reason) = row.action {
                logger.info("ignoring a filter WebImage leaves out", metadata: ["filter": "\(filter.name)", "why": "\(reason)"])
            }
            guard case .pixels(let make) = row.action else { continue }
            guard let values = row.values(of: filter) else {
                logger.info("ignoring a filter whose arguments do not parse", metadata: ["filter": "\(filter.name)"])
                continue
            }
            let input = FilterInput(values: values, size: size, path: path, overlays: overlays,
                                    overlaySizes: overlaySizes.merging(overlays.mapValues(\.uprightSize)) { planned, _ in planned },
                                    detector: smartDetector)
            if row.oncePerURL, steps.contains(where: { $0.name == row.name }) {
                logger.info("ignoring a repeat of a filter applied once", metadata: ["filter": "\(filter.name)"])
                continue
            }
            if let (transformer, next) = make(input) { add(row.name, transformer, next, row.cost(for: input)) }
        }
        return steps
    }

    /// The variant's pixels from `image`, a decode of a source whose upright size is
    /// `sourceSize` — smaller when it was decoded to ``decodeBox(forSource:)``: the geometry is
    /// worked out on the source's own size (a crop box is in its pixels) and mapped onto the
    /// decoded ones. Before each step its size and its peak bytes (the image it reads, the one it
    /// makes, its scratch) are checked against `budget` (throws ``OutputBudget/Exceeded``), and once
    /// `isCancelled` says so the work stops between steps (`CancellationError`). Returns nil when a
    /// transformer cannot apply.
    public func process(
        _ image: Image, sourceSize: PixelSize? = nil, budget: OutputBudget = .unlimited, focalPoints: [FocalPoint] = [],
        overlays: [String: Image] = [:], isCancelled: () -> Bool = { false }
    ) throws -> Image? {
        var focalPoints = focalPoints
        var processor = self
        var image = image
        var source = sourceSize ?? image.uprightSize
        let frames = image.frames.count
        if let trim = path.trim {
            // Trim works on the upright pixels and comes before everything else (thumbor's order).
            let size = image.uprightSize
            try budget.check(bytes: 2 * image.cost, size: size, frames: frames)
            if image.orientation != .up, let upright = CroppingTransformer(rect: PixelRect(x: 0, y: 0, width: size.width, height: size.height)).transform(image, forKey: "") {
                image = upright
            }
            if let rect = TrimBounds.rect(in: image.bitmap, corner: trim.corner, tolerance: trim.tolerance),
               rect != PixelRect(x: 0, y: 0, width: size.width, height: size.height),
               let trimmed = CroppingTransformer(rect: rect).transform(image, forKey: "") {
                image = trimmed
                // Given and detected points are in the untrimmed source's pixels; they move with the trim.
                (processor, focalPoints) = trimmedFocus(by: rect, detected: focalPoints)
            }
            source = image.uprightSize
        }
        var work = 0
        for step in processor.steps(decoded: image.uprightSize, oriented: image.orientation != .up, source: source, focalPoints: focalPoints, overlays: overlays) {
            if isCancelled() { throw CancellationError() }
            let (live, overflow) = image.cost.addingReportingOverflow(step.cost.bytes(for: step.size, frames: frames))
            try budget.check(bytes: overflow ? .max : live, size: step.size, frames: frames)
            // The plan's work cap again, on the sizes the steps really have (a frame's padding is known only now).
            work = CostPlan.sum(work, step.cost.pixelPasses(for: step.size, frames: frames))
            try budget.check(pixelPasses: work, size: step.size, frames: frames)
            guard let next = step.transformer.transform(image, forKey: "") else { return nil }
            image = next
        }
        return image
    }

    func geometry(forSource size: PixelSize, focalPoints: [FocalPoint] = []) -> ThumborGeometry {
        let names = Set(path.filters.map(\.name))
        let focus = FocalPoint.centreOfMass(subjectPoints(detected: focalPoints, sourceSize: size))
        return ThumborGeometry(source: size, path: path, upscale: names.contains("upscale"), noUpscale: names.contains("no_upscale"), focus: focus)
    }

    /// The resampler's own cost (``Bitmap/resamplingCost(from:to:)``, the library's one rule for
    /// it) as a step's cost: its result, and the rest as scratch per output pixel, rounded up.
    static func resizeCost(from input: PixelSize, to output: PixelSize) -> FilterCost {
        let outputPixels = max(1, output.width * output.height)
        let scratch = max(0, Bitmap.resamplingCost(from: input, to: output) - 4 * outputPixels)
        return FilterCost(scratchBytesPerPixel: (scratch + outputPixels - 1) / outputPixels, makesBitmap: true, passes: 2)
    }

    /// thumbor's `rotate(degrees)`: whole degrees, a multiple of 90 taken modulo 360, as 0–3
    /// quarter turns; nil for anything else (the filter is then ignored, as thumbor does).
    static func quarterTurns(_ text: String) -> Int? {
        FilterArgument.number.parse(text)?.integer.flatMap(quarterTurns(degrees:))
    }

    static func quarterTurns(degrees: Int) -> Int? {
        degrees % 90 == 0 ? (degrees % 360 + 360) % 360 / 90 : nil
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
}
