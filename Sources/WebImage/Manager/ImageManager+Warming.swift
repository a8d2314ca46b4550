import Foundation

/// The prefetcher's way through the manager. A prefetch wants no image back, only the cache
/// filled; when all a load would do is check the loaded bytes and write them to disk under the
/// URL's key (no transform, no thumbnail, no memory store, no serializer, no refresh), the bytes go
/// from the loader to the disk in the caller's task — without the operation, the shared-load
/// entry and the two tasks and hand-offs a load that answers an image needs. Everything that
/// decides *whether* and *what* is the same as the long way: the options processor, keys, blocklist, `shouldDownload`, the loader
/// (whose downloads of one URL are still shared) and the store. Any other load takes the long way.
extension ImageManager {
    /// Makes sure the cache a load of `url` would use holds its image; throws what the load would.
    /// Cancelling the calling task cancels it with ``WebImageError/cancelled``.
    nonisolated(nonsending) func warmCache(for url: URL, options: WebImageOptions, context: WebImageContext) async throws(WebImageError) {
        switch begin(url, options: options, context: context) {
        case .answered:
            return
        case .longWay(let request):
            if let key = request.key, let cache = request.cache as? ImageCache, request.onlyStoresOriginalBytesOnDisk {
                try await storeLoadedBytes(request, key: key, in: cache)
            } else {
                _ = try await loadTheLongWay(request)
            }
        }
    }

    /// The long way's steps for such a load, minus the image it would answer with.
    nonisolated(nonsending) private func storeLoadedBytes(
        _ request: LoadRequest, key: String, in cache: ImageCache
    ) async throws(WebImageError) {
        instrumentation.loadStarted(request.url)
        try checkAdmitted(request)
        // A disk hit needs no decode here: the prefetch wants the bytes there, not the image.
        if request.context.queryCacheType == .disk, !request.options.contains(.fromLoaderOnly),
           await cache.diskImageDataExists(forKey: key) {
            instrumentation.cacheHit(.disk)
            return
        }
        let loader: any ImageLoader
        switch self.loader(for: request) {
        case .success(let chosen): loader = chosen
        case .failure(let refusal): throw fail(refusal, request)
        }
        let loaded: ImageLoaderResult
        do {
            loaded = try await callLoader(
                loader, request, context: request.loaderContext(cachedValidators: nil, cachedImage: nil), progress: nil)
        } catch {
            throw recordFailure(error, request)
        }
        instrumentation.downloaded(bytes: loaded.data.count)
        try checkCancelled()
        await store(loaded.image, data: loaded.data, key: key, in: cache, cacheType: .disk, validators: loaded.validators,
                    wait: request.options.contains(.waitStoreCache))
    }
}

extension LoadRequest {
    /// Whether the load's only lasting effect is the original's bytes on disk under its key.
    var onlyStoresOriginalBytesOnDisk: Bool {
        context.storeCacheType == .disk && (context.queryCacheType == .none || context.queryCacheType == .disk)
            && transformer == nil && !context.derivesFromOriginal
            && context.cacheSerializer == nil && settings.cacheSerializer == nil
            && !options.contains(.refreshCached)
    }
}
