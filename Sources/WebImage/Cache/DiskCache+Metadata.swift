import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Validators and extended data: in the entry file's extended attribute (`DiskCacheAttribute`),
/// else in a sidecar (`DiskCacheEntryMetadata`) — the fallback's, or an older version's.
extension DiskCache {
    /// The extended data stored with `key`'s current bytes (SD's `extendedDataForKey:`), or `nil`.
    public func extendedData(forKey key: String) -> Data? {
        withEntryFile(forKey: key) { fd, name in currentMetadata(of: fd, name: name)?.metadata?.extendedData }
    }

    /// Attaches `extendedData` to `key`'s current entry (`nil` removes it), keeping its
    /// validators. Does nothing when there is no entry: metadata never outlives its bytes.
    /// Throws ``DiskCacheError/writeFailed(path:errno:)``.
    public func setExtendedData(_ extendedData: Data?, forKey key: String) throws {
        try updateMetadata(forKey: key) { $0.extendedData = extendedData }
    }

    /// The HTTP validators stored with `key`'s current bytes, or `nil`.
    public func validators(forKey key: String) -> HTTPValidators? {
        withEntryFile(forKey: key) { fd, name in currentMetadata(of: fd, name: name)?.metadata?.validators }
    }

    /// Replaces `key`'s validators (`nil` removes them) — after a `304 Not Modified`, say, which
    /// refreshes them without new bytes. Does nothing when there is no entry.
    /// Throws ``DiskCacheError/writeFailed(path:errno:)``.
    public func setValidators(_ validators: HTTPValidators?, forKey key: String) throws {
        try updateMetadata(forKey: key) { $0.validators = validators }
    }

    /// Folds a `304 Not Modified`'s validators into `key`'s stored ones (``HTTPValidators/refreshed(by:)``),
    /// in one read-change-write. Does nothing when there is no entry.
    /// Throws ``DiskCacheError/writeFailed(path:errno:)``.
    public func refreshValidators(_ fresh: HTTPValidators, forKey key: String) throws {
        try updateMetadata(forKey: key) { $0.validators = ($0.validators ?? HTTPValidators()).refreshed(by: fresh) }
    }

    /// Sets the metadata attribute on a file being written; 0 or the refusal's `errno`.
    func setAttribute(_ value: Data, on fd: Int32) -> Int32 {
        refusesAttributes ? EOPNOTSUPP : DiskCacheAttribute.set(value, on: fd)
    }

    /// Remembers a file system without user xattrs; one value too big for it is not that.
    func noteAttributeRefused(_ code: Int32) {
        if DiskCacheAttribute.isUnsupported(code) { attributesUnsupported.store(true, ordering: .relaxed) }
    }

    // MARK: - Internals

    private struct CurrentMetadata {
        var info: DiskCacheFileInfo
        var metadata: DiskCacheEntryMetadata?
        var isInAttribute = false
    }

