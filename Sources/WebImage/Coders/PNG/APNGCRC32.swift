import CDeflate

/// The CRC-32 PNG chunks carry (ISO 3309, zlib's), computed by libdeflate (carry-less multiply
/// where the CPU has it, several times faster than zlib). Checks the APNG chunks libpng never sees,
/// the image data of the whole-buffer PNG path, every chunk in ``ImageIntegrity``, and seals the
/// chunks rebuilt for each frame.
enum APNGCRC32 {
    /// Continues a running CRC (start from 0) over `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return libdeflate_crc32(crc, base, bytes.count)
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 { update(0, bytes) }

    static func checksum(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes { update(0, $0) } }
}
