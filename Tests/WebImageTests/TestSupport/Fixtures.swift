import Foundation
import Testing
@testable import WebImage

/// Committed fixture files (Tests/WebImageTests/Fixtures) and images made on the fly with the
/// project's own encoders.
enum Fixtures {
    static let directory: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    /// The bytes of `Fixtures/<name>`; fails the test when missing.
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// A deterministic test card: horizontal red ramp, vertical green ramp, blue checker, and
    /// alpha ramping down the rows when `alpha` is set. Without `checker`, blue is flat: a smooth
    /// image, for comparing scalers that alias the 8-px checker differently.
    static func testCard(width: Int, height: Int, alpha: Bool = false, checker: Bool = true) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(x * 255 / max(1, width - 1))
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = !checker ? 120 : ((x / 8 + y / 8) % 2 == 0) ? 200 : 40
                pixels[i + 3] = alpha ? UInt8(255 - y * 255 / max(1, height - 1)) : 255
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// A bitmap of one colour.
    static func solid(_ color: RGBA, width: Int, height: Int) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = color.r
            pixels[i + 1] = color.g
            pixels[i + 2] = color.b
            pixels[i + 3] = color.a
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }
}

/// Largest per-channel difference between two same-size bitmaps.
func maxChannelDifference(_ a: Bitmap, _ b: Bitmap) -> Int {
    precondition(a.size == b.size, "sizes differ: \(a.size) vs \(b.size)")
    var worst = 0
    for i in 0..<a.pixels.count { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
    return worst
}

/// Mean per-channel absolute difference.
func meanChannelDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
    precondition(a.size == b.size, "sizes differ: \(a.size) vs \(b.size)")
    var total = 0
    for i in 0..<a.pixels.count { total += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
    return Double(total) / Double(max(1, a.pixels.count))
}

/// Feeds `data` to `decoder` in `chunks` growing prefixes and returns the image after each.
func feedInChunks(_ data: Data, to decoder: any IncrementalImageDecoder, chunks: Int) throws -> [Image?] {
    var results: [Image?] = []
    for step in 1...chunks {
        let end = data.count * step / chunks
        decoder.update(data.prefix(end), isFinal: step == chunks)
        results.append(try decoder.decodedImage())
    }
    return results
}
