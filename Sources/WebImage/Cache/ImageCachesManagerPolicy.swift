/// How an ``ImageCachesManager`` spreads one operation over its caches (SDWebImage's
/// `SDImageCachesManagerOperationPolicy`). "Highest" is the cache added last.
public enum ImageCachesManagerPolicy: Sendable, Hashable, CaseIterable {
    /// Only the highest-priority cache.
    case highestOnly
    /// Only the lowest-priority cache.
    case lowestOnly
    /// All caches at once; for queries and lookups the first answer wins — a memory hit first,
    /// from the first cache holding one in memory, as SD answers those on the caller's thread.
    case concurrent
    /// One cache after another, highest first; queries and lookups stop at the first answer.
    case serial
}
