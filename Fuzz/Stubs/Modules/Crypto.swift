import Foundation

// swift-crypto's SHA256 for VariantMaker's ETag only (building BoringSSL is minutes): FNV-1a, not a cryptographic hash.
public enum SHA256 {
    public static func hash(data: Data) -> [UInt8] {
        var state: UInt64 = 0xcbf2_9ce4_8422_2325
        var digest: [UInt8] = []
        for round in 0..<4 {
            for byte in data { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
            state ^= UInt64(round)
            withUnsafeBytes(of: state.bigEndian) { digest += $0 }
        }
        return digest
    }
}
