import Foundation

/// A finished load: the image, the bytes it came from when known, and where it was found.
public struct ImageResult: Sendable {
    public var image: Image
    /// The encoded bytes: as downloaded, or as read from disk; `nil` for a memory hit (unless
    /// ``WebImageOptions/queryMemoryData``) and for transformed images.
    public var data: Data?
    /// `.memory` or `.disk` for cache hits, `.none` for a fresh load.
    public var cacheType: ImageCacheType
    /// The URL that was asked for.
    public var url: URL

    public init(image: Image, data: Data?, cacheType: ImageCacheType, url: URL) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
    }
}

/// What a load reports while it runs (``ImageManager/images(with:options:context:)``).
public enum ImageLoadEvent: Sendable {
    /// Bytes received so far and expected in all (-1 when unknown).
    case progress(received: Int64, expected: Int64)
    /// A partial image from the bytes so far (``WebImageOptions/progressiveLoad``).
    case partial(Image)
    /// A complete image. With ``WebImageOptions/refreshCached`` the cached image comes first and
    /// the revalidated one may follow; otherwise this is the last event.
    case image(ImageResult)
}
