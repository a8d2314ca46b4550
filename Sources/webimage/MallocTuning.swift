import Foundation

/// glibc's allocator settings for commands that make and free many big bitmaps (`serve`, `show`).
/// `mallopt` lives in `malloc.h`, which the Glibc module does not import, so it is looked up by name.
enum MallocTuning {
    /// Allocations from `bytes` up get pages of their own, given back when freed: bitmaps the cost
    /// plan counts as freed leave the resident set (glibc's threshold otherwise grows to 32 MiB).
    static func mapAllocations(from bytes: Int32) {
        mallopt(-3, bytes)  // M_MMAP_THRESHOLD in malloc.h
    }

    /// Every thread allocates from the main arena, so a block one thread frees is reused by the
    /// next allocation on any thread; per-thread arenas each keep freed blocks of their own, more
    /// of them the more threads a busy machine spreads the work over. Call it before any other
    /// thread allocates: an arena made earlier stays in use.
    static func useOneArena() {
        mallopt(-8, 1)  // M_ARENA_MAX in malloc.h
    }

    private static func mallopt(_ parameter: Int32, _ value: Int32) {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        _ = unsafeBitCast(symbol, to: Mallopt.self)(parameter, value)
    }
}
