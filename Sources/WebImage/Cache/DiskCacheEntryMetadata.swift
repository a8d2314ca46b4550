import Foundation

/// What an HTTP response said about revalidating its body, kept beside a disk cache entry so a
/// later request can ask "has it changed?" (`If-None-Match`, `If-Modified-Since`) instead of
/// downloading again.
public struct HTTPValidators: Sendable, Hashable, Codable {
    /// The `ETag` header, as received (quotes and `W/` included).
    public var etag: String?
    /// The `Last-Modified` header, as received.
    public var lastModified: String?
    /// When the response stops being fresh: from `Cache-Control: max-age` (preferred) or
    /// `Expires`, worked out by whoever received it.
    public var expirationDate: Date?

    public init(etag: String? = nil, lastModified: String? = nil, expirationDate: Date? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.expirationDate = expirationDate
    }

    /// These validators after a `304 Not Modified` that sent `fresh`: what the 304 sends replaces
    /// the stored value, the rest stays (RFC 9111 §4.3.4).
    public func refreshed(by fresh: HTTPValidators) -> HTTPValidators {
        HTTPValidators(
            etag: fresh.etag ?? etag, lastModified: fresh.lastModified ?? lastModified,
            expirationDate: fresh.expirationDate ?? expirationDate)
    }
}

/// The metadata sidecar of one entry: `<directory>/.meta/<entry name>`, JSON — the fallback
/// where the file system refuses the entry's extended attribute (`DiskCacheAttribute`), and
/// what versions before the attribute always wrote, so it is still read and removed with its entry.
///
/// It records which bytes it belongs to (inode, size, modification time of the data file as
/// written), so validators or extended data are never returned for data that another store —
/// in this process or another — has since replaced; a stale sidecar reads as none. (Setting an
/// attribute changes only the file's ctime, so a sidecar stays attached across one.)
struct DiskCacheEntryMetadata: Codable, Equatable {
    var data: DataIdentity
    var validators: HTTPValidators?
    /// SD's `sd_extendedObject`, archived by the caller.
    var extendedData: Data?

    var isEmpty: Bool { validators == nil && extendedData == nil }

    func encoded() -> Data {
        // Encoding plain optionals and numbers cannot fail; an empty sidecar is still valid JSON.
        (try? JSONEncoder().encode(self)) ?? Data("{}".utf8)
    }

    /// The sidecar in `bytes`, or `nil` when it is unreadable (treated as no metadata).
    static func decode(_ bytes: Data) -> DiskCacheEntryMetadata? {
        try? JSONDecoder().decode(DiskCacheEntryMetadata.self, from: bytes)
    }
}

/// Which file content a sidecar describes. An inode is not reused while the file exists, and a
/// replacement is a new inode (temp file + rename), so a match means "these very bytes".
struct DataIdentity: Codable, Hashable {
    var inode: UInt64
    var size: Int64
    var modificationNanoseconds: Int64
}
