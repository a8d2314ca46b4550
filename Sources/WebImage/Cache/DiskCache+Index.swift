import Foundation

/// The index of what is on disk: built in the background on first use (a scan without the lock,
/// then the stores made meanwhile laid over it), and trimmed to the size limit.
extension DiskCache {
    /// Marks the index as being built when nobody has built or started it; the caller then calls
    /// ``buildIndexInBackground()`` once it has let go of the lock. Never waits: a scan under the
    /// lock would hold every store and read.
    func beginIndexBuildIfNeeded(_ state: inout State) -> Bool {
        guard !state.isIndexLoaded, state.journal == nil else { return false }
        state.journal = [:]
        indexBuild.enter()
        return true
    }

    /// Scans the directory without the lock, then lays what changed meanwhile over it, and keeps
    /// the size limit the stores in between could not (they had no total to check).
    func buildIndexInBackground() {
        // A queue of its own: GCD's global queues on Linux add threads for blocked ones only every
        // few seconds, so an app that blocks them would hold the index (and every trim) back.
        DispatchQueue(label: "WebImage.DiskCache.index", qos: .utility).async { [self] in
            let (scanned, _) = scan(now: Date(), besideStores: true)
            indexScanHook?()
            state.withLock { state in
                // nil: a sweep or a clear built a complete index meanwhile; it stands.
                guard let journal = state.journal else { return }
                var index = scanned
                for (name, change) in journal { index[name] = change }
                let keeping = state.lastStoredDuringBuild
                state.replaceIndex(index, totalSize: index.values.reduce(0) { $0 + $1.totalSize })
                let limit = state.config.maxDiskSize
                if limit > 0, state.totalSize > limit { trim(&state, to: limit / 2, keeping: keeping) }
            }
            indexBuild.leave()
        }
    }

    /// Returns once an index build under way — started by the first store, in the background —
    /// has merged and trimmed to the size limit; at once when none is. A process about to exit
    /// calls it, or the trim a store left to the build is lost with the process and the
    /// directory stays over its limit until the next run.
    public func waitForPendingIndexBuild() {
        indexBuild.wait()
    }

    /// Returns once the index is built, starting the build if nobody has.
    func waitForIndex() {
        if state.withLock({ beginIndexBuildIfNeeded(&$0) }) { buildIndexInBackground() }
        indexBuild.wait()
    }

    /// Reads the directory into a fresh index; removes temp files older than an hour and sidecars
    /// whose entry is gone — only old ones when the scan runs `besideStores` (the background
    /// build, without the lock): a store that moved its data in after the data listing and its
    /// sidecar before the sidecar listing would otherwise lose its validators (seen: a fresh
    /// instance counted less metadata than the one that stored it).
    func scan(now: Date, besideStores: Bool = false) -> ([String: Entry], Int) {
        let staleBefore = now.addingTimeInterval(-DiskCacheFiles.staleTemporaryAge)
        var index: [String: Entry] = [:]
        // One size query per entry, until the file system says it has no user xattrs at all.
        var attributesReadable = !refusesAttributes
        for (name, info) in DiskCacheFiles.list(directoryPath) {
            if name.hasPrefix(DiskCacheFiles.temporaryPrefix) {
                if info.modificationDate < staleBefore { DiskCacheFiles.remove(dataPath(name)) }
            } else if DiskCacheFiles.isEntryName(name), info.isRegularFile {
                var entry = Entry(info)
                if attributesReadable {
                    if let size = DiskCacheAttribute.size(atPath: dataPath(name)) {
                        entry.metadataSize = size
                    } else {
                        attributesReadable = false
                    }
                }
                index[name] = entry
            }
        }
        if besideStores { listingsHook?() }
        for (name, info) in DiskCacheFiles.list(metadataDirectoryPath) {
            if name.hasPrefix(DiskCacheFiles.temporaryPrefix) {
                if info.modificationDate < staleBefore { DiskCacheFiles.remove(metadataPath(name)) }
            } else if index[name] != nil {
                index[name]!.metadataSize += info.size
                index[name]!.hasSidecar = true
            } else if !besideStores || info.modificationDate < staleBefore {
                DiskCacheFiles.remove(metadataPath(name))
            }
        }
        return (index, index.values.reduce(0) { $0 + $1.totalSize })
    }

    /// Removes the oldest entries (by the configured date; `keeping` and pinned ones never) until
    /// the total is at most `target`.
    @discardableResult
    func trim(_ state: inout State, to target: Int, keeping: String?) -> (removedCount: Int, removedSize: Int) {
        guard state.totalSize > target else { return (0, 0) }
        let type = state.config.expireType
        let pinned = pinnedNames(&state)
        let oldestFirst = state.index.filter { $0.key != keeping && !pinned.contains($0.key) }.sorted {
            let (a, b) = ($0.value.date(type), $1.value.date(type))
            return a != b ? a < b : $0.key < $1.key
        }
        var removed = (removedCount: 0, removedSize: 0)
        for (name, entry) in oldestFirst {
            if state.totalSize <= target { break }
            removeFiles(name, entry)
            state.set(name, nil)
            removed.removedCount += 1
            removed.removedSize += entry.totalSize
        }
        return removed
    }
}
