import Synchronization

/// Decoded images in memory, limited by total cost and count with least-recently-used eviction
/// that holds the limits strictly: after every insert the totals are within them (SDWebImage's
/// `SDMemoryCache`, without NSCache's "limits are hints").
///
/// With ``MemoryCacheConfig/usesWeakCache``, an evicted image that is still referenced elsewhere
/// is found again (and re-admitted) rather than decoded a second time. The weak reference is taken
/// only when an image leaves the LRU list: a Swift object that has ever been weakly referenced
/// moves its reference count to a side table, and every retain and release of it takes a slow
/// path — on a hit, most of the time (ManagerBenchmarks).
public final class MemoryCache: Sendable {
    private struct State {
        var config: MemoryCacheConfig
        var lru = LRUList<Image>()
        var weak: [String: WeakImage] = [:]
    }

    private struct WeakImage {
        weak var image: Image?
    }

    private let state: Mutex<State>

    public init(config: MemoryCacheConfig = MemoryCacheConfig()) {
        state = Mutex(State(config: config))
    }

    /// The limits; lowering them trims at once.
    public var config: MemoryCacheConfig {
        get { state.withLock { $0.config } }
        set {
            state.withLock { state in
                state.config = newValue
                MemoryCache.enforceLimits(&state)
            }
        }
    }

    /// The image for `key`, marking it recently used; from the weak table if it was evicted but
    /// is still alive elsewhere.
    public func image(forKey key: String) -> Image? {
        state.withLock { state in
            if let image = state.lru.value(forKey: key) { return image }
            guard state.config.usesWeakCache, let image = state.weak[key]?.image else { return nil }
            MemoryCache.admit(image, forKey: key, cost: image.cost, into: &state)
            return image
        }
    }

    /// Stores `image`; evicts least recently used images until both limits hold. An image whose
    /// cost alone exceeds the cost limit is not kept strongly (only weakly, when enabled).
    public func setImage(_ image: Image, forKey key: String, cost: Int? = nil) {
        state.withLock { state in
            MemoryCache.admit(image, forKey: key, cost: cost ?? image.cost, into: &state)
        }
    }

    public func removeImage(forKey key: String) {
        state.withLock { state in
            state.lru.remove(key)
            state.weak.removeValue(forKey: key)
        }
    }

    /// Empties the cache, weak table included.
    public func removeAll() {
        state.withLock { state in
            state.lru.removeAll()
            state.weak.removeAll()
        }
    }

    /// Evicts least recently used images until the total cost is at most `cost` — what an app
    /// calls under memory pressure (Linux has no memory-warning notification). Weak references
    /// stay, so images still in use are not lost.
    public func trim(toCost cost: Int) {
        state.withLock { state in
            while state.lru.totalCost > max(0, cost), MemoryCache.evictLeastRecent(&state) {}
        }
    }

    /// Evicts least recently used images until at most `count` remain.
    public func trim(toCount count: Int) {
        state.withLock { state in
            while state.lru.count > max(0, count), MemoryCache.evictLeastRecent(&state) {}
        }
    }

    /// Sum of the costs of the images held strongly.
    public var totalCost: Int { state.withLock { $0.lru.totalCost } }
    /// Number of images held strongly.
    public var totalCount: Int { state.withLock { $0.lru.count } }

    private static func admit(_ image: Image, forKey key: String, cost: Int, into state: inout State) {
        let limit = state.config.costLimit
        if limit > 0 && cost > limit {
            state.lru.remove(key)  // a stale smaller version must not survive the replace
            if state.config.usesWeakCache { holdWeakly(image, forKey: key, in: &state) }
            return
        }
        state.lru.set(image, forKey: key, cost: cost)
        state.weak.removeValue(forKey: key)  // held strongly again
        enforceLimits(&state)
    }

    private static func enforceLimits(_ state: inout State) {
        let costLimit = state.config.costLimit
        let countLimit = state.config.countLimit
        while (costLimit > 0 && state.lru.totalCost > costLimit) || (countLimit > 0 && state.lru.count > countLimit) {
            guard evictLeastRecent(&state) else { break }
        }
    }

    /// Drops the least recently used image from the list, keeping a weak reference to it when the
    /// weak cache is on. Returns false when the list was empty.
    private static func evictLeastRecent(_ state: inout State) -> Bool {
        guard let (key, image) = state.lru.removeLeastRecent() else { return false }
        if state.config.usesWeakCache { holdWeakly(image, forKey: key, in: &state) }
        return true
    }

    private static func holdWeakly(_ image: Image, forKey key: String, in state: inout State) {
        state.weak[key] = WeakImage(image: image)
        pruneWeakTable(&state)
    }

    /// Dead weak entries are dropped once the table has grown well past the live set, so the
    /// sweep's cost is amortised over many inserts.
    private static func pruneWeakTable(_ state: inout State) {
        guard state.weak.count > max(256, state.lru.count * 2) else { return }
        state.weak = state.weak.filter { $0.value.image != nil }
    }
}
