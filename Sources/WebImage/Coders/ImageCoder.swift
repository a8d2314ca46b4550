import Foundation

/// Decodes and encodes one family of formats (SDWebImage's `SDImageCoder`).
///
/// Coders are stateless values, safe to call from any thread. Errors are ``ImageCoderError``.
public protocol ImageCoder: Sendable {
    /// Whether this coder can decode `data` (usually a magic-byte check).
    func canDecode(_ data: Data) -> Bool
    /// Decodes all of `data`. Throws ``ImageCoderError``.
    func decode(_ data: Data, options: ImageDecodeOptions) throws -> Image
    /// Whether this coder writes `format`.
    func canEncode(to format: ImageFormat) -> Bool
    /// Encodes `image` as `format`. Throws ``ImageCoderError``.
    func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions) throws -> Data
    /// Size, orientation and frame count from the header alone; no pixel limit applies (the
    /// caller compares). Throws ``ImageCoderError``. A default decodes the first frame.
    func header(of data: Data) throws -> ImageHeader
    /// Identifies how this coder decodes, so loads that name it in their context can share one
    /// download and one decode (as ``ImageTransformer/transformerKey`` does for transforms): two
    /// coders with the same key must decode the same bytes to the same image. The default, `nil`,
    /// never shares — a coder's state or closures cannot be compared. A stateless coder can return
    /// its type's name.
    var coderKey: String? { get }
    /// The most bytes decoding an image with this `header` under `options` allocates at its peak:
    /// the bitmaps at the size the decode really makes, every frame it keeps, the resampling and
    /// colour-conversion copies, and the codec's own buffers. An upper bound, planned from the
    /// header alone (``header(of:)``); the encoded bytes themselves are not counted. The default is
    /// a generous guess for coders that do not say.
    func decodingCost(of header: ImageHeader, options: ImageDecodeOptions) -> Int
}

extension ImageCoder {
    public var coderKey: String? { nil }
}

/// A coder that can show an image while its bytes are still arriving
/// (SDWebImage's `SDProgressiveImageCoder`).
public protocol ProgressiveImageCoder: ImageCoder {
    /// Whether an incremental decoder can start on these first bytes.
    func canIncrementallyDecode(_ data: Data) -> Bool
    /// A fresh decoder for one download.
    func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder
}

/// State for decoding one image as it downloads. Owned by one download and used serially, so it is
/// deliberately not `Sendable`.
public protocol IncrementalImageDecoder: AnyObject {
    /// Gives the decoder every byte received so far (not just the new ones); `isFinal` when the
    /// download has ended.
    func update(_ data: Data, isFinal: Bool)
    /// The best image for the bytes so far: `nil` until enough has arrived to show something;
    /// a partial image (``Image/isIncremental``) before the end; the full image after a final
    /// update. Throws ``ImageCoderError`` when the data is already known to be bad.
    func decodedImage() throws -> Image?
}

/// Frame and loop counts read from an animated container without decoding pixels.
public struct AnimationInfo: Sendable, Hashable {
    public var frameCount: Int
    /// 0 = forever.
    public var loopCount: Int
    public var canvasSize: PixelSize

    public init(frameCount: Int, loopCount: Int, canvasSize: PixelSize) {
        self.frameCount = frameCount
        self.loopCount = loopCount
        self.canvasSize = canvasSize
    }
}

/// A coder for a format that may animate (SDWebImage's `SDAnimatedImageCoder`): it decodes every
/// frame into ``Image/frames`` (with durations and loop count) and encodes multi-frame images.
public protocol AnimatedImageCoder: ImageCoder {
    /// Frame count, loop count and canvas size from the container alone.
    func animationInfo(of data: Data) throws -> AnimationInfo
}
