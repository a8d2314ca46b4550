import Foundation

/// The long way of a load (SD 5's `callCacheProcess…`, `callDownloadProcess…`,
/// `callTransformProcess…`, `callStoreCacheProcess…`), as one async function.
extension ImageManager {
    func isBlocked(_ request: LoadRequest) -> Bool {
        !request.options.contains(.retryFailed) && failedURLs.contains(request.url)
    }

    /// The answer, and whether it is the refreshCached image already sent (a 304); `callers` are
    /// the callers waiting, who each get the progress and a refreshCached load's cached image.
    func perform(
        _ request: LoadRequest, callers: @escaping @Sendable () -> [LoadCaller]
    ) async throws(WebImageError) -> (ImageResult, Bool) {
        try checkAdmitted(request)
        var cached: ImageResult?
        if let key = request.key, !request.options.contains(.fromLoaderOnly) {
            cached = await queryCache(request, key: key)
            if cached == nil, request.context.derivesFromOriginal, let originalKey = request.originalKey, originalKey != key {
                cached = await deriveFromCachedOriginal(request, key: key, originalKey: originalKey)
            }
            try checkCancelled()
            if let cached {
                instrumentation.cacheHit(cached.cacheType)
                guard request.options.contains(.refreshCached) else { return (cached, false) }
                for caller in callers() { caller.intermediate?(cached) }
            }
        }
        return try await download(request, cached: cached, callers: callers)
    }

    private func queryCache(_ request: LoadRequest, key: String) async -> ImageResult? {
        let result = await queryImage(
            in: request.cache, forKey: key, options: request.cacheQueryOptions, decodeOptions: request.fullKeyDecodeOptions,
            cacheType: request.context.queryCacheType, request: request)
        guard let result, let image = result.image else { return nil }
        return ImageResult(image: image, data: result.data, cacheType: result.cacheType, url: request.url)
    }

    /// A thumbnail or transform of an original that is cached: decode (as a thumbnail) and
    /// transform it, store the result under the full key, no download.
    private func deriveFromCachedOriginal(_ request: LoadRequest, key: String, originalKey: String) async -> ImageResult? {
        // A thumbnail decoded from the original's bytes must not land in memory under the original's key.
        var options = request.cacheQueryOptions
        if request.context.thumbnailPixelSize != nil { options.insert(.skipMemorySync) }
        let original = await queryImage(
            in: request.originalCache, forKey: originalKey, options: options, decodeOptions: request.decodeOptions,
            cacheType: request.context.originalQueryCacheType, request: request)
        guard let original, let image = original.image else { return nil }
        let final = await transform(image, request: request, key: key).with(originalData: .some(nil))
        let storeData = serializedData(final, originalData: original.data, isDerived: true, request: request)
        await store(final, data: storeData, key: key, in: request.cache, cacheType: request.context.storeCacheType,
                    validators: nil, wait: request.options.contains(.waitStoreCache))
        return ImageResult(image: final, data: storeData, cacheType: original.cacheType, url: request.url)
    }

