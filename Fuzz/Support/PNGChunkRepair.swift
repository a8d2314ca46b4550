// A libFuzzer custom mutator for the PNG targets. libpng rejects a critical chunk whose CRC is
// wrong, and the APNG parser rejects any bad acTL/fcTL/fdAT CRC, so almost every mutation of a
// PNG dies at a CRC check and the decoders behind it are never reached. After libFuzzer's own
// mutation, this rewrites every chunk's CRC to match (except on one mutation in eight, which keeps
// the CRC-error paths fuzzed too).

@_silgen_name("LLVMFuzzerMutate")
func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

/// libFuzzer hands a custom mutator the whole -max_len and none of its gradual length control, so
/// inputs grew to 64 KB within a minute and the incremental target fell to 37 exec/s; 16 KB holds
/// every PNG fixture with room to grow.
let maxPNGMutationSize = 16 << 10

func mutatePNG(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    let newSize = LLVMFuzzerMutate(data, size, min(maxSize, max(size, maxPNGMutationSize)))
    if seed % 8 != 0 { repairChunkCRCs(UnsafeMutableBufferPointer(start: data, count: newSize)) }
    return newSize
}

/// Rewrites the CRC of every whole chunk after the PNG signature; stops at the first chunk that
/// runs past the end.
func repairChunkCRCs(_ bytes: UnsafeMutableBufferPointer<UInt8>) {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return }
    var offset = 8
    while bytes.count - offset >= 12 {
        let length = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
        guard length <= bytes.count - offset - 12 else { return }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[(offset + 4)..<(offset + 8 + length)] {
            crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        crc ^= 0xFFFF_FFFF
        let at = offset + 8 + length
        for i in 0..<4 { bytes[at + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
        offset = at + 4
    }
}

private let crcTable: [UInt32] = (0..<256).map { n in
    (0..<8).reduce(UInt32(n)) { c, _ in c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
}
