import Foundation

/// How an ``ImageCache`` behaves (SDWebImage's `SDImageCacheConfig`): the memory tier's limits,
/// the disk tier's limits and where it lives.
public struct ImageCacheConfig: Sendable, Hashable {
    /// Keep decoded images in memory at all (SD's `shouldCacheImagesInMemory`). When `false`,
    /// stores and disk hits skip the memory tier.
    public var shouldCacheImagesInMemory: Bool
    /// Limits of the memory tier (cost, count, weak table).
    public var memory: MemoryCacheConfig
    /// Limits of the disk tier (age, size, expiry date, fsync).
    public var disk: DiskCacheConfig
    /// Encoding used when an image without bytes is stored to disk.
    public var encodeOptions: ImageEncodeOptions

    public init(
        shouldCacheImagesInMemory: Bool = true,
        memory: MemoryCacheConfig = MemoryCacheConfig(),
        disk: DiskCacheConfig = DiskCacheConfig(),
        encodeOptions: ImageEncodeOptions = .default
    ) {
        self.shouldCacheImagesInMemory = shouldCacheImagesInMemory
        self.memory = memory
        self.disk = disk
        self.encodeOptions = encodeOptions
    }

    public static let `default` = ImageCacheConfig()
}