    /// `cached` is set only for a refreshCached load, whose cached image was already sent.
    private func download(
        _ request: LoadRequest, cached: ImageResult?, callers: @escaping @Sendable () -> [LoadCaller]
    ) async throws(WebImageError) -> (ImageResult, Bool) {
        let loader: any ImageLoader
        switch self.loader(for: request) {
        case .success(let chosen): loader = chosen
        case .failure(let refusal):
            if let cached { return (cached, true) }  // already sent as the refreshCached answer
            throw fail(refusal, request)
        }
        let validators = cached == nil ? nil : await cachedValidators(request)
        // Callers who share a load share an appetite for progress (it is part of their key).
        var progress: ImageLoaderProgressHandler?
        if callers().contains(where: { $0.progress != nil }) {
            progress = { @Sendable progress in for caller in callers() { caller.progress?(progress) } }
        }
        let loaded: ImageLoaderResult
        do {
            loaded = try await callLoader(
                loader, request, context: request.loaderContext(cachedValidators: validators, cachedImage: validators == nil ? nil : cached?.image),
                progress: progress, refreshing: cached != nil)
        } catch {
            if error == .cacheNotModified, let cached { return (cached, true) }  // 304: the cached image stands
            throw recordFailure(error, request)
        }
        if loaded.isNotModified, let cached {
            if let fresh = loaded.validators, let cache = request.originalCache as? ImageCache, let key = request.originalKey {
                // Not awaited: the answer need not wait behind every queued disk read and write.
                Task.detached(priority: .utility) { await cache.refreshValidators(fresh, forKey: key) }
            }
            return (cached, true)
        }
        instrumentation.downloaded(bytes: loaded.data.count)  // a 304's data is the cached copy, not a download
        try checkCancelled()
        return (await finishDownload(loaded, request: request), false)
    }

    /// Fails a load that may not start: an empty URL, or one on the blocklist.
    func checkAdmitted(_ request: LoadRequest) throws(WebImageError) {
        guard !request.url.absoluteString.isEmpty else { throw fail(.invalidURL(""), request) }
        if isBlocked(request) { throw fail(.blackListed, request) }
    }

    /// The loader that takes `request` (``ImageLoader/loader(for:)``: a loaders manager's choice is
    /// made here, once a load), or why it may not go to one (only the cache may answer it).
    func loader(for request: LoadRequest) -> Result<any ImageLoader, WebImageError> {
        let url = request.url
        guard let chosen = request.loader.loader(for: url) else { return .failure(.invalidURL(url.absoluteString)) }
        guard !request.options.contains(.fromCacheOnly), request.settings.shouldDownload?(url) ?? true else { return .failure(.notInCache) }
        return .success(chosen)
    }

    /// `loader`'s answer; a success under ``WebImageOptions/retryFailed`` takes the URL off the blocklist.
    /// `refreshing`: a refreshCached load of a cached image, which SD loads without progressive
    /// decoding (the cached image stays until the new one is whole).
    nonisolated(nonsending) func callLoader(
        _ loader: any ImageLoader, _ request: LoadRequest, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?,
        refreshing: Bool = false
    ) async throws(WebImageError) -> ImageLoaderResult {
        var options = request.options.downloaderOptions
        if refreshing { options.remove(.progressiveLoad) }
        let loaded = try await loader.loadImage(with: request.url, options: options, context: context, progress: progress)
        if request.options.contains(.retryFailed) { failedURLs.remove(request.url) }
        return loaded
    }

    /// Blocklists the URL when the rules say `error` warrants it (never for a cancel), counts the
    /// failure, and returns it to throw.
    func recordFailure(_ error: WebImageError, _ request: LoadRequest) -> WebImageError {
        if error != .cancelled {
            let block = request.settings.shouldBlockFailedURL?(request.url, error)
                ?? request.loader.shouldBlockFailedURL(request.url, error: error)
            if block { failedURLs.insert(request.url) }
        }
        return fail(error, request)
    }

