/// How to decode: SDWebImage's `SDImageCoderOptions` as a value type.
public struct ImageDecodeOptions: Sendable, Hashable {
    /// Default pixel limit: 100 MP is a 12,000 × 8,000 photo — past any camera a user is likely to
    /// load, well short of a decompression bomb (400 MB of RGBA).
    public static let defaultMaxPixelCount = 100_000_000

    /// Pixels per point for the resulting image. `nil`: the key's `@2x`/`@3x` where a key is
    /// known (the cache, the loaders), else 1 — so an explicit 1 is never overridden by a key.
    public var scaleFactor: Double?
    /// Decode to fit this box (never upscaling), using the codec's cheap scaled decode where it
    /// has one (JPEG DCT scaling, WebP's scaler). `nil` = full size.
    public var thumbnailPixelSize: PixelSize?
    /// With ``thumbnailPixelSize``: keep the aspect ratio (fit inside) rather than stretch.
    public var preserveAspectRatio: Bool
    /// Scale down so that all frames together take at most this many bytes of RGBA
    /// (SDWebImage's `scaleDownLimitBytes`); overrides ``thumbnailPixelSize``.
    public var scaleDownLimitBytes: Int?
    /// Decode only the first frame of an animation.
    public var decodeFirstFrameOnly: Bool
    /// Images whose header declares more pixels than this are rejected with
    /// ``ImageCoderError/tooLarge(width:height:limit:)`` before any allocation.
    public var maxPixelCount: Int
    /// Animations whose frames together would take more RGBA bytes than this are scaled down to
    /// fit (the ``scaleDownLimitBytes`` rule) rather than refused: the per-frame pixel limit alone
    /// lets a small file with thousands of frames decode to gigabytes. The compositing work is
    /// bounded too: frames × canvas may reach 8 budgets (`animationWorkFactor`), beyond that
    /// the animation is ``ImageCoderError/tooLarge(width:height:limit:)``. `nil` = no budget.
    public var maxAnimationBytes: Int?
    /// Convert pixels described by an embedded colour profile — ICC (JPEG APP2, PNG iCCP, WebP
    /// ICCP, AVIF/HEIF colr, JPEG XL), PNG gAMA/cHRM, AVIF/HEIF nclx primaries — to sRGB, as
    /// browsers show them. `false` keeps the pixels as encoded and puts the profile on
    /// ``Image/colorProfile`` (encoders embed it), for a pipeline that manages colour itself.
    public var convertsToSRGB: Bool
    /// The most bytes a decode may allocate at its peak — output bitmaps, every kept frame, the
    /// codec's own buffers — as planned by ``ImageCoder/decodingCost(of:options:)``. A decode whose
    /// plan is larger throws ``ImageCoderError/decodeBudgetExceeded(planned:limit:)`` before
    /// allocating; libjpeg also gets it as its own memory cap. `nil` = no limit.
    public var maxDecodeBytes: Int?
    /// The most scans a JPEG may have (a progressive file can carry thousands, each a pass over the
    /// whole image). Past it the decode throws ``ImageCoderError/tooManyScans(limit:)``. `nil` =
    /// libjpeg's own cap in WebImage, 500.
    public var maxProgressiveScans: Int?

    /// Default animation budget: 512 MB of frames, e.g. 250 frames of 1080p.
    public static let defaultMaxAnimationBytes = 512 * 1024 * 1024

    public init(
        scaleFactor: Double? = nil,
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        scaleDownLimitBytes: Int? = nil,
        decodeFirstFrameOnly: Bool = false,
        maxPixelCount: Int = ImageDecodeOptions.defaultMaxPixelCount,
        maxAnimationBytes: Int? = ImageDecodeOptions.defaultMaxAnimationBytes,
        convertsToSRGB: Bool = true,
        maxDecodeBytes: Int? = nil,
        maxProgressiveScans: Int? = nil
    ) {
        self.scaleFactor = scaleFactor
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.scaleDownLimitBytes = scaleDownLimitBytes
        self.decodeFirstFrameOnly = decodeFirstFrameOnly
        self.maxPixelCount = maxPixelCount
        self.maxAnimationBytes = maxAnimationBytes
        self.convertsToSRGB = convertsToSRGB
        self.maxDecodeBytes = maxDecodeBytes
        self.maxProgressiveScans = maxProgressiveScans
    }

    public static let `default` = ImageDecodeOptions()

    /// Throws ``ImageCoderError/decodeBudgetExceeded(planned:limit:)`` when `planned` is over
    /// ``maxDecodeBytes``.
    func checkDecodeBudget(_ planned: Int) throws(ImageCoderError) {
        if let limit = maxDecodeBytes, planned > limit {
            throw .decodeBudgetExceeded(planned: planned, limit: limit)
        }
    }

    /// Throws ``ImageCoderError/tooLarge(width:height:limit:)`` when a header's size is over the limit.
    func checkPixelLimit(width: Int, height: Int) throws {
        guard width > 0, height > 0 else { throw ImageCoderError.corrupt(.undefined, reason: "zero image size") }
        if width.multipliedReportingOverflow(by: height).overflow || width * height > maxPixelCount {
            throw ImageCoderError.tooLarge(width: width, height: height, limit: maxPixelCount)
        }
    }

    /// How many times ``maxAnimationBytes`` of canvas an animation may composite in all. Every
    /// frame is drawn on (and scaled down from) the full canvas, so the work is frames × canvas
    /// even when the output fits the budget: a small GIF of thousands of one-pixel frames on a large
    /// screen would composite for hours. A 500-frame 1080p animation still fits the default.
    static let animationWorkFactor = 8

    /// Throws ``ImageCoderError/tooLarge(width:height:limit:)`` before any frame is decoded when
    /// `frameCount` frames of `canvas` are more compositing than the animation budget allows; the
    /// limit it reports is the canvas size in pixels that this many frames could have had.
    func checkAnimationWork(canvas: PixelSize, frameCount: Int) throws {
        guard frameCount > 1, let budget = maxAnimationBytes, budget > 0 else { return }
        let workPixels = budget / Bitmap.bytesPerPixel * ImageDecodeOptions.animationWorkFactor
        let (total, overflow) = canvas.pixelCount.multipliedReportingOverflow(by: frameCount)
        if overflow || total > workPixels {
            throw ImageCoderError.tooLarge(width: canvas.width, height: canvas.height, limit: workPixels / frameCount)
        }
    }

    /// The size to produce for a source of `size` with `frameCount` frames, or `nil` for full size.
    func targetSize(for size: PixelSize, frameCount: Int = 1) -> PixelSize? {
        var box = thumbnailPixelSize
        var keepAspect = preserveAspectRatio
        var limit = scaleDownLimitBytes.flatMap { $0 > 0 ? $0 : nil }
        if frameCount > 1, let budget = maxAnimationBytes, budget > 0,
           size.width * size.height * 4 * frameCount > budget {
            limit = min(limit ?? budget, budget)
        }
        if let limit {
            box = ThumbnailMath.scaledSize(size, limitBytes: limit, frameCount: frameCount)
            keepAspect = true
        }
        guard let box else { return nil }
        let result = ThumbnailMath.scaledSize(size, fitting: box, preserveAspectRatio: keepAspect)
        return result == size ? nil : result
    }
}
