#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file written for the cache and not yet in place. Where the file system allows it, the file
/// has no name until it is linked into place (`O_TMPFILE`): a writer that dies leaves nothing
/// behind, and a store costs one directory operation instead of two (making a name, renaming it:
/// rename was 4 % of a bulk prefetch's CPU). Elsewhere it is a hidden named file (`.tmp-…`,
/// ``DiskCacheFiles/temporaryPrefix``) renamed into place.
enum DiskCacheTemporaryFile {
    case named(path: String)
    /// An unnamed file in `directory`, open as `fd` until it is linked or discarded.
    case unnamed(fd: Int32, directory: String)

    /// `O_TMPFILE` (Linux's `__O_TMPFILE | O_DIRECTORY`; Swift does not import the macro).
    static let unnamedFlag: Int32 = 0o20000000 | O_DIRECTORY
    /// An unnamed file is linked by its `/proc` path (the `AT_EMPTY_PATH` way needs a capability).
    static let canLinkUnnamed = access("/proc/self/fd", F_OK) == 0

    /// Whether `errno` from an `O_TMPFILE` open means the file system has no unnamed files.
    static func refusesUnnamed(_ code: Int32) -> Bool {
        code == EOPNOTSUPP || code == EISDIR || code == EINVAL
    }

    /// Puts the file at `destination` atomically, replacing what was there; on failure the file
    /// is discarded and the error thrown.
    func move(to destination: String) throws {
        switch self {
        case .named(let path):
            guard rename(path, destination) == 0 else {
                let code = errno
                unlink(path)
                throw DiskCacheError.writeFailed(path: destination, errno: code)
            }
        case .unnamed(let fd, let directory):
            defer { close(fd) }
            let source = "/proc/self/fd/\(fd)"
            if linkat(AT_FDCWD, source, AT_FDCWD, destination, AT_SYMLINK_FOLLOW) == 0 { return }
            guard errno == EEXIST else { throw DiskCacheError.writeFailed(path: destination, errno: errno) }
            // Replacing an entry: a link cannot, so it gets a hidden name first and is renamed over.
            let named = DiskCacheFiles.temporaryPath(in: directory)
            guard linkat(AT_FDCWD, source, AT_FDCWD, named, AT_SYMLINK_FOLLOW) == 0 else {
                throw DiskCacheError.writeFailed(path: destination, errno: errno)
            }
            try DiskCacheTemporaryFile.named(path: named).move(to: destination)
        }
    }

    /// Throws the file away (an unnamed one is gone once closed).
    func discard() {
        switch self {
        case .named(let path): unlink(path)
        case .unnamed(let fd, _): close(fd)
        }
    }
}
