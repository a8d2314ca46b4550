import Dispatch
import Foundation
import Synchronization

/// The default two-tier image cache (SDWebImage's `SDImageCache`): decoded images in a
/// ``MemoryCache``, encoded bytes in a ``DiskCache``.
///
/// - Stores put the image in memory at once and write the disk on a background queue; the async
///   form returns when the bytes are on disk, the callback form calls back then.
/// - Queries look in memory first, then read the disk bytes on the background queue and decode
///   them on ``ImageWorkQueue/decoding`` (never on the caller's executor), and copy the decoded
///   image into memory.
/// - An image stored without bytes is encoded on ``ImageWorkQueue/processing`` before its write
///   is queued, so a slow encode never holds up disk reads.
/// - A disk entry that turns out not to be an image (corrupt or cut-off bytes) is removed when a
///   query finds it, so it does not fail again on every launch.
public final class ImageCache: ImageCaching {
    /// The shared cache in ``DiskCache/defaultDirectory(namespace:)`` with namespace `default`.
    public static let shared = ImageCache()

    public let config: ImageCacheConfig
    public let memoryCache: MemoryCache
    public let diskCache: DiskCache
    /// Decodes disk hits and encodes images stored without bytes.
    public let coders: ImageCodersManager
    /// Disk reads and writes. Reads run concurrently; stores, removals and clears are barriers.
    /// Internal, not private: a spec suspends it to put two writes in a known order.
    let ioQueue = DispatchQueue(label: "WebImage.ImageCache.io", qos: .utility, attributes: .concurrent)
    /// Writes land in the order they were asked for (a clear after a background store never finds
    /// the entry coming back), although encodes finish out of order. Internal: a spec watches a store begin.
    let writeOrder = Mutex(DiskWriteOrder())
    /// Disk writes asked for and not yet landed (``waitForPendingDiskWork()``).
    private let pendingWrites = DispatchGroup()

    /// A cache whose disk tier is `directory`, or `DiskCache.defaultDirectory(namespace:)`.
    public init(
        namespace: String = "default", directory: URL? = nil, config: ImageCacheConfig = .default,
        coders: ImageCodersManager = .shared
    ) {
        self.config = config
        self.coders = coders
        memoryCache = MemoryCache(config: config.memory)
        diskCache = DiskCache(
            directory: directory ?? DiskCache.defaultDirectory(namespace: namespace), config: config.disk)
    }

    // MARK: - Tiers one at a time

    /// The image in memory for `key`, without touching the disk.
    public func imageFromMemoryCache(forKey key: String) -> Image? {
        memoryCache.image(forKey: key)
    }

    /// Reads and decodes the disk entry for `key` (no memory lookup, no memory sync).
    public func imageFromDiskCache(forKey key: String, decodeOptions: ImageDecodeOptions = .default) async -> Image? {
        await diskResult(forKey: key, options: [.skipMemorySync], decodeOptions: decodeOptions, cacheType: .disk)?.image
    }

    /// The encoded bytes on disk for `key`.
    public func diskImageData(forKey key: String) async -> Data? {
        await io { self.diskCache.data(forKey: key) }
    }

    public func diskImageDataExists(forKey key: String) async -> Bool {
        await io { self.diskCache.containsData(forKey: key) }
    }

    /// The file `key` is (or would be) stored in (SD's `cachePathForKey:`).
    public func cachePath(forKey key: String) -> String {
        diskCache.path(forKey: key)
    }

    /// Puts `image` in memory only (nothing when ``ImageCacheConfig/shouldCacheImagesInMemory`` is off).
    public func storeImageToMemory(_ image: Image, forKey key: String) {
        guard config.shouldCacheImagesInMemory else { return }
        memoryCache.setImage(image, forKey: key)
    }

    /// Writes `data` to disk only, with HTTP validators for later revalidation.
    public func storeImageDataToDisk(_ data: Data, forKey key: String, validators: HTTPValidators? = nil) async throws {
        try await writeToDisk(nil, data: data, forKey: key, validators: validators)
    }

    // MARK: - ImageCaching

