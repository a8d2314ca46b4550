import Foundation

/// glibc's allocator settings for a long-running server. `mallopt` lives in `malloc.h`, which the
/// Glibc module does not import, so it is looked up by name.
enum MallocTuning {
    /// Allocations from `bytes` up get pages of their own, given back when freed: bitmaps the cost
    /// plan counts as freed leave the resident set (glibc's threshold otherwise grows to 32 MiB).
    static func mapAllocations(from bytes: Int32) {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in malloc.h
        _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, bytes)
    }
}
