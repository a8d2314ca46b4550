import Foundation
import Synchronization

/// How cache keys become disk file names — SDWebImage's `SDDiskCacheFileNameForKey`, so a
/// WebImage disk cache and an SDWebImage one name the same key the same way.
public enum CacheKeys {
    /// The longest extension kept in a file name: `NAME_MAX` (255) minus 32 hex digits minus the
    /// dot — SD's `SD_MAX_FILE_EXTENSION_LENGTH`. Counted in UTF-8 bytes, because that is what
    /// Linux limits (SD counts UTF-16 units; the two agree for ASCII extensions).
    public static let maxFileExtensionLength = 255 - 16 * 2 - 1

    /// The disk file name for `key`: MD5 of the key's UTF-8 bytes as 32 lowercase hex digits,
    /// then `.` and ``pathExtension(forKey:)`` when there is one.
    ///
    /// Like SD (which hashes `strlen(key.UTF8String)` bytes), the hash stops at the first NUL.
    public static func diskFileName(forKey key: String) -> String {
        var key = key
        if let name = key.withUTF8(plainDiskFileName(of:)) { return name }
        // Long keys (data: URLs) are not remembered: the memo would pin their bytes.
        guard key.utf8.count <= recentFileNameKeyLimit else { return computeDiskFileName(forKey: key) }
        if let name = recentFileNames.withLock({ $0[key] }) { return name }
        let name = computeDiskFileName(forKey: key)
        recentFileNames.withLock { names in
            if names.count >= recentFileNamesLimit { names.removeAll(keepingCapacity: true) }
            names[key] = name
        }
        return name
    }

    /// The name of a key ``plainURLExtension(_:)`` reads (most image URLs), written in one pass
    /// over its bytes: for these, hashing costs less than a memo's lookup and insert.
    private static func plainDiskFileName(of bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let found = plainExtension(of: bytes) else { return nil }
        let ext = found.count > maxFileExtensionLength ? found.endIndex..<found.endIndex : found
        let length = ext.isEmpty ? 32 : 33 + ext.count
        return String(unsafeUninitializedCapacity: length) { out in
            MD5.writeHexDigest(of: hashedPart(of: bytes), to: out.baseAddress!)
            if !ext.isEmpty {
                out[32] = UInt8(ascii: ".")
                _ = UnsafeMutableBufferPointer(rebasing: out[33...]).initialize(from: bytes[ext])
            }
            return length
        }
    }

    /// Names of recently used keys: the URL parse and MD5 behind a name cost more than reading a
    /// small entry, and a cache asks for the same keys again and again. Emptied when full.
    private static let recentFileNames = Mutex<[String: String]>([:])
    private static let recentFileNamesLimit = 4096
    private static let recentFileNameKeyLimit = 1024

    private static func computeDiskFileName(forKey key: String) -> String {
        var key = key
        let hash = key.withUTF8 { MD5.hexDigest(hashedPart(of: $0)) }
        guard let ext = pathExtension(forKey: key) else { return hash }
        return hash + "." + ext
    }

    /// The bytes of a key that are hashed: up to the first NUL, as SD hashes `strlen(key.UTF8String)` bytes.
    private static func hashedPart(of bytes: UnsafeBufferPointer<UInt8>) -> UnsafeRawBufferPointer {
        let raw = UnsafeRawBufferPointer(bytes)
        return UnsafeRawBufferPointer(rebasing: raw[..<(raw.firstIndex(of: 0) ?? raw.count)])
    }

    /// The extension SD would put on the file name for `key`, or `nil` for none:
    /// - taken from the URL's *path*, so a query or fragment never contributes
    ///   (`https://a/b.png?x=1.jpg` → `png`, `https://a/b?x=1.jpg` → none); percent-escapes in
    ///   the path are decoded first, as `NSURL.pathExtension` does;
    /// - a key that is not a URL at all uses its last path component (`NSString.pathExtension`);
    /// - a name that is only a dot-file (`/.png`) or ends in a dot (`/b.`) has none;
    /// - NUL and `:` are removed (`:` is the one character Apple file systems refuse; NUL ends a
    ///   C string);
    /// - one longer than ``maxFileExtensionLength`` bytes is dropped, so the name fits `NAME_MAX`.
    public static func pathExtension(forKey key: String) -> String? {
        if let plain = plainURLExtension(key) {  // holds no NUL or `:`
            return plain.isEmpty || plain.utf8.count > maxFileExtensionLength ? nil : plain
        }
        // Foundation's URL parser is the one SD relies on (`NSURL URLWithString:`), so its reading
        // of scheme, path, query and escapes is used as is rather than re-implemented.
        let raw = URL(string: key)?.pathExtension ?? (key as NSString).pathExtension
        let ext = String(raw.unicodeScalars.filter { $0 != "\0" && $0 != ":" })
        guard !ext.isEmpty, ext.utf8.count <= maxFileExtensionLength else { return nil }
        return ext
    }

    /// The extension of an `http(s)` URL whose path holds only letters, digits and `-._~/` (most
    /// image URLs), read without Foundation's URL parser — the same answer, far cheaper, on every
    /// store and lookup. `""` = no extension; `nil` = not such a URL,
    /// ask Foundation.
    static func plainURLExtension(_ key: String) -> String? {
        // Over the bytes in place: Substring.UTF8View's generic index walks cost more than the scan.
        var key = key
        return key.withUTF8 { bytes in
            plainExtension(of: bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    /// Where ``plainURLExtension(_:)``'s answer lies in `bytes` (empty: no extension).
    private static func plainExtension(of bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        let rest: Slice<UnsafeBufferPointer<UInt8>>
        if bytes.starts(with: "http://".utf8) {
            rest = bytes.dropFirst(7)
        } else if bytes.starts(with: "https://".utf8) {
            rest = bytes.dropFirst(8)
        } else {
            return nil
        }
        guard let pathStart = rest.firstIndex(of: slash) else { return nil }
        let path = rest[pathStart...].prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        var previous: UInt8 = 0
        for byte in path {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"), slash:
                break
            case dot:
                // A component starting with a dot (dot-files, `.`, `..`): Foundation's rules decide.
                if previous == slash { return nil }
            default:
                return nil
            }
            previous = byte
        }
        // A trailing slash: Foundation's rules decide, not this shortcut.
        guard previous != slash else { return nil }
        let name = path[path.index(after: path.lastIndex(of: slash)!)...]
        guard let dotIndex = name.lastIndex(of: dot) else { return path.endIndex..<path.endIndex }
        return (dotIndex + 1)..<path.endIndex
    }

    /// `name` without its extension: the name SDWebImage used before it added extensions
    /// (SD #976), which lookups still try.
    static func nameWithoutExtension(_ name: String) -> String {
        // Disk names start with 32 hex digits, so the first dot (if any) starts the extension.
        guard let dot = name.utf8.firstIndex(of: UInt8(ascii: ".")) else { return name }
        return String(name[..<dot])
    }
}