    /// Runs `body` with `key`'s entry file open (metadata is read from and written to that one
    /// inode, whatever is renamed over its name meanwhile); `nil` when there is no entry.
    private func withEntryFile<T>(forKey key: String, _ body: (_ fd: Int32, _ name: String) throws -> T?) rethrows -> T? {
        let name = CacheKeys.diskFileName(forKey: key)
        let fd = open(dataPath(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try body(fd, name)
    }

    /// The open entry's `stat` and metadata: its attribute, else a sidecar that describes these
    /// very bytes (the attribute wins: it is the newer format, and cannot be stale).
    private func currentMetadata(of fd: Int32, name: String) -> CurrentMetadata? {
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let info = DiskCacheFileInfo(st)
        if let value = DiskCacheAttribute.get(from: fd) {
            return CurrentMetadata(info: info, metadata: DiskCacheAttribute.decode(value, identity: info.identity), isInAttribute: true)
        }
        guard let (bytes, _) = DiskCacheFiles.readFile(atPath: metadataPath(name), touchingAccessDate: false),
              let metadata = DiskCacheEntryMetadata.decode(bytes), metadata.data == info.identity
        else { return CurrentMetadata(info: info) }
        return CurrentMetadata(info: info, metadata: metadata)
    }

    /// Whether the name still holds the open file (checked under the lock, where stores rename).
    private func isCurrent(_ info: DiskCacheFileInfo, name: String) -> Bool {
        DiskCacheFiles.info(atPath: dataPath(name))?.identity.inode == info.identity.inode
    }

    /// Read, change, write back: into the attribute (a sidecar left by an older version goes),
    /// else into a sidecar. Two updates of one key racing may lose one change; neither can
    /// attach metadata to the wrong bytes, and an update of bytes replaced meanwhile is dropped.
    private func updateMetadata(forKey key: String, _ change: (inout DiskCacheEntryMetadata) -> Void) throws {
        _ = try withEntryFile(forKey: key) { fd, name -> Void? in
            guard let current = currentMetadata(of: fd, name: name) else { return nil }
            var metadata = current.metadata ?? DiskCacheEntryMetadata(data: current.info.identity)
            change(&metadata)
            if metadata.isEmpty {
                try removeMetadata(of: fd, name: name, current)
                return nil
            }
            if !attributesUnsupported.load(ordering: .relaxed) {
                let value = DiskCacheAttribute.encode(validators: metadata.validators, extendedData: metadata.extendedData)
                let code = state.withLock { state -> Int32 in
                    guard isCurrent(current.info, name: name) else { return 0 }
                    let code = setAttribute(value, on: fd)
                    guard code == 0 else { return code }
                    // Unconditionally: the index may not know of an older version's sidecar.
                    DiskCacheFiles.remove(metadataPath(name))
                    setMetadata(size: value.count, hasSidecar: false, forName: name, in: &state)
                    return 0
                }
                if code == 0 { return nil }
                noteAttributeRefused(code)
                // An older attribute would win over the sidecar written next.
                if current.isInAttribute, !DiskCacheAttribute.remove(from: fd) {
                    throw DiskCacheError.writeFailed(path: dataPath(name), errno: errno)
                }
            }
            let (temporary, info, _) = try DiskCacheFiles.writeTemporary(
                metadata.encoded(), in: metadataDirectoryPath, sync: config.synchronizesWrites)
            try state.withLock { state in
                guard isCurrent(current.info, name: name) else {
                    DiskCacheFiles.remove(temporary)
                    return
                }
                try DiskCacheFiles.move(temporary, to: metadataPath(name))
                setMetadata(size: info.size, hasSidecar: true, forName: name, in: &state)
            }
            return nil
        }
    }

    private func removeMetadata(of fd: Int32, name: String, _ current: CurrentMetadata) throws {
        if current.isInAttribute, !DiskCacheAttribute.remove(from: fd) {
            throw DiskCacheError.writeFailed(path: dataPath(name), errno: errno)
        }
        state.withLock { state in
            guard isCurrent(current.info, name: name) else { return }
            DiskCacheFiles.remove(metadataPath(name))
            setMetadata(size: 0, hasSidecar: false, forName: name, in: &state)
        }
    }

    /// Updates the index, and keeps the size limit when the metadata grew.
    private func setMetadata(size: Int, hasSidecar: Bool, forName name: String, in state: inout State) {
        var entry: Entry
        if let journal = state.journal {
            // The index is being built: the journal gets the change, from the file when it has
            // no entry yet (the scan may have read the metadata before it changed).
            if case .some(.some(let journaled)) = journal[name] {
                entry = journaled
            } else if let info = DiskCacheFiles.info(atPath: dataPath(name)) {
                entry = Entry(info)
            } else {
                return
            }
        } else {
            guard state.isIndexLoaded, let indexed = state.index[name] else { return }
            entry = indexed
        }
        entry.metadataSize = size
        entry.hasSidecar = hasSidecar
        state.set(name, entry)
        let limit = state.config.maxDiskSize
        if state.isIndexLoaded, limit > 0, state.totalSize > limit { trim(&state, to: limit / 2, keeping: name) }
    }
}