    public func queryImage(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType
    ) async -> ImageCacheResult? {
        if let hit = memoryResult(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType) {
            guard options.contains(.queryMemoryData) else { return hit }
            let data = await diskImageData(forKey: key)
            return ImageCacheResult(image: hit.image, data: data, cacheType: .memory)
        }
        guard cacheType.includesDisk, !Task.isCancelled else { return nil }
        return await diskResult(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
    }

    /// The callback form, with SD's timing: a memory hit (without `queryMemoryData`) answers
    /// before this returns, and so does everything with `queryDiskDataSync`; otherwise the
    /// completion runs on a background thread. It fires exactly once, or — after `cancel()` —
    /// with `nil` inside the cancel call, and never again.
    @discardableResult
    public func queryImage(
        forKey key: String, options: ImageCacheQueryOptions = [], decodeOptions: ImageDecodeOptions = .default,
        cacheType: ImageCacheType = .all, completion: @escaping @Sendable (ImageCacheResult?) -> Void
    ) -> ImageCacheToken {
        let hit = memoryResult(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
        if let hit, !options.contains(.queryMemoryData) {
            completion(hit)
            return .finished()
        }
        if options.contains(.queryDiskDataSync) {
            let result = hit.map { ImageCacheResult(image: $0.image, data: diskCache.data(forKey: key), cacheType: .memory) }
                ?? (cacheType.includesDisk ? diskCache.data(forKey: key).flatMap {
                    decodedResult($0, forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
                } : nil)
            completion(result)
            return .finished()
        }
        let token = ImageCacheToken(completion: completion)
        token.attach(Task {
            let result = await queryImage(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
            token.finish(with: result)
        })
        return token
    }

    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws {
        try await store(image, data: data, forKey: key, cacheType: cacheType, validators: nil)
    }

    /// Stores `image` in memory at once and `data` — or the image's original bytes, or the image
    /// encoded (``ImageCacheConfig/encodeOptions``) — on disk with `validators`; returns when the
    /// disk write is done. Throws the encoder's or the disk's error; the memory tier keeps the
    /// image either way. When a later store or removal of `key` overtakes this one (the last asked
    /// for wins), this one returns once that later write is done.
    public func store(
        _ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType, validators: HTTPValidators?
    ) async throws {
        if let image, cacheType.includesMemory { storeImageToMemory(image, forKey: key) }
        guard cacheType.includesDisk, image != nil || data != nil else { return }
        try await writeToDisk(image, data: data, forKey: key, validators: validators)
    }

    /// The callback form of ``store(_:data:forKey:cacheType:validators:)``: the memory tier is
    /// updated before this returns; `completion` (if any) runs once the disk write is done, with
    /// its error.
    public func store(
        _ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType = .all,
        validators: HTTPValidators? = nil, completion: (@Sendable ((any Error)?) -> Void)?
    ) {
        if let image, cacheType.includesMemory { storeImageToMemory(image, forKey: key) }
        guard cacheType.includesDisk, image != nil || data != nil else {
            completion?(nil)
            return
        }
        writeToDisk(image, data: data, forKey: key, validators: validators) { completion?($0) }
    }

    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memoryCache.removeImage(forKey: key) }
        guard cacheType.includesDisk else { return }
        let ticket = writeOrder.withLock { $0.ticket(for: key) }
        await io(barrier: true) {
            self.diskCache.removeData(forKey: key)
            self.endTicket(ticket, forKey: key)
        }
    }

    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        if cacheType.includesMemory, memoryCache.image(forKey: key) != nil { return .memory }
        if cacheType.includesDisk, await diskImageDataExists(forKey: key) { return .disk }
        return .none
    }

    public func clear(_ cacheType: ImageCacheType) async {
        if cacheType.includesMemory { memoryCache.removeAll() }
        guard cacheType.includesDisk else { return }
        let waiters = writeOrder.withLock { $0.clear() }
        await io(barrier: true) { self.diskCache.removeAll() }
        waiters.forEach { $0() }
    }

    // MARK: - Disk maintenance

    /// Removes expired entries and trims to the size limit (SD's `deleteOldFiles`); Linux has no
    /// app-lifecycle events to hang this on, so call it at startup or on a timer.
    @discardableResult
    public func removeExpiredData() async -> (removedCount: Int, removedSize: Int) {
        await io(barrier: true) { self.diskCache.removeExpiredData() }
    }

    /// Returns once every disk write asked for so far has landed (encodes included) and the disk
    /// cache's index build, with the trim it owes, is done. Call it before the process exits (the
    /// CLI does): a store's callback may come later, and the build runs in the background.
    public func waitForPendingDiskWork() async {
        await withCheckedContinuation { continuation in
            pendingWrites.notify(queue: ioQueue) { continuation.resume() }
        }
        await io { self.diskCache.waitForPendingIndexBuild() }
    }

    /// Bytes on disk (SD's `totalDiskSize`).
    public func totalDiskSize() async -> Int { await io { self.diskCache.totalSize } }

    /// Entries on disk (SD's `totalDiskCount`).
    public func totalDiskCount() async -> Int { await io { self.diskCache.totalCount } }

    // MARK: - Internals

    private func memoryResult(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType
    ) -> ImageCacheResult? {
        guard cacheType.includesMemory, let image = memoryCache.image(forKey: key) else { return nil }
        return .memoryHit(image, decodeOptions: decodeOptions)
    }

    /// Reads on the disk queue, decodes on the decoding queue.
    private func diskResult(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType
    ) async -> ImageCacheResult? {
        guard let data = await io({ self.diskCache.data(forKey: key) }) else { return nil }
        if options.contains(.avoidDecodeImage) { return ImageCacheResult(image: nil, data: data, cacheType: .disk) }
        return await ImageWorkQueue.decoding.run {
            self.decodedResult(data, forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
        }
    }

    /// Runs on the caller's thread: decode, sync to memory.
    private func decodedResult(
        _ data: Data, forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType
    ) -> ImageCacheResult? {
        if options.contains(.avoidDecodeImage) { return ImageCacheResult(image: nil, data: data, cacheType: .disk) }
        var decodeOptions = decodeOptions
        if decodeOptions.scaleFactor == nil { decodeOptions.scaleFactor = ImageScale.scaleFactor(forKey: key) }
        let image: Image
        do {
            image = try coders.decode(data, options: decodeOptions)
        } catch let error as ImageCoderError {
            if error.meansNotAnImage { diskCache.removeData(forKey: key) }
            return nil
        } catch {
            return nil
        }
        // A first-frame still or a thumbnail must not stand in for the full image under the same
        // key (SD's rule; the manager queries derived keys without thumbnail options).
        if !decodeOptions.decodeFirstFrameOnly, decodeOptions.thumbnailPixelSize == nil, cacheType.includesMemory, !options.contains(.skipMemorySync) {
            storeImageToMemory(image, forKey: key)
        }
        return ImageCacheResult(image: image, data: data, cacheType: .disk)
    }

    /// Writes `data`, or `image` encoded on the processing queue first, in the order asked for;
    /// `completion` gets the encoder's or the disk's error once the write landed (or was
    /// superseded by a later write of the key, which is not an error, and that one is over too).
    private func writeToDisk(
        _ image: Image?, data: Data?, forKey key: String, validators: HTTPValidators?,
        completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let ticket = writeOrder.withLock { $0.ticket(for: key) }
        pendingWrites.enter()
        let finish: @Sendable ((any Error)?) -> Void = { error in
            completion(error)
            self.pendingWrites.leave()
        }
        let write: @Sendable (Data) -> Void = { bytes in
            // A barrier: a disk query asked for after this store waits for it and finds the bytes
            // (SD's serial disk queue gives that). As a reader it let a query overtake the write —
            // a server variant asked for just after another one fetched their source again.
            self.ioQueue.async(flags: .barrier) {
                do {
                    try self.store(bytes, ticket: ticket, forKey: key, validators: validators)
                    self.afterSettling(key) { finish(nil) }
                } catch {
                    self.afterSettling(key) { finish(error) }
                }
            }
        }
        if let data { return write(data) }
        guard let image else { return endWrite(ticket, forKey: key, then: { finish(nil) }) }
        let (coders, options) = (self.coders, config.encodeOptions)
        ImageWorkQueue.processing.async {
            do {
                write(try ImageDiskEncoding.data(for: image, coders: coders, options: options))
            } catch {
                self.endWrite(ticket, forKey: key) { finish(error) }
            }
        }
    }

    nonisolated(nonsending) private func writeToDisk(_ image: Image?, data: Data?, forKey key: String, validators: HTTPValidators?) async throws {
        if let data, !diskCache.config.synchronizesWrites {
            // A reader in the disk queue's turn, not a barrier: the caller waits for it anyway. Never
            // written on the caller's thread, which may be an event loop.
            let ticket = writeOrder.withLock { $0.ticket(for: key) }
            let written = await io { Result { try self.store(data, ticket: ticket, forKey: key, validators: validators) } }
            if !writeOrder.withLock({ $0.isSettled(key) }) {
                await withCheckedContinuation { continuation in afterSettling(key) { continuation.resume() } }
            }
            return try written.get()
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            writeToDisk(image, data: data, forKey: key, validators: validators) { error in
                continuation.resume(with: error.map { .failure($0) } ?? .success(()))
            }
        }
    }

    /// One disk write, in the disk queue's turn (a barrier for callback stores, a reader for
    /// awaited ones, whose caller waits anyway). Writes of one key keep their order at the
    /// rename, where the disk cache asks whether `ticket` is still the last store asked for.
    /// Ends the ticket whatever happens; a caller to be told "done" waits for ``afterSettling(_:_:)``.
    private func store(_ bytes: Data, ticket: UInt64, forKey key: String, validators: HTTPValidators?) throws {
        defer { endTicket(ticket, forKey: key) }
        try diskCache.store(bytes, forKey: key, validators: validators) {
            self.writeOrder.withLock { $0.isCurrent(ticket, for: key) }
        }
    }

    /// Ends the write with `ticket` without writing (its encode failed), then runs `then` once the key has settled.
    private func endWrite(_ ticket: UInt64, forKey key: String, then: @escaping DiskWriteOrder.Waiter) {
        endTicket(ticket, forKey: key)
        afterSettling(key, then)
    }

    /// The write with `ticket` is over; runs the waiters of `key` if that settled it.
    private func endTicket(_ ticket: UInt64, forKey key: String) {
        writeOrder.withLock { $0.end(ticket, for: key) }.forEach { $0() }
    }

    /// Runs `then` once no write of `key` is in flight: at once, unless this write was superseded
    /// by one still going — a store is not reported done before what replaced it is on disk.
    private func afterSettling(_ key: String, _ then: @escaping DiskWriteOrder.Waiter) {
        if !writeOrder.withLock({ $0.whenSettled(key, then) }) { then() }
    }

    /// ``DiskCache/refreshValidators(_:forKey:)`` on the disk queue, after earlier stores of `key`.
    public func refreshValidators(_ fresh: HTTPValidators, forKey key: String) async {
        await io(barrier: true) { try? self.diskCache.refreshValidators(fresh, forKey: key) }
    }

    func io<T: Sendable>(barrier: Bool = false, _ work: @escaping @Sendable () -> T) async -> T {
        await ioQueue.diskWork(barrier: barrier, work)
    }

    /// The validators stored with `key`'s bytes, read on the disk queue.
    package func storedValidators(forKey key: String) async -> HTTPValidators? {
        await io { self.diskCache.validators(forKey: key) }
    }

}

extension ImageCoderError {
    /// Bytes no build could ever decode — worth deleting from a cache. A size over the limit or a
    /// format this build lacks is not: another configuration may read them.
    var meansNotAnImage: Bool {
        switch self {
        case .emptyData, .truncated, .corrupt: true
        case .unsupportedFormat(let format): format == .undefined
        case .tooLarge, .encodingFailed, .outOfMemory, .libraryUnavailable, .decodeBudgetExceeded, .tooManyScans: false
        }
    }
}
