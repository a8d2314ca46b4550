import Foundation
import Synchronization

/// Chooses a coder for each piece of data (SDWebImage's `SDImageCodersManager`): the most
/// recently added coder that accepts the data wins, so an app can override a built-in one.
public final class ImageCodersManager: ProgressiveImageCoder, AnimatedImageCoder {
    /// Shared instance with the built-in coders.
    public static let shared = ImageCodersManager()

    private let coders: Mutex<[any ImageCoder]>

    /// A manager with the built-in coders: JPEG, PNG, GIF, WebP, AVIF, JPEG XL. ``HEIFCoder`` is opt-in
    /// (see its documentation).
    public convenience init() {
        self.init(coders: [JPEGCoder(), PNGCoder(), GIFCoder(), WebPCoder(), AVIFCoder(), JXLCoder()])
    }

    public init(coders: [any ImageCoder]) {
        self.coders = Mutex(coders)
    }

    /// The coders in priority order, lowest first.
    public var allCoders: [any ImageCoder] { coders.withLock { $0 } }

    /// Adds `coder` with the highest priority.
    public func addCoder(_ coder: any ImageCoder) {
        coders.withLock { $0.append(coder) }
    }

    /// Removes every coder of `coder`'s type.
    public func removeCoder(_ coder: any ImageCoder) {
        let type = ObjectIdentifier(Swift.type(of: coder))
        coders.withLock { $0.removeAll { ObjectIdentifier(Swift.type(of: $0)) == type } }
    }

    private func firstCoder(where predicate: (any ImageCoder) -> Bool) -> (any ImageCoder)? {
        allCoders.reversed().first(where: predicate)
    }

    public func canDecode(_ data: Data) -> Bool {
        firstCoder { $0.canDecode(data) } != nil
    }

    public func decode(_ data: Data, options: ImageDecodeOptions = .default) throws -> Image {
        if data.isEmpty { throw ImageCoderError.emptyData }
        guard let coder = firstCoder(where: { $0.canDecode(data) }) else {
            throw ImageCoderError.unsupportedFormat(ImageFormat.detect(data))
        }
        return try coder.decode(data, options: options)
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        firstCoder { $0.canEncode(to: format) } != nil
    }

    public func encode(_ image: Image, as format: ImageFormat, options: ImageEncodeOptions = .default) throws -> Data {
        guard let coder = firstCoder(where: { $0.canEncode(to: format) }) else {
            throw ImageCoderError.encodingFailed(format, reason: "no encoder for this format in this build")
        }
        return try coder.encode(image, as: format, options: options)
    }

    public func canIncrementallyDecode(_ data: Data) -> Bool {
        progressiveCoder(for: data) != nil
    }

    /// A decoder that picks its coder once enough bytes have arrived to sniff the format.
    public func makeIncrementalDecoder(options: ImageDecodeOptions) -> any IncrementalImageDecoder {
        SniffingIncrementalDecoder(manager: self, options: options)
    }

    public func animationInfo(of data: Data) throws -> AnimationInfo {
        guard let coder = firstCoder(where: { $0.canDecode(data) }) else {
            throw ImageCoderError.unsupportedFormat(ImageFormat.detect(data))
        }
        if let animated = coder as? any AnimatedImageCoder { return try animated.animationInfo(of: data) }
        let image = try coder.decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true))
        return AnimationInfo(frameCount: 1, loopCount: 0, canvasSize: image.pixelSize)
    }

    /// The header, read by the first coder that can decode `data`.
    public func header(of data: Data) throws -> ImageHeader {
        guard let coder = firstCoder(where: { $0.canDecode(data) }) else {
            throw ImageCoderError.unsupportedFormat(ImageFormat.detect(data))
        }
        var header = try coder.header(of: data)
        header.dataSize = data.count
        return header
    }

    fileprivate func progressiveCoder(for data: Data) -> (any ProgressiveImageCoder)? {
        firstCoder { ($0 as? any ProgressiveImageCoder)?.canIncrementallyDecode(data) == true }
            as? any ProgressiveImageCoder
    }
}

/// Waits for enough bytes to tell the format, then hands over to that format's decoder. Formats
/// with no incremental decoder (GIF) give nothing until the final update, then a full decode.
private final class SniffingIncrementalDecoder: IncrementalImageDecoder {
    private let manager: ImageCodersManager
    private let options: ImageDecodeOptions
    private var inner: (any IncrementalImageDecoder)?
    private var data = Data()
    private var isFinal = false

    init(manager: ImageCodersManager, options: ImageDecodeOptions) {
        self.manager = manager
        self.options = options
    }

    func update(_ data: Data, isFinal: Bool) {
        self.data = data
        self.isFinal = isFinal
        if inner == nil, data.count >= 16, let coder = manager.progressiveCoder(for: data) {
            inner = coder.makeIncrementalDecoder(options: options)
        }
        inner?.update(data, isFinal: isFinal)
    }

    func decodedImage() throws -> Image? {
        if let inner { return try inner.decodedImage() }
        return isFinal ? try manager.decode(data, options: options) : nil
    }
}
