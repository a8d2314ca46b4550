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
}

/// The metadata sidecar of one entry: `<directory>/.meta/<entry name>`, JSON.
///
/// It records which bytes it belongs to (inode, size, modification time of the data file as
/// written), so validators or extended data are never returned for data that another store —
/// in this process or another — has since replaced; a stale sidecar reads as none.
///
/// Why not extended attributes, as SD uses? Not every Linux file system has user xattrs (tmpfs
/// only since Linux 6.6, some overlay and network mounts never), and a cache must not lose its
/// metadata by being moved to one.
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

extension DiskCache {
    /// The extended data stored with `key`'s current bytes (SD's `extendedDataForKey:`), or `nil`.
    public func extendedData(forKey key: String) -> Data? {
        currentMetadata(forName: CacheKeys.diskFileName(forKey: key))?.metadata?.extendedData
    }

    /// Attaches `extendedData` to `key`'s current entry (`nil` removes it), keeping its
    /// validators. Does nothing when there is no entry: metadata never outlives its bytes.
    /// Throws ``DiskCacheError/writeFailed(path:errno:)``.
    public func setExtendedData(_ extendedData: Data?, forKey key: String) throws {
        try updateMetadata(forKey: key) { $0.extendedData = extendedData }
    }

    /// The HTTP validators stored with `key`'s current bytes, or `nil`.
    public func validators(forKey key: String) -> HTTPValidators? {
        currentMetadata(forName: CacheKeys.diskFileName(forKey: key))?.metadata?.validators
    }

    /// Replaces `key`'s validators (`nil` removes them) — after a `304 Not Modified`, say, which
    /// refreshes them without new bytes. Does nothing when there is no entry.
    /// Throws ``DiskCacheError/writeFailed(path:errno:)``.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String) throws {
        try updateMetadata(forKey: key) { $0.validators = validators }
    }

    /// The data file's `stat` and its sidecar when that describes these very bytes; `nil` when
    /// there is no entry.
    private func currentMetadata(forName name: String) -> (info: DiskCacheFileInfo, metadata: DiskCacheEntryMetadata?)? {
        guard let info = DiskCacheFiles.info(atPath: dataPath(name)) else { return nil }
        guard let (bytes, _) = DiskCacheFiles.readFile(atPath: metadataPath(name), touchingAccessDate: false),
              let metadata = DiskCacheEntryMetadata.decode(bytes), metadata.data == info.identity
        else { return (info, nil) }
        return (info, metadata)
    }

    /// Read, change, write back atomically. Two updates of one key racing may lose one change;
    /// neither can attach metadata to the wrong bytes.
    private func updateMetadata(forKey key: String, _ change: (inout DiskCacheEntryMetadata) -> Void) throws {
        let name = CacheKeys.diskFileName(forKey: key)
        guard let current = currentMetadata(forName: name) else { return }
        var metadata = current.metadata ?? DiskCacheEntryMetadata(data: current.info.identity)
        change(&metadata)
        guard !metadata.isEmpty else {
            state.withLock { state in
                DiskCacheFiles.remove(metadataPath(name))
                setMetadataSize(0, forName: name, in: &state)
            }
            return
        }
        let config = self.config
        let (temporary, info) = try DiskCacheFiles.writeTemporary(
            metadata.encoded(), in: metadataDirectoryPath, sync: config.synchronizesWrites)
        try state.withLock { state in
            try DiskCacheFiles.move(temporary, to: metadataPath(name))
            setMetadataSize(info.size, forName: name, in: &state)
            let limit = state.config.maxDiskSize
            if limit > 0, state.totalSize > limit { trim(&state, to: limit / 2, keeping: name) }
        }
    }

    private func setMetadataSize(_ size: Int, forName name: String, in state: inout State) {
        guard state.isIndexLoaded, var entry = state.index[name] else { return }
        entry.metadataSize = size
        state.set(name, entry)
    }
}
