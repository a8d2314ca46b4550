import CWebImageShims
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An entry's metadata (validators, extended data) in one extended attribute of its data file,
/// where SDWebImage keeps extended data too.
///
/// The store sets it on the temp file before the rename, so bytes and metadata appear under the
/// real name together, and go together when the file is replaced or removed: one file and one
/// rename per store, and no identity check, since the metadata cannot outlive its inode. File
/// systems without user xattrs (tmpfs before Linux 6.6, some overlay and network mounts), and
/// values too big for one (ext4 takes about a block), fall back to the sidecar
/// (`DiskCacheEntryMetadata`), which is also how caches written by older versions are read.
///
/// The value is a version byte, then records of a tag byte, a 32-bit little-endian length and the
/// bytes: cheaper to write per store than JSON, and readers skip tags they do not know.
enum DiskCacheAttribute {
    static let name = "user.webimage.metadata"

    private static let version: UInt8 = 1
    private enum Tag: UInt8 { case etag = 1, lastModified, expirationDate, extendedData }

    /// The attribute's value. No data identity, unlike a sidecar: the attribute lives in those
    /// very bytes' inode.
    static func encode(validators: HTTPValidators?, extendedData: Data?) -> Data {
        // Built as an array and made Data once: appending to Data record by record costs more, on every store.
        var out: [UInt8] = []
        out.reserveCapacity(64 + (extendedData?.count ?? 0))
        out.append(version)
        func record(_ tag: Tag, _ bytes: UnsafeRawBufferPointer) {
            out.append(tag.rawValue)
            let count = UInt32(bytes.count)
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: count >> shift)) }
            out.append(contentsOf: bytes)
        }
        func record(_ tag: Tag, _ string: String) {
            var string = string
            string.withUTF8 { record(tag, UnsafeRawBufferPointer($0)) }
        }
        if let etag = validators?.etag { record(.etag, etag) }
        if let lastModified = validators?.lastModified { record(.lastModified, lastModified) }
        if let date = validators?.expirationDate {
            withUnsafeBytes(of: date.timeIntervalSince1970.bitPattern.littleEndian) { record(.expirationDate, $0) }
        }
        if let extendedData { extendedData.withUnsafeBytes { record(.extendedData, $0) } }
        return Data(out)
    }

    /// The metadata in `value`, attributed to `identity`; `nil` when it is not a value this
    /// version can read (treated as no metadata, like an unreadable sidecar).
    static func decode(_ value: Data, identity: DataIdentity) -> DiskCacheEntryMetadata? {
        let bytes = [UInt8](value)
        guard bytes.first == version else { return nil }
        var metadata = DiskCacheEntryMetadata(data: identity)
        var validators = HTTPValidators()
        var hasValidators = false
        var at = 1
        while at < bytes.count {
            guard bytes.count - at >= 5 else { return nil }
            let tag = bytes[at]
            let length = (0..<4).reduce(0) { $0 | Int(bytes[at + 1 + $1]) << (8 * $1) }
            at += 5
            guard bytes.count - at >= length else { return nil }
            let payload = bytes[at..<at + length]
            at += length
            switch Tag(rawValue: tag) {
            case .etag:
                validators.etag = String(decoding: payload, as: UTF8.self)
                hasValidators = true
            case .lastModified:
                validators.lastModified = String(decoding: payload, as: UTF8.self)
                hasValidators = true
            case .expirationDate:
                guard length == 8 else { return nil }
                let bits = payload.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
                validators.expirationDate = Date(timeIntervalSince1970: Double(bitPattern: bits))
                hasValidators = true
            case .extendedData:
                metadata.extendedData = Data(payload)
            case nil:
                continue
            }
        }
        if hasValidators { metadata.validators = validators }
        return metadata
    }

    /// Sets the attribute on an open file; 0, or the `errno` that refused it.
    static func set(_ value: Data, on fd: Int32) -> Int32 {
        let result = value.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, $0.count, 0) }
        return result == 0 ? 0 : errno
    }

    /// The attribute of an open file, or `nil` when it has none (or the file system has no xattrs).
    static func get(from fd: Int32) -> Data? {
        // Validators fit in far less; a bigger value (extended data) is asked for its size first.
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { fgetxattr(fd, name, $0.baseAddress, $0.count) }
            if n >= 0 { return Data(buffer[..<n]) }
            guard errno == ERANGE else { return nil }
            let size = fgetxattr(fd, name, nil, 0)
            guard size > 0 else { return nil }
            buffer = [UInt8](repeating: 0, count: size)
        }
    }

    /// The attribute's size for the file at `path` (0 when it has none), without reading it;
    /// `nil` when the file system has no user xattrs at all.
    static func size(atPath path: String) -> Int? {
        let n = getxattr(path, name, nil, 0)
        if n >= 0 { return n }
        return isUnsupported(errno) ? nil : 0
    }

    /// Removes the attribute from an open file; `true` when it is gone (or never was there).
    static func remove(from fd: Int32) -> Bool {
        fremovexattr(fd, name) == 0 || errno == ENODATA || isUnsupported(errno)
    }

    /// The file system has no user xattrs (as opposed to refusing one value, e.g. `E2BIG`).
    static func isUnsupported(_ code: Int32) -> Bool {
        code == ENOTSUP || code == EOPNOTSUPP
    }
}
