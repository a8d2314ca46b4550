import Dispatch
import Foundation
import Synchronization

/// Why a ``DiskCache`` store failed. Reads never throw: a missing or unreadable file is a miss.
public enum DiskCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry alone is bigger than ``DiskCacheConfig/maxDiskSize``; nothing was stored.
    case entryTooLarge(size: Int, limit: Int)
    /// Creating, writing or renaming `path` failed with `errno` (disk full, permissions…).
    case writeFailed(path: String, errno: Int32)
    /// The entry does not fit beside the entries pinned in collections, which are never evicted
    /// to make room; nothing was stored.
    case noRoomBesidePinned(size: Int, pinnedSize: Int, limit: Int)

    public var description: String {
        switch self {
        case .entryTooLarge(let size, let limit):
            "a \(size)-byte entry does not fit in a disk cache limited to \(limit) bytes"
        case .writeFailed(let path, let code):
            "cannot write \(path): \(String(cString: strerror(code)))"
        case .noRoomBesidePinned(let size, let pinned, let limit):
            "a \(size)-byte entry does not fit beside \(pinned) bytes pinned in collections (limit \(limit) bytes): raise the limit or remove a collection"
        }
    }
}

/// Encoded image bytes on disk, one file per key (SDWebImage's `SDDiskCache`).
///
/// - Files are named as SD names them (``CacheKeys/diskFileName(forKey:)``), so lookups also find
///   entries written by older versions without an extension.
/// - Every store writes a hidden temp file in the same directory and `rename(2)`s it into place:
///   a reader sees the old bytes or the new ones, never a mix, and a killed process leaves at most
///   a temp file, which lookups and sizes ignore and the next open or sweep removes after an hour.
/// - The limits hold on every store: when a store takes the total over
///   ``DiskCacheConfig/maxDiskSize``, the oldest entries go until it is at most half (SD's rule),
///   using a running total and an index built once, on first need, in the background (stores
///   go on meanwhile; the limit is applied when the index is ready) — never a rescan per write.
///   ``removeExpiredData()`` rescans, which also repairs the index when other processes or
///   instances changed the directory.
/// - Validators and extended data live in an extended attribute of the entry's file
///   (`DiskCacheAttribute`), set before the rename; where the file system refuses one, in a
///   sidecar file per entry (`DiskCacheEntryMetadata`), which older versions always wrote and
///   which is still read and removed with its entry.
///
/// All methods are synchronous and safe from any thread; file I/O runs on the caller's thread,
/// mostly outside the lock (the bytes are written and read unlocked; only renames, removals and
/// index updates are serialised, so the last store of a key wins on disk and in the index).
public final class DiskCache: Sendable {
    /// An entry as the index knows it.
    struct Entry {
        var size: Int
        /// The attribute's value and the sidecar's bytes, when there are.
        var metadataSize = 0
        var hasSidecar = false
        var accessDate: Date
        var modificationDate: Date

        init(_ info: DiskCacheFileInfo) {
            size = info.size
            accessDate = info.accessDate
            modificationDate = info.modificationDate
        }

        var totalSize: Int { size + metadataSize }

        func date(_ type: DiskCacheExpireType) -> Date {
            type == .accessDate ? accessDate : modificationDate
        }
    }

    struct State {
        var config: DiskCacheConfig
        var isIndexLoaded = false
        var index: [String: Entry] = [:]
        /// Sum of ``Entry/totalSize`` over the index.
        var totalSize = 0
        /// Non-nil while the index is being built in the background: the entries stored
        /// (or removed, nil) meanwhile, laid over the scan's result when it is merged.
        var journal: [String: Entry?]?
        /// The entry stored last while the index was being built: the merge's trim keeps it, as
        /// the store's own trim would have.
        var lastStoredDuringBuild: String?
        /// The collections on disk, read on first need and again when their folder changes.
        var collections = PinnedCollections()

