/// A named collection of pinned cache keys, as ``DiskCache/collections()`` lists it: entries a
/// trim never evicts — a comic reader's chapter kept for offline reading.
public struct ImageCollection: Sendable, Hashable {
    public var name: String
    /// Keys in the collection.
    public var count: Int
    /// Keys whose entry is stored.
    public var cachedCount: Int
    /// Bytes of the stored entries.
    public var bytes: Int
    /// Keys not stored (yet, or removed by `cache clear`).
    public var missingCount: Int { count - cachedCount }
}

/// One key of a collection, in its list order (``DiskCache/entries(in:)``).
public struct ImageCollectionEntry: Sendable, Hashable {
    public var key: String
    public var isCached: Bool
    /// Bytes of the stored entry; 0 when missing.
    public var bytes: Int
}

/// Why a collection call was refused.
public enum ImageCollectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Names are 1–128 letters, digits, `.`, `_` and `-`, not starting with `.` (one file each).
    case invalidName(String)
    /// Keys are one line each: not empty, no line breaks.
    case invalidKey(String)
    case notFound(String)
    /// Collections live in an ``ImageCache``'s disk cache; the manager has another kind of cache.
    case noDiskCache

    public var description: String {
        switch self {
        case .invalidName(let name): "'\(name)' is not a collection name (1-128 letters, digits, '.', '_' or '-', not starting with '.')"
        case .invalidKey: "a collection key must be one non-empty line"
        case .notFound(let name): "there is no collection named '\(name)'"
        case .noDiskCache: "collections need the manager's cache to be an ImageCache"
        }
    }

    static func check(_ name: String) throws(ImageCollectionError) {
        let allowed = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
            default: false
            }
        }
        guard allowed, (1...128).contains(name.utf8.count), !name.hasPrefix(".") else { throw .invalidName(name) }
    }
}
