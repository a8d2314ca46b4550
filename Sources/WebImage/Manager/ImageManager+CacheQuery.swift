import Foundation
import Synchronization

/// Cache queries for a load. With a coder in the load's context the cache hands over a disk hit's
/// bytes and the load decodes them with that coder, as SD decodes cached data with
/// `SDWebImageContextImageCoder`: a format only that coder reads would otherwise miss on every
/// disk hit and be downloaded again, and a coder that decodes differently (a structure check, a
/// custom scale) would get the cache's decode instead of its own.
extension ImageManager {
    func queryImage(
        in cache: any ImageCaching, forKey key: String, options: ImageCacheQueryOptions,
        decodeOptions: ImageDecodeOptions, cacheType: ImageCacheType, request: LoadRequest
    ) async -> ImageCacheResult? {
        guard let coder = request.context.imageCoder else {
            return await cache.queryImage(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
        }
        guard let found = await cache.queryImage(
            forKey: key, options: options.union(.avoidDecodeImage), decodeOptions: decodeOptions, cacheType: cacheType)
        else { return nil }
        guard found.image == nil, let data = found.data, !options.contains(.avoidDecodeImage) else { return found }
        let image = await ImageWorkQueue.decoding.run {
            Self.decode(data, forKey: key, with: coder, options: decodeOptions)
        }
        guard let image else { return nil }
        if Self.syncsToMemory(options: options, decodeOptions: decodeOptions, cacheType: cacheType) {
            try? await cache.store(image, data: nil, forKey: key, cacheType: .memory)
        }
        return ImageCacheResult(image: image, data: data, cacheType: .disk)
    }

    /// The callback form's synchronous disk read (`queryDiskDataSync`), the same way.
    func queryImageSynchronously(
        in cache: ImageCache, forKey key: String, options: ImageCacheQueryOptions,
        decodeOptions: ImageDecodeOptions, cacheType: ImageCacheType, request: LoadRequest
    ) -> ImageCacheResult? {
        let coder = request.context.imageCoder
        let found = Mutex<ImageCacheResult?>(nil)
        cache.queryImage(
            forKey: key, options: coder == nil ? options : options.union(.avoidDecodeImage),
            decodeOptions: decodeOptions, cacheType: cacheType
        ) { result in found.withLock { $0 = result } }
        guard let result = found.withLock({ $0 }) else { return nil }
        guard let coder, result.image == nil, let data = result.data else { return result }
        guard let image = Self.decode(data, forKey: key, with: coder, options: decodeOptions) else { return nil }
        if Self.syncsToMemory(options: options, decodeOptions: decodeOptions, cacheType: cacheType) {
            cache.storeImageToMemory(image, forKey: key)
        }
        return ImageCacheResult(image: image, data: data, cacheType: .disk)
    }

    private static func decode(_ data: Data, forKey key: String, with coder: any ImageCoder, options: ImageDecodeOptions) -> Image? {
        var options = options
        if options.scaleFactor == nil { options.scaleFactor = ImageScale.scaleFactor(forKey: key) }
        return try? coder.decode(data, options: options)
    }

    /// The cache's own rule: a first-frame still or a thumbnail never stands in for the full image.
    private static func syncsToMemory(options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions, cacheType: ImageCacheType) -> Bool {
        !options.contains(.skipMemorySync) && cacheType.includesMemory
            && !decodeOptions.decodeFirstFrameOnly && decodeOptions.thumbnailPixelSize == nil
    }
}
