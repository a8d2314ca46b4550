import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `stat` says about one cache file.
struct DiskCacheFileInfo {
    var identity: DataIdentity
    var size: Int
    var accessDate: Date
    var modificationDate: Date
    var isRegularFile: Bool

    init(_ st: stat) {
        size = Int(st.st_size)
        identity = DataIdentity(
            inode: UInt64(st.st_ino), size: Int64(st.st_size),
            modificationNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
        accessDate = Date(timespec: st.st_atim)
        modificationDate = Date(timespec: st.st_mtim)
        isRegularFile = (st.st_mode & S_IFMT) == S_IFREG
    }
}

extension Date {
    fileprivate init(timespec t: timespec) {
        self.init(timeIntervalSince1970: TimeInterval(t.tv_sec) + TimeInterval(t.tv_nsec) / 1e9)
    }
}

/// The POSIX calls the disk cache is made of. Plain syscalls rather than `FileManager`, because
/// the cache needs what `FileManager` hides: `O_EXCL` temp files, `rename(2)`'s atomic replace,
/// setting only the access time on an open descriptor, and one `stat` per directory entry.
enum DiskCacheFiles {
    /// Files being written start with this: hidden, and never a cache entry (entry names start
    /// with hex digits), so listings and size accounting skip them.
    static let temporaryPrefix = ".tmp-"
    /// A temp file this old belongs to a writer that died; younger ones may be in flight in
    /// another process.
    static let staleTemporaryAge: TimeInterval = 60 * 60
    /// This process's part of temp file names (random, so two processes on one cache never pick
    /// the same name; `O_EXCL` would catch it anyway), then a counter: a random number per name
    /// cost a `getrandom` system call per store.
    private static let temporaryNamePrefix = String(UInt64.random(in: .min ... .max), radix: 36) + "-"
    private static let temporaryCounter = Atomic<UInt64>(0)

    /// `stat` of the regular file at `path`, or `nil` when there is none.
    static func info(atPath path: String) -> DiskCacheFileInfo? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let info = DiskCacheFileInfo(st)
        return info.isRegularFile ? info : nil
    }

    /// The whole file at `path`, or `nil` when it is missing or unreadable. With
    /// `touchingAccessDate`, the file's access time is set to now through the same descriptor —
    /// explicitly, because `relatime` updates it at most once a day and `noatime` never, while an
    /// explicit `futimens` works on every mount.
    static func readFile(atPath path: String, touchingAccessDate: Bool) -> (Data, DiskCacheFileInfo)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        var info = DiskCacheFileInfo(st)
        var data = Data(count: info.size)
        // Entries are replaced by rename, never rewritten in place, so this inode's size holds;
        // still, stop at EOF rather than trust it.
        let filled = data.withUnsafeMutableBytes { buffer -> Int in
            var filled = 0
            while filled < buffer.count {
                let n = read(fd, buffer.baseAddress! + filled, buffer.count - filled)
                if n > 0 { filled += n } else if n == 0 || errno != EINTR { break }
            }
            return filled
        }
        if filled < data.count { data.removeSubrange(filled...) }
        if touchingAccessDate {
            let times = [timespec(tv_sec: 0, tv_nsec: utimeNow), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
            if futimens(fd, times) == 0 { info.accessDate = Date() }
        }
        return (data, info)
    }

    /// Writes `data` to a new hidden temp file in `directory` (created when missing) and returns
    /// its path and `stat`. The caller renames it into place or removes it.
    ///
    /// `finishing` runs on the written file before it is synced and closed (to set its metadata
    /// attribute, so a sync covers both); the `errno` it returns is handed back, not thrown:
    /// the caller has a fallback.
    static func writeTemporary(
        _ data: Data, in directory: String, sync: Bool, finishing: ((_ fd: Int32) -> Int32)? = nil
    ) throws -> (path: String, info: DiskCacheFileInfo, finishingError: Int32) {
        let path = directory + "/" + temporaryPrefix + temporaryNamePrefix + String(temporaryCounter.add(1, ordering: .relaxed).newValue, radix: 36)
        var fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, filePermissions)
        if fd < 0, errno == ENOENT {
            try createDirectory(directory)
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, filePermissions)
        }
        guard fd >= 0 else { throw DiskCacheError.writeFailed(path: path, errno: errno) }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let n = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n > 0 { written += n } else if n < 0, errno == EINTR { continue } else { failure = n < 0 ? errno : EIO; return }
            }
        }
        let finishingError = failure == 0 ? finishing?(fd) ?? 0 : 0
        if failure == 0, sync, fsync(fd) != 0 { failure = errno }
        var st = stat()
        if failure == 0, fstat(fd, &st) != 0 { failure = errno }
        if close(fd) != 0, failure == 0 { failure = errno }
        guard failure == 0 else {
            unlink(path)
            throw DiskCacheError.writeFailed(path: path, errno: failure)
        }
        return (path, DiskCacheFileInfo(st), finishingError)
    }

    /// Atomically puts `source` at `destination`, replacing what was there.
    static func move(_ source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else {
            let code = errno
            unlink(source)
            throw DiskCacheError.writeFailed(path: destination, errno: code)
        }
    }

    /// Flushes `directory` itself, so the names renamed into it survive a power loss (an fsync of
    /// a file covers its bytes, not the directory entry that names it).
    static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw DiskCacheError.writeFailed(path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw DiskCacheError.writeFailed(path: directory, errno: errno) }
    }

    /// Removes the file at `path`; `true` when it existed.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0
    }

    /// Owner only, as nginx's proxy cache: cached images and the URLs in their metadata are the
    /// users' (query tokens included), not every local account's.
    static let filePermissions: mode_t = 0o600
    static let directoryPermissions: mode_t = 0o700

    /// `mkdir -p`.
    static func createDirectory(_ path: String) throws {
        if mkdir(path, directoryPermissions) == 0 || errno == EEXIST { return }
        let parent = (path as NSString).deletingLastPathComponent
        guard errno == ENOENT, !parent.isEmpty, parent != path else {
            throw DiskCacheError.writeFailed(path: path, errno: errno)
        }
        try createDirectory(parent)
        guard mkdir(path, directoryPermissions) == 0 || errno == EEXIST else {
            throw DiskCacheError.writeFailed(path: path, errno: errno)
        }
    }

    /// Whether `name` in the cache folder is an entry: temp files and the metadata folder are hidden.
    static func isEntryName(_ name: String) -> Bool {
        !name.hasPrefix(".")
    }

    /// Whether `directory` holds any entry, reading names only until the first one (no `stat`).
    static func holdsEntry(_ directory: String) -> Bool {
        guard let dir = opendir(directory) else { return false }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if isEntryName(name) { return true }
        }
        return false
    }

    /// Every name in `directory` with its `lstat`; empty when the directory does not exist.
    static func list(_ directory: String) -> [(name: String, info: DiskCacheFileInfo)] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        var result: [(name: String, info: DiskCacheFileInfo)] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            var st = stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }  // removed meanwhile
            result.append((name, DiskCacheFileInfo(st)))
        }
        return result
    }

    // Linux's UTIME_NOW / UTIME_OMIT: Swift does not import the macros.
    private static let utimeNow = (1 << 30) - 1
    private static let utimeOmit = (1 << 30) - 2
}
