import Foundation
import Synchronization

/// Several caches behind one ``ImageCaching`` (SDWebImage's `SDImageCachesManager`): e.g. a
/// process-local ``ImageCache`` in front of a shared tier. The cache added last has the highest
/// priority. Each operation follows its own ``ImageCachesManagerPolicy``; the defaults are SD's.
public final class ImageCachesManager: ImageCaching {
    public struct Policies: Sendable, Hashable {
        public var query: ImageCachesManagerPolicy = .serial
        public var store: ImageCachesManagerPolicy = .highestOnly
        public var remove: ImageCachesManagerPolicy = .concurrent
        public var contains: ImageCachesManagerPolicy = .serial
        public var clear: ImageCachesManagerPolicy = .concurrent
        public init() {}
    }

    private struct State {
        var caches: [any ImageCaching]
        var policies: Policies
    }

    private let state: Mutex<State>

    public init(caches: [any ImageCaching] = [], policies: Policies = Policies()) {
        state = Mutex(State(caches: caches, policies: policies))
    }

    /// The caches, lowest priority first.
    public var caches: [any ImageCaching] { state.withLock { $0.caches } }

    public var policies: Policies {
        get { state.withLock { $0.policies } }
        set { state.withLock { $0.policies = newValue } }
    }

    /// Adds `cache` with the highest priority.
    public func addCache(_ cache: any ImageCaching) {
        state.withLock { $0.caches.append(cache) }
    }

    /// Removes `cache` (compared by identity when it is a class).
    public func removeCache(_ cache: any ImageCaching) {
        state.withLock { $0.caches.removeAll { ($0 as AnyObject) === (cache as AnyObject) } }
    }

    // MARK: - ImageCaching

    public func queryImage(
        forKey key: String, options: ImageCacheQueryOptions, decodeOptions: ImageDecodeOptions,
        cacheType: ImageCacheType
    ) async -> ImageCacheResult? {
        let answersFromMemory = cacheType.includesMemory && !options.contains(.queryMemoryData)
        return await firstAnswer(policy: \.query, memoryHit: { cache in
            guard answersFromMemory, let image = cache.imageFromMemoryCache(forKey: key) else { return nil }
            return .memoryHit(image, decodeOptions: decodeOptions)
        }) {
            await $0.queryImage(forKey: key, options: options, decodeOptions: decodeOptions, cacheType: cacheType)
        }
    }

    /// Stores per the store policy. With several targets (concurrent, serial) every cache is
    /// written; the first error is thrown after all have been tried.
    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws {
        try await store(image, data: data, forKey: key, cacheType: cacheType, validators: nil)
    }

    /// The same, passing `validators` to every cache (those that keep them, e.g. ``ImageCache``, do).
    public func store(
        _ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType, validators: HTTPValidators?
    ) async throws {
        let errors = await forEach(policy: \.store) { cache -> (any Error)? in
            do {
                try await cache.store(image, data: data, forKey: key, cacheType: cacheType, validators: validators)
                return nil
            } catch {
                return error
            }
        }
        if let error = errors.compactMap({ $0 }).first { throw error }
    }

    public func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        _ = await forEach(policy: \.remove) { await $0.removeImage(forKey: key, cacheType: cacheType) }
    }

    public func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        await firstAnswer(policy: \.contains, memoryHit: { cache in
            cacheType.includesMemory && cache.imageFromMemoryCache(forKey: key) != nil ? .memory : nil
        }) { cache -> ImageCacheType? in
            let found = await cache.containsImage(forKey: key, cacheType: cacheType)
            return found == .none ? nil : found
        } ?? .none
    }

    public func clear(_ cacheType: ImageCacheType) async {
        _ = await forEach(policy: \.clear) { await $0.clear(cacheType) }
    }

    /// The first memory hit among the caches the query policy addresses, in its order.
    public func imageFromMemoryCache(forKey key: String) -> Image? {
        for cache in targets(\.query).1 {
            if let image = cache.imageFromMemoryCache(forKey: key) { return image }
        }
        return nil
    }

    // MARK: - Policies

    /// The caches a policy addresses, in the order it visits them (highest first).
    private func targets(_ policy: KeyPath<Policies, ImageCachesManagerPolicy>) -> (ImageCachesManagerPolicy, [any ImageCaching]) {
        state.withLock { state in
            let policy = state.policies[keyPath: policy]
            switch policy {
            case .highestOnly: return (policy, state.caches.last.map { [$0] } ?? [])
            case .lowestOnly: return (policy, state.caches.first.map { [$0] } ?? [])
            case .concurrent, .serial: return (policy, state.caches.reversed())
            }
        }
    }

    /// The first non-nil answer: in priority order (serial), or whichever comes first
    /// (concurrent: answered at once, like SD, without waiting for the slower caches) — save a
    /// memory hit (`memoryHit`), which SD answers on the caller's thread: the first cache with
    /// one answers before any other cache is asked, so no disk can overtake it.
    private func firstAnswer<T: Sendable>(
        policy: KeyPath<Policies, ImageCachesManagerPolicy>, memoryHit: (any ImageCaching) -> T?,
        _ ask: @escaping @Sendable (any ImageCaching) async -> T?
    ) async -> T? {
        let (policy, caches) = targets(policy)
        guard policy == .concurrent else {
            for cache in caches {
                if Task.isCancelled { return nil }
                if let answer = await ask(cache) { return answer }
            }
            return nil
        }
        for cache in caches {
            if let answer = memoryHit(cache) { return answer }
        }
        return await race(caches.map { cache in { await ask(cache) } }, cancellingLosers: false)
    }

    /// Runs `work` on every addressed cache: one after another (serial, single-cache policies)
    /// or all at once (concurrent). Results in visiting order.
    private func forEach<T: Sendable>(
        policy: KeyPath<Policies, ImageCachesManagerPolicy>, _ work: @escaping @Sendable (any ImageCaching) async -> T
    ) async -> [T] {
        let (policy, caches) = targets(policy)
        guard policy == .concurrent else {
            var results: [T] = []
            for cache in caches { results.append(await work(cache)) }
            return results
        }
        return await withTaskGroup(of: (Int, T).self) { group in
            for (index, cache) in caches.enumerated() { group.addTask { (index, await work(cache)) } }
            var results: [(Int, T)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
