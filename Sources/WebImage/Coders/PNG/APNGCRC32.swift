import CPNG

/// The CRC-32 PNG chunks carry (ISO 3309, zlib's), computed by zlib — several times faster than a
/// byte-wise table. Checks the APNG chunks libpng never sees, every chunk in ``ImageIntegrity``,
/// and seals the chunks rebuilt for each frame.
enum APNGCRC32 {
    /// Continues a running CRC (start from 0) over `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        var value = UInt(crc)
        var offset = 0
        while offset < bytes.count {  // zlib takes a 32-bit length
            let length = min(bytes.count - offset, Int(UInt32.max))
            value = crc32(value, base.advanced(by: offset).assumingMemoryBound(to: UInt8.self), uInt(length))
            offset += length
        }
        return UInt32(truncatingIfNeeded: value)
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 { update(0, bytes) }

    static func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { update(0, $0) } }
}
