/// MD5 (RFC 1321), only for naming disk cache files the way SDWebImage does (`CC_MD5` of the
/// key). Not for anything security-related: MD5 is broken for that, and a cache name needs none.
///
/// Written here because swift-corelibs-foundation has no CommonCrypto and the package should not
/// pull in a crypto library for one 16-byte name.
enum MD5 {
    typealias State = (UInt32, UInt32, UInt32, UInt32)

    /// The 16-byte digest of `bytes`.
    static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        Array(bytes).withUnsafeBytes { withDigest(of: $0) { Array($0) } }
    }

    /// The digest as 32 lowercase hex digits (SD's `%02x` × 16).
    static func hexDigest(_ bytes: some Sequence<UInt8>) -> String {
        Array(bytes).withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: 32) { out in
                writeHexDigest(of: bytes, to: out.baseAddress!)
                return 32
            }
        }
    }

    /// Writes the 32 hex digits of the digest of `bytes` at `out`: every disk cache store names
    /// its file this way, so the name is written in place rather than put together from strings.
    static func writeHexDigest(of bytes: UnsafeRawBufferPointer, to out: UnsafeMutablePointer<UInt8>) {
        withDigest(of: bytes) { digest in
            for (index, value) in digest.enumerated() {
                out[2 * index] = hexDigit(value >> 4)
                out[2 * index + 1] = hexDigit(value & 0x0f)
            }
        }
    }

    /// The digest is the final state's four words, each little-endian.
    private static func withDigest<R>(of bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let state = hash(bytes)
        return withUnsafeBytes(of: (state.0.littleEndian, state.1.littleEndian, state.2.littleEndian, state.3.littleEndian), body)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// The final state after `bytes` and the padding: 0x80, zeros up to 56 mod 64, then the bit
    /// length as a little-endian UInt64. Whole blocks are read in place; the tail is padded in a
    /// buffer of two blocks at most.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> State {
        var state: State = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        let whole = bytes.count / 64 * 64
        var offset = 0
        while offset < whole {
            compress(&state, bytes.baseAddress! + offset)
            offset += 64
        }
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { block in
            let tail = bytes.count - whole
            if tail > 0 { block.baseAddress!.copyMemory(from: bytes.baseAddress! + whole, byteCount: tail) }
            block[tail] = 0x80
            let end = tail < 56 ? 64 : 128
            (block.baseAddress! + tail + 1).initializeMemory(as: UInt8.self, repeating: 0, count: end - 8 - tail - 1)
            let bitLength = UInt64(bytes.count) &* 8
            block.storeBytes(of: bitLength.littleEndian, toByteOffset: end - 8, as: UInt64.self)
            compress(&state, UnsafeRawPointer(block.baseAddress!))
            if end == 128 { compress(&state, UnsafeRawPointer(block.baseAddress! + 64)) }
        }
        return state
    }

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

    /// One 64-byte block into the running state: the RFC's four rounds of sixteen steps, four
    /// steps at a time so each step's rotation is a constant (its table repeats every four).
    private static func compress(_ state: inout State, _ block: UnsafeRawPointer) {
        @inline(__always) func word(_ index: Int) -> UInt32 {
            UInt32(littleEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        @inline(__always) func step(_ a: UInt32, _ b: UInt32, _ f: UInt32, _ word: UInt32, _ constant: UInt32, _ shift: UInt32) -> UInt32 {
            let sum = a &+ f &+ constant &+ word
            return b &+ ((sum << shift) | (sum >> (32 &- shift)))
        }
        var (a, b, c, d) = state
        constants.withUnsafeBufferPointer { k in
            for i in stride(from: 0, to: 16, by: 4) {
                a = step(a, b, (b & c) | (~b & d), word(i), k[i], 7)
                d = step(d, a, (a & b) | (~a & c), word(i + 1), k[i + 1], 12)
                c = step(c, d, (d & a) | (~d & b), word(i + 2), k[i + 2], 17)
                b = step(b, c, (c & d) | (~c & a), word(i + 3), k[i + 3], 22)
            }
            for i in stride(from: 16, to: 32, by: 4) {
                a = step(a, b, (d & b) | (~d & c), word((5 * i + 1) & 15), k[i], 5)
                d = step(d, a, (c & a) | (~c & b), word((5 * i + 6) & 15), k[i + 1], 9)
                c = step(c, d, (b & d) | (~b & a), word((5 * i + 11) & 15), k[i + 2], 14)
                b = step(b, c, (a & c) | (~a & d), word((5 * i + 16) & 15), k[i + 3], 20)
            }
            for i in stride(from: 32, to: 48, by: 4) {
                a = step(a, b, b ^ c ^ d, word((3 * i + 5) & 15), k[i], 4)
                d = step(d, a, a ^ b ^ c, word((3 * i + 8) & 15), k[i + 1], 11)
                c = step(c, d, d ^ a ^ b, word((3 * i + 11) & 15), k[i + 2], 16)
                b = step(b, c, c ^ d ^ a, word((3 * i + 14) & 15), k[i + 3], 23)
            }
            for i in stride(from: 48, to: 64, by: 4) {
                a = step(a, b, c ^ (b | ~d), word((7 * i) & 15), k[i], 6)
                d = step(d, a, b ^ (a | ~c), word((7 * i + 7) & 15), k[i + 1], 10)
                c = step(c, d, a ^ (d | ~b), word((7 * i + 14) & 15), k[i + 2], 15)
                b = step(b, c, d ^ (c | ~a), word((7 * i + 21) & 15), k[i + 3], 21)
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
