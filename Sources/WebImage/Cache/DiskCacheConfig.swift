import Foundation

/// Which date of a disk cache entry ages it (SDWebImage's `SDImageCacheConfigExpireType`).
public enum DiskCacheExpireType: Sendable, Hashable, CaseIterable {
    /// The last read or write: an image still being shown stays. ``DiskCache`` records reads
    /// itself (see ``DiskCache/data(forKey:)``), since Linux mounts with `relatime`/`noatime`
    /// do not keep access times current.
    case accessDate
    /// The last write (SD's default).
    case modificationDate
}

/// Limits and behaviour of a ``DiskCache`` (the disk half of SDWebImage's `SDImageCacheConfig`).
public struct DiskCacheConfig: Sendable, Hashable {
    /// One week, SD's default.
    public static let defaultMaxDiskAge: TimeInterval = 7 * 24 * 60 * 60

    /// Entries older than this (by ``expireType``) go in ``DiskCache/removeExpiredData()``;
    /// negative = never expire.
    public var maxDiskAge: TimeInterval
    /// Which date ``maxDiskAge`` and size trimming look at (oldest first).
    public var expireType: DiskCacheExpireType
    /// Most bytes on disk, entries plus their metadata; 0 = no limit (SD's default). Kept on every
    /// store: a store that goes over removes the oldest entries until the total is at most half.
    public var maxDiskSize: Int
    /// `fsync` each entry before it is renamed into place, and the directory after the rename.
    /// A killed process never leaves a partial entry either way (the rename is atomic); with this,
    /// an entry whose store has returned also survives a power loss or kernel crash (on file
    /// systems that honour `fsync`), at the price of two disk flushes per store. Removals and
    /// trimming are not flushed: after a crash a removed entry may come back, never a torn one.
    public var synchronizesWrites: Bool

    public init(
        maxDiskAge: TimeInterval = DiskCacheConfig.defaultMaxDiskAge,
        expireType: DiskCacheExpireType = .modificationDate,
        maxDiskSize: Int = 0,
        synchronizesWrites: Bool = false
    ) {
        self.maxDiskAge = maxDiskAge
        self.expireType = expireType
        self.maxDiskSize = max(0, maxDiskSize)
        self.synchronizesWrites = synchronizesWrites
    }
}