        /// Records a change of entry `name`: in the index once it is built, in the journal while
        /// it is being built, nowhere before (the scan will find the files).
        mutating func set(_ name: String, _ entry: Entry?) {
            if journal != nil {
                journal?[name] = .some(entry)
                return
            }
            guard isIndexLoaded else { return }
            totalSize -= index[name]?.totalSize ?? 0
            index[name] = entry
            totalSize += entry?.totalSize ?? 0
        }

        /// A complete index was just built under the lock (a sweep, a clear): any background
        /// build still running is superseded.
        mutating func replaceIndex(_ index: [String: Entry], totalSize: Int) {
            self.index = index
            self.totalSize = totalSize
            isIndexLoaded = true
            journal = nil
            lastStoredDuringBuild = nil
        }
    }

    /// Where the entries are.
    public let directory: URL
    let directoryPath: String
    /// Sidecars: `<directory>/.meta/<entry name>`. A folder rather than a name suffix, because an
    /// entry name may already be 255 bytes long and may end in any extension.
    let metadataDirectoryPath: String
    let state: Mutex<State>
    /// Set when a write found the file system without user xattrs: later stores go straight to
    /// sidecars instead of failing a syscall each.
    let attributesUnsupported = Atomic<Bool>(false)
    /// Tests stand in for a file system without user xattrs: every attribute write fails with
    /// `EOPNOTSUPP`, as the kernel's would.
    let refusesAttributes: Bool
    /// Entered while a background index build runs; ``totalSize`` and ``totalCount`` wait on it.
    let indexBuild = DispatchGroup()
    /// Tests hold a background index build here (after its scan) to act meanwhile.
    let indexScanHook: (@Sendable () -> Void)?
    /// Tests hold a background scan here, between its data and its sidecar listings.
    let listingsHook: (@Sendable () -> Void)?

    /// A cache over `directory` (created on the first store).
    public convenience init(directory: URL, config: DiskCacheConfig = DiskCacheConfig()) {
        self.init(directory: directory, config: config, refusesAttributes: false)
    }

    init(
        directory: URL, config: DiskCacheConfig, refusesAttributes: Bool, indexScanHook: (@Sendable () -> Void)? = nil,
        listingsHook: (@Sendable () -> Void)? = nil
    ) {
        self.indexScanHook = indexScanHook
        self.listingsHook = listingsHook
        self.directory = directory
        var path = directory.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        directoryPath = path
        metadataDirectoryPath = path + "/.meta"
        state = Mutex(State(config: config))
        self.refusesAttributes = refusesAttributes
    }

    /// A cache in ``defaultDirectory(namespace:)``.
    public convenience init(namespace: String = "default", config: DiskCacheConfig = DiskCacheConfig()) {
        self.init(directory: DiskCache.defaultDirectory(namespace: namespace), config: config)
    }

    /// `$XDG_CACHE_HOME/webimage/<namespace>`, else `$HOME/.cache/webimage/<namespace>` (the XDG base
    /// directory rule: an unset, empty or relative `XDG_CACHE_HOME` is ignored). `$HOME` is read
    /// first because Foundation's home directory on Linux comes from the user database and ignores it
    /// (containers and CI often set `HOME` to somewhere else).
    public static func defaultDirectory(namespace: String = "default") -> URL {
        defaultDirectory(namespace: namespace, environment: ProcessInfo.processInfo.environment)
    }

