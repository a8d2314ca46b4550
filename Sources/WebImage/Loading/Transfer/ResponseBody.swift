import Foundation
import NIOCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where large bodies wait for their decode: a folder (on the disk cache's file system, so the
/// pages are the same kind the cache writes) and the size past which a body goes there.
public struct BodySpill: Sendable, Hashable {
    public var directory: URL
    /// Bodies larger than this many bytes are written to the folder as they stream. Default 4 MB.
    public var threshold: Int64

    public init(directory: URL, threshold: Int64 = 4 << 20) {
        self.directory = directory
        self.threshold = threshold
    }
}

/// One response body as it streams in, held to the size limit — the one accumulator every
/// carrier's bytes go through. Past the spill threshold it moves into an unlinked temporary file
/// and is mapped back when complete: 64 large downloads waiting for two decoders then hold their
/// bytes in the page cache, not in the process. A spill that fails (no room, no folder) keeps the
/// body in memory: slower to give back, never lost.
struct ResponseBody: Sendable {
    private var memory = Data()
    private var file: SpillFile?
    private(set) var count: Int64 = 0
    let limit: Int64
    let spill: BodySpill?

    init(limit: Int64, spill: BodySpill?) {
        self.limit = limit
        self.spill = spill
    }

    /// Room for a declared `length`, when the body will stay in memory.
    mutating func reserve(_ length: Int64) {
        guard length > 0, length <= spill?.threshold ?? .max else { return }
        memory.reserveCapacity(Int(min(length, limit)))
    }

    /// Adds `buffer`; `false` (nothing kept) once the body is over the limit.
    mutating func append(_ buffer: ByteBuffer) -> Bool {
        count += Int64(buffer.readableBytes)
        guard count <= limit else { return false }
        if file == nil, let spill, count > spill.threshold, let made = SpillFile(in: spill.directory), made.write(memory) {
            file = made
            memory = Data()
        }
        if let file {
            if buffer.withUnsafeReadableBytes({ file.write($0) }) { return true }
            // The disk stopped taking it: what the file holds comes back, and the rest stays in memory.
            memory = file.contents()
            self.file = nil
        }
        buffer.withUnsafeReadableBytes { memory.append(contentsOf: $0) }
        return true
    }

    /// Counts a body that is read but not kept (a redirect's); `false` once over the limit.
    mutating func discard(_ buffer: ByteBuffer) -> Bool {
        count += Int64(buffer.readableBytes)
        return count <= limit
    }

    /// Bytes from `offset` to the end so far, for progressive decoding (whose loads never spill).
    func bytes(from offset: Int) -> Data {
        offset < memory.count ? memory.subdata(in: offset..<memory.count) : Data()
    }

    /// The whole body: in memory, or mapped from its file.
    func data() -> Data {
        file.map { $0.mapped() ?? $0.contents() } ?? memory
    }
}

/// An unlinked temporary file: gone from the folder at once, freed when the last mapping and the
/// descriptor close. Written by the one transfer that owns it; `size` is atomic only so the class
/// is plainly `Sendable`.
private final class SpillFile: Sendable {
    private let fd: Int32
    private let written = Atomic<Int>(0)
    private var size: Int { written.load(ordering: .relaxed) }

    init?(in directory: URL) {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var template = Array(directory.appendingPathComponent(".body-XXXXXX").path.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
    }

    deinit { close(fd) }

    func write(_ data: Data) -> Bool {
        data.withUnsafeBytes { write($0) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        written.add(bytes.count, ordering: .relaxed)
        return true
    }

    /// The file's bytes, read into memory.
    func contents() -> Data {
        var data = Data(count: size)
        var offset = 0
        data.withUnsafeMutableBytes { buffer in
            while offset < size {
                let n = pread(fd, buffer.baseAddress! + offset, size - offset, off_t(offset))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                offset += n
            }
        }
        return data.prefix(offset)
    }

    /// The file's bytes, mapped read-only; unmapped when the last copy of the `Data` goes.
    func mapped() -> Data? {
        guard size > 0 else { return Data() }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        let length = size
        return Data(bytesNoCopy: base, count: length, deallocator: .custom { pointer, _ in munmap(pointer, length) })
    }
}
