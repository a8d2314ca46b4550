import Foundation
import WebImage

/// What `webimage cache info` reports about a disk cache directory.
struct CacheInventory {
    let path: String
    let size: Int
    let count: Int
    let oldest: Date?
    let newest: Date?
    /// The size limit in bytes (0 = none).
    let limit: Int

    init(directory: URL, limit: Int) {
        self.limit = limit
        let cache = DiskCache(directory: directory)
        path = directory.path
        size = cache.totalSize
        count = cache.totalCount
        // DiskCache keeps its index private; the dates come from the entries themselves. Hidden
        // names are temp files and the `.meta` sidecar folder, never entries.
        var oldest: Date?
        var newest: Date?
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where !name.hasPrefix(".") {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            guard attributes?[.type] as? FileAttributeType == .typeRegular,
                  let date = attributes?[.modificationDate] as? Date else { continue }
            oldest = min(oldest ?? date, date)
            newest = max(newest ?? date, date)
        }
        self.oldest = oldest
        self.newest = newest
    }

    func text() -> String {
        let rows = [
            ("path", path),
            ("size", "\(ByteCount.text(size)) (\(size) bytes)"),
            ("count", "\(count) entries"),
            ("limit", limit > 0 ? "\(ByteCount.text(limit)) (\(limit) bytes)" : "none"),
            ("oldest", oldest.map(Self.iso8601) ?? "-"),
            ("newest", newest.map(Self.iso8601) ?? "-"),
        ]
        return rows.map { "\($0.0.padding(toLength: 7, withPad: " ", startingAt: 0)) \($0.1)" }.joined(separator: "\n")
    }

    func jsonLine() -> String {
        let date = { (d: Date?) in d.map { "\"\(Self.iso8601($0))\"" } ?? "null" }
        return "{\"path\":\(Self.jsonString(path)),\"size\":\(size),\"count\":\(count),\"oldest\":\(date(oldest)),\"newest\":\(date(newest)),\"limit\":\(limit)}"
    }

    static func iso8601(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    static func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let data = (try? encoder.encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
