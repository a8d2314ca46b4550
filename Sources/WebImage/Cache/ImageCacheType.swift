/// Where an image was found or should be stored (SDWebImage's `SDImageCacheType`).
public enum ImageCacheType: Sendable, Hashable, CaseIterable {
    /// Not cached: from the network, or not to be stored.
    case none
    case memory
    case disk
    /// Memory and disk.
    case all

    public var includesMemory: Bool { self == .memory || self == .all }
    public var includesDisk: Bool { self == .disk || self == .all }
}