    /// Transform and store a downloaded image, then answer (or store after answering).
    private func finishDownload(_ loaded: ImageLoaderResult, request: LoadRequest) async -> ImageResult {
        let key = request.key
        let isDerived = request.context.derivesFromOriginal
        var final = loaded.image
        if let key { final = await transform(loaded.image, request: request, key: key) }
        // A derived image must not carry the original's bytes: stored, they would decode to the full image.
        if isDerived { final = final.with(originalData: .some(nil)) }
        let result = ImageResult(image: final, data: isDerived ? nil : loaded.data, cacheType: .none, url: request.url)
        guard let key, let originalKey = request.originalKey else { return result }
        let wait = request.options.contains(.waitStoreCache)
        if isDerived, originalKey != key, request.context.originalStoreCacheType != .none {
            // The decoded image is the original only when no thumbnail was decoded.
            let originalImage = request.context.thumbnailPixelSize == nil ? loaded.image : nil
            var type = request.context.originalStoreCacheType
            if originalImage == nil, type == .all { type = .disk }
            if originalImage != nil || type.includesDisk {
                await store(originalImage, data: loaded.data, key: originalKey, in: request.originalCache, cacheType: type,
                            validators: loaded.validators, wait: wait)
            }
        }
        let data = serializedData(final, originalData: loaded.data, isDerived: isDerived, request: request)
        // A first-frame still must not stand in for the animation in memory (the disk keeps the bytes).
        var storeType = request.context.storeCacheType
        if request.options.contains(.decodeFirstFrameOnly), storeType.includesMemory {
            storeType = storeType.includesDisk ? .disk : .none
        }
        await store(final, data: data, key: key, in: request.cache, cacheType: storeType,
                    validators: isDerived ? nil : loaded.validators, wait: wait)
        return result
    }

    /// Transforms in the processing queue's turn, off the cooperative pool.
    private func transform(_ image: Image, request: LoadRequest, key: String) async -> Image {
        guard let transformer = request.transformer,
              !image.isAnimated || request.options.contains(.transformAnimatedImage)
        else { return image }
        let instrumentation = self.instrumentation
        return await ImageWorkQueue.processing.run {
            instrumentation.timeTransform { transformer.transform(image, forKey: key) } ?? image
        }
    }

    /// The bytes to store: the serializer's, else the original bytes for an original image, else
    /// nil (the cache encodes the derived image).
    private func serializedData(_ image: Image, originalData: Data?, isDerived: Bool, request: LoadRequest) -> Data? {
        let serializer = request.context.cacheSerializer ?? request.settings.cacheSerializer
        let original = isDerived ? nil : originalData
        if let serializer { return serializer(image, original, request.url) }
        return original
    }

    /// Stores in the cache. The memory tier of an ``ImageCache`` is filled before this returns
    /// either way, so the answer is a memory hit for the next load at once; the disk write is
    /// awaited only with `wait` (``WebImageOptions/waitStoreCache``).
    nonisolated(nonsending) func store(
        _ image: Image?, data: Data?, key: String, in target: any ImageCaching, cacheType: ImageCacheType,
        validators: HTTPValidators?, wait: Bool
    ) async {
        guard cacheType != .none else { return }
        let instrumentation = self.instrumentation
        guard let cache = target as? ImageCache else {
            let write: @Sendable () async -> Void = {
                do {
                    try await target.store(image, data: data, forKey: key, cacheType: cacheType, validators: validators)
                } catch {
                    instrumentation.storeFailed(key: key, error: error)
                }
            }
            if wait { await write() } else { Task.detached(priority: .utility) { await write() } }
            return
        }
        if wait {
            do {
                try await cache.store(image, data: data, forKey: key, cacheType: cacheType, validators: validators)
            } catch {
                instrumentation.storeFailed(key: key, error: error)
            }
        } else {
            cache.store(image, data: data, forKey: key, cacheType: cacheType, validators: validators) { error in
                if let error { instrumentation.storeFailed(key: key, error: error) }
            }
        }
    }

    /// The validators stored with the original's bytes, for a conditional request.
    private func cachedValidators(_ request: LoadRequest) async -> HTTPValidators? {
        guard let cache = request.originalCache as? ImageCache, let key = request.originalKey else { return nil }
        return await cache.storedValidators(forKey: key)
    }

    /// The load's task is cancelled: its last caller left, or everything was cancelled.
    func checkCancelled() throws(WebImageError) {
        if Task.isCancelled { throw .cancelled }
    }

    func fail(_ error: WebImageError, _ request: LoadRequest) -> WebImageError {
        instrumentation.failed(request.url, error: error)
        return error
    }
}
