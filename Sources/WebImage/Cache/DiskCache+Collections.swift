import Foundation

/// Collections: named, ordered lists of keys whose entries are pinned — kept by age and size
/// trims, counted toward the size limit — for content that must stay (a chapter read offline).
/// Each collection is one file, `<directory>/.collections/<name>`, written to a temp file and
/// renamed into place like the entries, so a killed process leaves the old list or the new one.
extension DiskCache {
    /// Adds `keys` to `collection` (made when new) after the keys it already holds, in order,
    /// each once. The keys are pinned whether or not their entries are stored yet: a missing one
    /// is listed as missing by ``entries(in:)`` until a store brings it.
    /// Throws ``ImageCollectionError`` or ``DiskCacheError/writeFailed(path:errno:)``.
    public func pin(_ keys: [String], in collection: String) throws {
        try ImageCollectionError.check(collection)
        if let key = keys.first(where: { $0.isEmpty || $0.contains("\n") || $0.contains("\r") }) {
            throw ImageCollectionError.invalidKey(key)
        }
        let buildsIndex = try state.withLock { state in
            let current = collectionsOnDisk(&state)
            var list = current.keys[collection] ?? []
            var seen = Set(list)
            for key in keys where seen.insert(key).inserted { list.append(key) }
            try writeCollection(collection, keys: list, sync: state.config.synchronizesWrites)
            state.collections.forget()
            // The room check beside pinned entries needs the index: have it ready for the stores to come.
            return beginIndexBuildIfNeeded(&state)
        }
        if buildsIndex { buildIndexInBackground() }
    }

    /// Removes `collection`; its entries then age and trim as any other (unless another
    /// collection pins them), or with `deletingEntries` are removed at once. Returns the number of
    /// entries removed. Throws ``ImageCollectionError/notFound(_:)``.
    @discardableResult
    public func unpin(collection: String, deletingEntries: Bool = false) throws -> Int {
        try ImageCollectionError.check(collection)
        return try state.withLock { state in
            let current = collectionsOnDisk(&state)
            guard let keys = current.keys[collection] else { throw ImageCollectionError.notFound(collection) }
            guard DiskCacheFiles.remove(collectionPath(collection)) else {
                throw DiskCacheError.writeFailed(path: collectionPath(collection), errno: errno)
            }
            state.collections.forget()
            guard deletingEntries else { return 0 }
            let stillPinned = pinnedNames(&state)
            var removed = 0
            for key in keys {
                for name in candidateNames(forKey: key) where !stillPinned.contains(name) {
                    if removeEntry(named: name, &state) { removed += 1 }
                }
            }
            return removed
        }
    }

    /// Every collection with its counts, by name.
    public func collections() -> [ImageCollection] {
        let lists = state.withLock { collectionsOnDisk(&$0).keys }
        return lists.keys.sorted().map { name in
            let entries = lists[name]!.map(collectionEntry(forKey:))
            return ImageCollection(
                name: name, count: entries.count, cachedCount: entries.count { $0.isCached },
                bytes: entries.reduce(0) { $0 + $1.bytes })
        }
    }

    /// `collection`'s keys in order, each with whether its entry is stored and its bytes.
    /// Throws ``ImageCollectionError/notFound(_:)``.
    public func entries(in collection: String) throws -> [ImageCollectionEntry] {
        try ImageCollectionError.check(collection)
        guard let keys = state.withLock({ collectionsOnDisk(&$0).keys[collection] }) else {
            throw ImageCollectionError.notFound(collection)
        }
        return keys.map(collectionEntry(forKey:))
    }

    /// Whether some collection pins `key`.
    public func isPinned(_ key: String) -> Bool {
        let names = Set(candidateNames(forKey: key))
        return state.withLock { !pinnedNames(&$0).isDisjoint(with: names) }
    }

    // MARK: - Internals (called with the lock held where they take `State`)

    var collectionsDirectoryPath: String { directoryPath + "/.collections" }
    func collectionPath(_ name: String) -> String { collectionsDirectoryPath + "/" + name }

    /// The file names of pinned entries (both spellings of each key, as lookups use).
    func pinnedNames(_ state: inout State) -> Set<String> {
        collectionsOnDisk(&state).names
    }

    /// Bytes of pinned entries, `excluding` one name (the entry being replaced).
    func pinnedSize(_ state: inout State, excluding: String) -> Int {
        let pinned = pinnedNames(&state)
        return pinned.reduce(0) { $1 == excluding ? $0 : $0 + (state.index[$1]?.totalSize ?? 0) }
    }

    /// The collections as on disk: read again when the folder changed (another process pinned).
    func collectionsOnDisk(_ state: inout State) -> PinnedCollections {
        var st = stat()
        let stamp: Int64? = stat(collectionsDirectoryPath, &st) == 0 ? Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec) : nil
        if state.collections.stamp != stamp || !state.collections.isLoaded {
            var keys: [String: [String]] = [:]
            for (name, info) in DiskCacheFiles.list(collectionsDirectoryPath)
            where info.isRegularFile && !name.hasPrefix(DiskCacheFiles.temporaryPrefix) {
                if let list = readCollection(name) { keys[name] = list }
            }
            state.collections = PinnedCollections(keys: keys, stamp: stamp) { candidateNames(forKey: $0) }
        }
        return state.collections
    }

    private func readCollection(_ name: String) -> [String]? {
        guard let (data, _) = DiskCacheFiles.readFile(atPath: collectionPath(name), touchingAccessDate: false) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(PinnedCollections.header) else { return nil }
        return lines.dropFirst().filter { !$0.isEmpty }.map(String.init)
    }

    private func writeCollection(_ name: String, keys: [String], sync: Bool) throws {
        let text = ([PinnedCollections.header] + keys).joined(separator: "\n") + "\n"
        let (temporary, _, _) = try DiskCacheFiles.writeTemporary(Data(text.utf8), in: collectionsDirectoryPath, sync: sync)
        try DiskCacheFiles.move(temporary, to: collectionPath(name))
        if sync { try DiskCacheFiles.syncDirectory(collectionsDirectoryPath) }
    }

    /// Whether `key` is stored, and its bytes (a `stat`).
    func collectionEntry(forKey key: String) -> ImageCollectionEntry {
        for name in candidateNames(forKey: key) {
            if let info = DiskCacheFiles.info(atPath: dataPath(name)) {
                return ImageCollectionEntry(key: key, isCached: true, bytes: info.size)
            }
        }
        return ImageCollectionEntry(key: key, isCached: false, bytes: 0)
    }
}

/// The collections a ``DiskCache`` read from its folder, and the entry names they pin.
struct PinnedCollections {
    static let header = "webimage-collection 1"

    var keys: [String: [String]] = [:]
    var names: Set<String> = []
    /// The folder's modification time in nanoseconds when read.
    var stamp: Int64?
    var isLoaded = false

    init() {}

    init(keys: [String: [String]], stamp: Int64?, names nameList: (String) -> [String]) {
        self.keys = keys
        self.stamp = stamp
        names = Set(keys.values.joined().flatMap(nameList))
        isLoaded = true
    }

    /// Read again at the next need (this instance just changed the folder).
    mutating func forget() { isLoaded = false }
}
