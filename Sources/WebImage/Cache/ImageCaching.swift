import Foundation

/// What a cache found: the image (decoded, unless ``ImageCacheQueryOptions/avoidDecodeImage``),
/// the encoded bytes when asked for or read from disk, and where it was found.
public struct ImageCacheResult: Sendable {
    public var image: Image?
    public var data: Data?
    public var cacheType: ImageCacheType

    public init(image: Image?, data: Data?, cacheType: ImageCacheType) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
    }

    /// A memory tier's answer with `image`: SD hands out a still of frame one when asked for the
    /// first frame only.
    static func memoryHit(_ image: Image, decodeOptions: ImageDecodeOptions) -> ImageCacheResult {
        let answer = decodeOptions.decodeFirstFrameOnly && image.isAnimated
            ? Image(frames: [image.frames[0]], scale: image.scale, orientation: image.orientation,
                    format: image.format, originalData: image.originalData, hasAlpha: image.hasAlpha)
            : image
        return ImageCacheResult(image: answer, data: nil, cacheType: .memory)
    }
}

/// How to query a cache (SDWebImage's `SDImageCacheOptions`).
public struct ImageCacheQueryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// On a memory hit, also read the encoded bytes from disk (SD's `queryMemoryData`).
    public static let queryMemoryData = ImageCacheQueryOptions(rawValue: 1 << 0)
    /// Callback form: read the disk synchronously on the caller's thread, so a disk hit also
    /// answers before the call returns (SD's `queryDiskDataSync`).
    public static let queryDiskDataSync = ImageCacheQueryOptions(rawValue: 1 << 1)
    /// Return the disk bytes without decoding them (SD's `avoidDecodeImage`).
    public static let avoidDecodeImage = ImageCacheQueryOptions(rawValue: 1 << 2)
    /// Do not copy a disk hit into the memory cache.
    public static let skipMemorySync = ImageCacheQueryOptions(rawValue: 1 << 3)
}

/// A cache WebImage can query and fill (SDWebImage's `SDImageCache` protocol). ``ImageCache`` is
/// the default; ``ImageCachesManager`` combines several.
public protocol ImageCaching: Sendable {
    /// Looks `key` up in the given tiers, memory first. `decodeOptions` apply to a disk hit
    /// (thumbnail, scale-down, first frame only); its scale factor defaults to the key's `@2x`.
    func queryImage(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType
    ) async -> ImageCacheResult?

    /// Stores `image` (memory) and `data` — or, without data, the image encoded — (disk) in the
    /// given tiers. Returns when the disk write is done. Throws when the disk write fails.
    func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws

    /// The same, with the response's HTTP validators (`ETag`, `Last-Modified`) kept beside the bytes
    /// for a later conditional request; a cache that keeps none stores without them (the default).
    func store(
        _ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType, validators: HTTPValidators?
    ) async throws

    func removeImage(forKey key: String, cacheType: ImageCacheType) async

    /// Which of the given tiers hold `key` (`.none`, `.memory`, `.disk`; `.all` is not reported:
    /// memory is checked first and wins, as in SD).
    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType

    func clear(_ cacheType: ImageCacheType) async

    /// The image the memory tier holds for `key`, answered on the caller's thread without I/O, as
    /// SD answers a memory hit; `nil` by default (no tier that can answer without waiting).
    func imageFromMemoryCache(forKey key: String) -> Image?

    /// The callback form (SD style): `completion` fires exactly once — with the result, or with
    /// `nil` synchronously inside ``ImageCacheToken/cancel()`` — and never after a cancel. A
    /// requirement, so a cache that can answer on the caller's thread (``ImageCache``'s memory
    /// hits, `queryDiskDataSync`) does so through `any ImageCaching` too.
    @discardableResult
    func queryImage(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType, completion: @escaping @Sendable (ImageCacheResult?) -> Void
    ) -> ImageCacheToken
}

extension ImageCaching {
    public func imageFromMemoryCache(forKey key: String) -> Image? { nil }

    public func store(
        _ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType, validators: HTTPValidators?
    ) async throws {
        try await store(image, data: data, forKey: key, cacheType: cacheType)
    }

    /// The callback form with the defaults: no options, default decoding, every tier.
    @discardableResult
    public func queryImage(
        forKey key: String, completion: @escaping @Sendable (ImageCacheResult?) -> Void
    ) -> ImageCacheToken {
        queryImage(forKey: key, options: [], decodeOptions: .default, cacheType: .all, completion: completion)
    }

    /// Default: the async query on a task of its own, so the completion always runs on another thread.
    @discardableResult
    public func queryImage(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType, completion: @escaping @Sendable (ImageCacheResult?) -> Void
    ) -> ImageCacheToken {
        let token = ImageCacheToken(completion: completion)
        let task = Task {
            let result = await self.queryImage(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
            token.finish(with: result)
        }
        token.attach(task)
        return token
    }
}
