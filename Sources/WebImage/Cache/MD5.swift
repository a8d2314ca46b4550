/// MD5 (RFC 1321), only for naming disk cache files the way SDWebImage does (`CC_MD5` of the
/// key). Not for anything security-related: MD5 is broken for that, and a cache name needs none.
///
/// Written here because swift-corelibs-foundation has no CommonCrypto and the package should not
/// pull in a crypto library for one 16-byte name.
enum MD5 {
    typealias State = (UInt32, UInt32, UInt32, UInt32)

    /// The 16-byte digest of `bytes`.
    static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let state = hash(bytes)
        return [state.0, state.1, state.2, state.3].flatMap { word in
            (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) }
        }
    }

    /// The digest as 32 lowercase hex digits (SD's `%02x` × 16), written without a byte array in
    /// between: every disk cache store names its file this way.
    static func hexDigest(_ bytes: some Collection<UInt8>) -> String {
        let state = hash(bytes)
        return String(unsafeUninitializedCapacity: 32) { out in
            for (index, word) in [state.0, state.1, state.2, state.3].enumerated() {
                for byte in 0..<4 {
                    let value = UInt8(truncatingIfNeeded: word >> (8 * UInt32(byte)))
                    out[index * 8 + byte * 2] = hexDigit(value >> 4)
                    out[index * 8 + byte * 2 + 1] = hexDigit(value & 0x0f)
                }
            }
            return 32
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// The final state after `bytes` and the padding: 0x80, zeros up to 56 mod 64, then the bit
    /// length as a little-endian UInt64. Blocks are filled in place, two at most for the tail.
    private static func hash(_ bytes: some Collection<UInt8>) -> State {
        var state: State = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
            let block = buffer.baseAddress!
            var filled = 0
            var length: UInt64 = 0
            for byte in bytes {
                block[filled] = byte
                filled += 1
                length &+= 1
                if filled == 64 {
                    compress(&state, block)
                    filled = 0
                }
            }
            block[filled] = 0x80
            let end = filled < 56 ? 64 : 128
            (block + filled + 1).initialize(repeating: 0, count: end - 8 - filled - 1)
            let bitLength = length &* 8
            for index in 0..<8 { block[end - 8 + index] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index))) }
            compress(&state, block)
            if end == 128 { compress(&state, block + 64) }
        }
        return state
    }

    /// Per-round left-rotation amounts (RFC 1321 §3.4).
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// floor(abs(sin(i + 1)) × 2^32), the RFC's table T, precomputed so no floating point is involved.
    private static let constants: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]

    /// One 64-byte block into the running state.
    private static func compress(_ state: inout State, _ block: UnsafePointer<UInt8>) {
        let words = UnsafeRawPointer(block)
        var (a, b, c, d) = state
        for i in 0..<64 {
            let f: UInt32
            let g: Int
            switch i {
            case 0..<16: f = (b & c) | (~b & d); g = i
            case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
            case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
            default: f = c ^ (b | ~d); g = (7 * i) % 16
            }
            let word = UInt32(littleEndian: words.loadUnaligned(fromByteOffset: g * 4, as: UInt32.self))
            let sum = a &+ f &+ constants[i] &+ word
            let rotated = (sum << shifts[i]) | (sum >> (32 - shifts[i]))
            (a, b, c, d) = (d, b &+ rotated, b, c)
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
