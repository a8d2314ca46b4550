import Foundation

/// Limits for a ``MemoryCache`` (SDWebImage's `SDImageCacheConfig` memory half).
public struct MemoryCacheConfig: Sendable, Hashable {
    /// Most bytes of decoded pixels kept (``Image/cost``); 0 = no limit.
    public var costLimit: Int
    /// Most images kept; 0 = no limit (SD's default).
    public var countLimit: Int
    /// Keep a weak reference to evicted images, so one still used elsewhere (shown in a view,
    /// held by a request) is found again instead of decoded twice — SD's `shouldUseWeakMemoryCache`.
    public var usesWeakCache: Bool

    public init(costLimit: Int = MemoryCacheConfig.defaultCostLimit, countLimit: Int = 0, usesWeakCache: Bool = true) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.usesWeakCache = usesWeakCache
    }

    /// A quarter of the memory this process may use: physical memory, or the cgroup (container)
    /// limit when that is lower — so a 512 MB container does not get a 6 GB cache because the
    /// host has 24 GB. A quarter is Kingfisher's choice too; it leaves room for the encoded data,
    /// decode buffers and the app itself.
    public static let defaultCostLimit: Int = {
        let physical = ProcessInfo.processInfo.physicalMemory
        let available = min(physical, cgroupMemoryLimit() ?? physical)
        return Int(clamping: available / 4)
    }()

    /// cgroup v2 `memory.max` (or v1 `memory.limit_in_bytes`) for this process, when set.
    static func cgroupMemoryLimit() -> UInt64? {
        for path in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            if let value = UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)), value > 0 {
                return value
            }
        }
        return nil  // "max", missing, or unreadable: no limit beyond physical memory
    }
}
