import Foundation
import Synchronization
import WebImage

/// Variants in memory (least recently used out first, by bytes) over WebImage's `DiskCache`.
/// Each disk entry carries its type, ETag and `Vary` in a one-line header before the bytes, so
/// one read (one file, one rename when written) gives a consistent answer. Each source has an
/// index entry listing its variants' keys, so a purge removes every one of them.
public final class LocalResultCache: ResultCaching {
    private let disk: DiskCache
    private let memory = Mutex(LRUList<CachedResult>())
    private let memoryLimit: Int
    /// Disk reads and writes block; they run here, never on the caller's thread (``DispatchQueue/diskWork(barrier:_:)``).
    private let io = DispatchQueue(label: "WebImageServer.results", attributes: .concurrent)

    public init(directory: URL, maxDiskBytes: Int, memoryBytes: Int) {
        disk = DiskCache(directory: directory, config: DiskCacheConfig(maxDiskSize: maxDiskBytes))
        memoryLimit = memoryBytes
    }

    public func result(forKey key: String) async -> CachedResult? {
        if let hit = memory.withLock({ $0.value(forKey: key) }) { return hit }
        let stored = await io.diskWork { self.disk.data(forKey: key) }
        guard let stored, let result = Self.decode(stored) else { return nil }
        remember(result, forKey: key)
        return result
    }

    /// Answers once the variant is in memory (the next request hits it); the disk write follows
    /// on the io queue, in order with every other write and purge there (``flush()`` waits for it).
    public func store(_ result: CachedResult, forKey key: String, source: String) async {
        await store(result, forKey: key, sources: [source])
    }

    /// One write of the variant, its key added to each source's index.
    public func store(_ result: CachedResult, forKey key: String, sources: [String]) async {
        remember(result, forKey: key)
        io.async(flags: .barrier) {
            try? self.disk.store(Self.encode(result), forKey: key)
            for source in Set(sources) {
                var keys = self.variantKeys(of: source)
                if !keys.contains(key) {
                    keys.append(key)
                    try? self.disk.store(Data(keys.joined(separator: "\n").utf8), forKey: Self.indexKey(source))
                }
            }
        }
    }

    public func removeResults(forSource source: String) async -> Int {
        let keys = await io.diskWork(barrier: true) {
            let keys = self.variantKeys(of: source)
            for key in keys { self.disk.removeData(forKey: key) }
            self.disk.removeData(forKey: Self.indexKey(source))
            return keys
        }
        memory.withLock { memory in
            for key in keys { memory.remove(key) }
        }
        return keys.count
    }

    /// Runs on the io queue.
    private func variantKeys(of source: String) -> [String] {
        guard let data = disk.data(forKey: Self.indexKey(source)) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private static func indexKey(_ source: String) -> String { "variants-of|" + source }

    /// Waits for the writes already asked for, the disk index build and its trim (before the
    /// process exits).
    public func flush() async {
        await io.diskWork(barrier: true) { self.disk.waitForPendingIndexBuild() }
    }

    private func remember(_ result: CachedResult, forKey key: String) {
        guard result.data.count <= memoryLimit / 8 else { return }  // one huge variant must not flush the rest
        memory.withLock { memory in
            memory.set(result, forKey: key, cost: result.data.count)
            while memory.totalCost > memoryLimit, memory.removeLeastRecent() != nil {}
        }
    }

    private static let magic = "webimage-result/1"

    static func encode(_ result: CachedResult) -> Data {
        // Last-Modified holds spaces: it is the line's last field, kept whole.
        let lastModified = result.lastModified.map { " " + $0.prefix(64).filter { $0 != "\n" } } ?? ""
        var data = Data("\(magic) \(result.contentType) \(result.etag) \(result.variesByAccept ? 1 : 0)\(lastModified)\n".utf8)
        data.append(result.data)
        return data
    }

    static func decode(_ data: Data) -> CachedResult? {
        guard let newline = data.prefix(512).firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let fields = String(decoding: data[data.startIndex..<newline], as: UTF8.self).split(separator: " ", maxSplits: 4)
        guard fields.count >= 4, fields[0] == magic else { return nil }
        return CachedResult(data: Data(data[(newline + 1)...]), contentType: String(fields[1]), etag: String(fields[2]),
                            variesByAccept: fields[3] == "1", lastModified: fields.count == 5 ? String(fields[4]) : nil)
    }
}
