import Foundation
@testable import WebImage

/// Bytes that look like an image to the sniffer (right magic, right container) and then are not:
/// what a broken CDN, a truncated upload or an attacker serves. Deterministic, so a failure
/// reproduces.
enum FaultyImages {
    /// A JPEG's SOI and APP0 segment, then noise where the frame header should be.
    static let corruptJPEG: Data = try! Fixtures.data("jpeg-baseline.jpg").prefix(20) + noise(600)

    /// A PNG's signature and intact IHDR, then noise where the IDAT chunks should be.
    static let corruptPNG: Data = try! Fixtures.data("png-rgb.png").prefix(33) + noise(600)

    /// A RIFF/WEBP container with a `VP8 ` chunk of noise.
    static let corruptWebP: Data = {
        let payload = noise(600)
        var data = Data("RIFF".utf8) + littleEndian(UInt32(4 + 8 + payload.count)) + Data("WEBP".utf8)
        data += Data("VP8 ".utf8) + littleEndian(UInt32(payload.count)) + payload
        return data
    }()

    /// A decompression bomb: a well-formed PNG (valid CRCs) whose IHDR declares 60,000 × 60,000
    /// RGBA pixels — 14.4 GB decoded — from a few dozen bytes. Its one IDAT holds an empty zlib
    /// stream, so only the header check can stop it before the decoder allocates.
    static let pngBomb: Data = {
        var ihdr = bigEndian(60_000) + bigEndian(60_000)
        ihdr += Data([8, 6, 0, 0, 0])  // 8-bit depth, RGBA, deflate, adaptive filters, no interlace
        let emptyZlib = Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            + chunk("IHDR", ihdr) + chunk("IDAT", emptyZlib) + chunk("IEND", Data())
    }()

    /// A PNG chunk: length, type, data, CRC-32 over type and data.
    static func chunk(_ type: String, _ body: Data) -> Data {
        let typed = Data(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(APNGCRC32.checksum([UInt8](typed)))
    }

    /// `count` bytes from a fixed-seed xorshift: the same noise every run.
    static func noise(_ count: Int) -> Data {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return Data((0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        })
    }

    private static func bigEndian(_ value: UInt32) -> Data { withUnsafeBytes(of: value.bigEndian) { Data($0) } }
    private static func littleEndian(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
}
