import Foundation

/// Encoded bytes at an address that never moves, for the C decoders an ``AnimatedImage`` keeps
/// reading between calls (giflib and libwebpdemux hold pointers into them). One allocation:
/// ``data`` hands out the same memory, keeping it alive while any copy exists.
final class PinnedBytes: Sendable {
    /// Written once in init, read-only after, freed in deinit: safe to read from any thread.
    nonisolated(unsafe) let buffer: UnsafeRawBufferPointer

    init(_ data: Data) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.copyBytes(to: memory)
        buffer = UnsafeRawBufferPointer(rebasing: memory[0..<data.count])
    }

    deinit { buffer.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() } }

    var data: Data {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return Data() }
        return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: buffer.count,
                    deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
    }
}