    static func defaultDirectory(namespace: String, environment: [String: String]) -> URL {
        let base: URL
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        }
        return base.appendingPathComponent("webimage", isDirectory: true)
            .appendingPathComponent(namespace, isDirectory: true)
    }

    /// The limits. A lower limit takes effect at the next store or sweep.
    public var config: DiskCacheConfig {
        get { state.withLock { $0.config } }
        set { state.withLock { $0.config = newValue } }
    }

    /// The file `key` is stored in (SD's `cachePathForKey:`), whether or not it exists.
    public func path(forKey key: String) -> String {
        directoryPath + "/" + CacheKeys.diskFileName(forKey: key)
    }

    /// Whether the folder may hold entries: `false` only when it holds none (missing, or only temp
    /// and metadata files). Reads names up to the first entry, without building the index — a bulk
    /// load can skip asking ``containsData(forKey:)`` for every URL of a first run.
    public var mayHoldEntries: Bool { DiskCacheFiles.holdsEntry(directoryPath) }

    /// Whether a file exists for `key`, under its name or the old extension-less one.
    public func containsData(forKey key: String) -> Bool {
        candidateNames(forKey: key).contains { DiskCacheFiles.info(atPath: dataPath($0)) != nil }
    }

    /// The bytes stored for `key`, or `nil`. With ``DiskCacheExpireType/accessDate`` expiry, the
    /// file's access time is set to now (explicitly: Linux's default `relatime` would update it at
    /// most daily). A file removed by someone else is a miss, and the index forgets it. As in SD,
    /// age is enforced by ``removeExpiredData()``, not here: an expired entry still reads until
    /// a sweep removes it.
    public func data(forKey key: String) -> Data? {
        let touch = state.withLock { $0.config.expireType == .accessDate }
        let names = candidateNames(forKey: key)
        for name in names {
            guard let (data, info) = DiskCacheFiles.readFile(atPath: dataPath(name), touchingAccessDate: touch) else {
                continue
            }
            state.withLock { state in
                guard state.isIndexLoaded else { return }
                if var entry = state.index[name] {
                    entry.accessDate = max(entry.accessDate, info.accessDate)
                    state.index[name] = entry
                } else if let fresh = DiskCacheFiles.info(atPath: dataPath(name)) {
                    state.set(name, Entry(fresh))  // written by another process or instance
                }
            }
            return data
        }
        state.withLock { state in
            guard state.isIndexLoaded || state.journal != nil else { return }
            // Re-checked under the lock, so a store that just landed is not forgotten. While the
            // index is being built the journal takes it: the scan may have listed the file.
            for name in names where (state.journal != nil || state.index[name] != nil)
                && DiskCacheFiles.info(atPath: dataPath(name)) == nil {
                state.set(name, nil)
            }
        }
        return nil
    }

    /// Stores `data` for `key`, replacing any previous entry with its metadata, then trims the
    /// cache to half of ``DiskCacheConfig/maxDiskSize`` if this store took it over (the new entry
    /// and entries pinned in collections stay). `validators` and `extendedData` go into the file's extended attribute (one file,
    /// one rename), or into a sidecar where the file system refuses it.
    ///
    /// Throws ``DiskCacheError``: `entryTooLarge` when the entry alone exceeds the limit,
    /// `noRoomBesidePinned` when it does not fit beside the pinned entries, `writeFailed` when the
    /// file system refuses.
    public func store(
        _ data: Data, forKey key: String, validators: HTTPValidators? = nil, extendedData: Data? = nil
    ) throws {
        try store(data, forKey: key, validators: validators, extendedData: extendedData, isCurrent: nil)
    }

    /// ``store(_:forKey:validators:extendedData:)``, asking `isCurrent` under the lock that
    /// serialises renames, right before this write's rename: `false` (a later store or removal of
    /// the key was asked for meanwhile) drops the write. Writes of one key may then run at once on
    /// any threads and the last one asked for still wins — no queue needs to serialise them.
    func store(
        _ data: Data, forKey key: String, validators: HTTPValidators? = nil, extendedData: Data? = nil,
        isCurrent: (() -> Bool)?
    ) throws {
        let config = self.config
        if config.maxDiskSize > 0, data.count > config.maxDiskSize {
            throw DiskCacheError.entryTooLarge(size: data.count, limit: config.maxDiskSize)
        }
        let name = CacheKeys.diskFileName(forKey: key)
        let hasMetadata = validators != nil || extendedData != nil
        let attribute = hasMetadata && !attributesUnsupported.load(ordering: .relaxed)
            ? DiskCacheAttribute.encode(validators: validators, extendedData: extendedData) : nil
        let (temporary, info, attributeError) = try DiskCacheFiles.writeTemporary(
            data, in: directoryPath, sync: config.synchronizesWrites,
            finishing: attribute.map { value in { self.setAttribute(value, on: $0) } })
        var metadataSize = 0
        var sidecar: (path: String, size: Int)?
        if let attribute, attributeError == 0 {
            metadataSize = attribute.count
        } else if hasMetadata {
            noteAttributeRefused(attributeError)
            let metadata = DiskCacheEntryMetadata(data: info.identity, validators: validators, extendedData: extendedData)
            do {
                let (path, metaInfo, _) = try DiskCacheFiles.writeTemporary(
                    metadata.encoded(), in: metadataDirectoryPath, sync: config.synchronizesWrites)
                sidecar = (path, metaInfo.size)
                metadataSize = metaInfo.size
            } catch {
                DiskCacheFiles.remove(temporary)
                throw error
            }
        }
        if state.withLock({ beginIndexBuildIfNeeded(&$0) }) { buildIndexInBackground() }
        try state.withLock { state in
            if let isCurrent, !isCurrent() {
                DiskCacheFiles.remove(temporary)
                if let sidecar { DiskCacheFiles.remove(sidecar.path) }
                return
            }
            var entry = Entry(info)
            entry.metadataSize = metadataSize
            entry.hasSidecar = sidecar != nil
            let limit = state.config.maxDiskSize
            if limit > 0, entry.totalSize > limit {
                DiskCacheFiles.remove(temporary)
                if let sidecar { DiskCacheFiles.remove(sidecar.path) }
                throw DiskCacheError.entryTooLarge(size: entry.totalSize, limit: limit)
            }
            if limit > 0, state.isIndexLoaded,
               state.totalSize - (state.index[name]?.totalSize ?? 0) + entry.totalSize > limit {
                // Pinned entries are never evicted: a store that cannot fit beside them fails.
                let pinned = pinnedSize(&state, excluding: name)
                if pinned + entry.totalSize > limit {
                    DiskCacheFiles.remove(temporary)
                    if let sidecar { DiskCacheFiles.remove(sidecar.path) }
                    throw DiskCacheError.noRoomBesidePinned(size: entry.totalSize, pinnedSize: pinned, limit: limit)
                }
            }
            // Without a built index, an older sidecar may be there unknown: remove it to be sure.
            let hadSidecar = state.isIndexLoaded ? state.index[name]?.hasSidecar ?? false : true
            do {
                try DiskCacheFiles.move(temporary, to: dataPath(name))
            } catch {
                if let sidecar { DiskCacheFiles.remove(sidecar.path) }
                throw error
            }
            // Data first, sidecar second: a reader in between finds no metadata for the new bytes
            // (the old sidecar's identity no longer matches), never the old validators.
            if let sidecar {
                if (try? DiskCacheFiles.move(sidecar.path, to: metadataPath(name))) == nil {
                    entry.metadataSize = 0
                    entry.hasSidecar = false
                }
            } else if hadSidecar {
                DiskCacheFiles.remove(metadataPath(name))
            }
            state.set(name, entry)
            if state.journal != nil { state.lastStoredDuringBuild = name }
            if state.isIndexLoaded, limit > 0, state.totalSize > limit {
                trim(&state, to: limit / 2, keeping: name)
            }
        }
        // Outside the lock: a directory flush waits for the disk.
        if config.synchronizesWrites {
            try DiskCacheFiles.syncDirectory(directoryPath)
            if sidecar != nil { try DiskCacheFiles.syncDirectory(metadataDirectoryPath) }
        }
    }

    /// Removes the entry for `key` (both names) and its metadata (an attribute goes with its
    /// file; a sidecar, the fallback's or an older version's, is removed beside it).
    public func removeData(forKey key: String) {
        let names = candidateNames(forKey: key)
        state.withLock { state in
            for name in names { removeEntry(named: name, &state) }
        }
    }

    /// Removes entry `name`'s file and sidecar and forgets it; `true` when the file existed.
    @discardableResult
    func removeEntry(named name: String, _ state: inout State) -> Bool {
        let existed = DiskCacheFiles.remove(dataPath(name))
        DiskCacheFiles.remove(metadataPath(name))
        state.set(name, nil)
        return existed
    }

    /// Removes every entry and sidecar (SD's `removeAllData`). The directory stays, and so do
    /// temp files of stores still in flight.
    public func removeAll() {
        state.withLock { state in
            for (name, info) in DiskCacheFiles.list(directoryPath) where info.isRegularFile && !name.hasPrefix(".") {
                DiskCacheFiles.remove(dataPath(name))
            }
            for (name, _) in DiskCacheFiles.list(metadataDirectoryPath) where !name.hasPrefix(DiskCacheFiles.temporaryPrefix) {
                DiskCacheFiles.remove(metadataPath(name))
            }
            state.replaceIndex([:], totalSize: 0)
        }
    }

    /// Rescans the directory (repairing the index), removes entries older than
    /// ``DiskCacheConfig/maxDiskAge`` by the configured date, then — if the rest is over
    /// ``DiskCacheConfig/maxDiskSize`` — the oldest until it is at most half; also stale temp files
    /// and orphaned sidecars. Entries pinned in collections stay. Returns what went.
    @discardableResult
    public func removeExpiredData() -> (removedCount: Int, removedSize: Int) {
        state.withLock { state in
            let now = Date()
            let (index, totalSize) = scan(now: now)
            state.replaceIndex(index, totalSize: totalSize)
            var removed = (removedCount: 0, removedSize: 0)
            let config = state.config
            if config.maxDiskAge >= 0 {
                let cutoff = now.addingTimeInterval(-config.maxDiskAge)
                let pinned = pinnedNames(&state)
                for (name, entry) in state.index where entry.date(config.expireType) <= cutoff && !pinned.contains(name) {
                    removeFiles(name, entry)
                    state.set(name, nil)
                    removed.removedCount += 1
                    removed.removedSize += entry.totalSize
                }
            }
            if config.maxDiskSize > 0, state.totalSize > config.maxDiskSize {
                let trimmed = trim(&state, to: config.maxDiskSize / 2, keeping: nil)
                removed.removedCount += trimmed.removedCount
                removed.removedSize += trimmed.removedSize
            }
            return removed
        }
    }

    /// Bytes of all entries and their metadata (attribute values and sidecars), from the index
    /// (built on first use; drift from other processes is corrected by ``removeExpiredData()``).
    public var totalSize: Int {
        waitForIndex()
        return state.withLock { $0.totalSize }
    }

    /// Number of entries (sidecars and temp files not counted).
    public var totalCount: Int {
        waitForIndex()
        return state.withLock { $0.index.count }
    }

    // MARK: - Internals (called with the lock held where they take `State`)

    func dataPath(_ name: String) -> String { directoryPath + "/" + name }
    func metadataPath(_ name: String) -> String { metadataDirectoryPath + "/" + name }

    /// The current file name for `key`, then the pre-extension one SD still reads (SD #976).
    func candidateNames(forKey key: String) -> [String] {
        let name = CacheKeys.diskFileName(forKey: key)
        let legacy = CacheKeys.nameWithoutExtension(name)
        return legacy == name ? [name] : [name, legacy]
    }

    func removeFiles(_ name: String, _ entry: Entry) {
        DiskCacheFiles.remove(dataPath(name))
        if entry.hasSidecar { DiskCacheFiles.remove(metadataPath(name)) }
    }
}
