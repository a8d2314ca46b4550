import Foundation
import WebImage

// An ICC profile from the fuzzer in the ICCP chunk of a 2x2 lossless WebP, decoded through
// WebPCoder: Little CMS's profile parser, the sRGB match and the transform, as a hostile image
// reaches them. Then the profile's description, the other thing WebImage reads from one.
private let losslessPixels: [UInt8] = [
    0x56, 0x50, 0x38, 0x4C, 0x11, 0x00, 0x00, 0x00, 0x2F, 0x01, 0x40, 0x00, 0x00, 0x07, 0x50, 0xBC, 0x22, 0x17,
    0xA5, 0xFF, 0x81, 0x88, 0xE8, 0x7F, 0x00, 0x00,
]

private func littleEndian(_ value: Int) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let profile = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    // VP8X: the ICC flag, a 2x2 canvas (sizes stored minus one).
    var chunks = Array("VP8X".utf8) + littleEndian(10) + [0x20, 0, 0, 0, 1, 0, 0, 1, 0, 0]
    chunks += Array("ICCP".utf8) + littleEndian(count) + profile + (count % 2 == 1 ? [0] : [])
    chunks += losslessPixels
    let file = Array("RIFF".utf8) + littleEndian(4 + chunks.count) + Array("WEBP".utf8) + chunks
    fuzzDecode(WebPCoder(), Data(file))
    _ = ColorProfile(iccData: Data(profile))?.name
    return 0
}
