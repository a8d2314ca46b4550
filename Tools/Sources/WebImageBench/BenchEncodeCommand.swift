import ArgumentParser
import Foundation
import WebImage

/// `webimage-bench encode`: times in-process AVIF encoding at an AV1 speed,
/// for the speed/size trade-off in BENCHMARKS.md.
struct BenchEncodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode",
        abstract: "Time AVIF encoding of each file, scaled to fit --max-size; print one JSON line per file.",
        discussion: """
            Decodes each file once, scales it to fit --max-size (a thumbnail, as a server makes),
            encodes it --warmup times untimed and --iterations times timed with AVIFCoder at
            --quality and --speed, and prints
              {"file":…,"speed":…,"quality":…,"bytes":…,"median_ms":…,"p95_ms":…,"psnr_db":…,"width":…,"height":…}
            psnr_db compares the decoded result with the thumbnail that was encoded (RGB, 8-bit).
            """
    )

    @Argument(help: "The image files to encode.")
    var files: [String]

    @Option(help: "AV1 speed, 0 (slowest, smallest) to 10.")
    var speed: Int = 8

    @Option(help: "Quality, 0 to 1.")
    var quality: Double = 0.9

    @Option(help: "Longest side of the encoded thumbnail.")
    var maxSize: Int = 512

    @Option(help: "Timed encodes per file.")
    var iterations: Int = 10

    @Option(help: "Untimed encodes per file before timing.")
    var warmup: Int = 1

    func run() throws {
        let coder = AVIFCoder(speed: speed)
        let options = ImageEncodeOptions(quality: quality)
        for file in files {
            let decoded = try ImageCodersManager.localFiles.decode(
                try Data(contentsOf: URL(fileURLWithPath: file)),
                options: ImageDecodeOptions(thumbnailPixelSize: PixelSize(width: maxSize, height: maxSize)))
            let image = Image(bitmap: decoded.bitmap, hasAlpha: decoded.hasAlpha)
            var encoded = Data()
            for _ in 0..<max(1, warmup) { encoded = try coder.encode(image, as: .avif, options: options) }
            let psnr = Self.psnr(try coder.decode(encoded, options: .default).bitmap, image.bitmap)
            let clock = ContinuousClock()
            var times: [Double] = []
            for _ in 0..<iterations {
                let start = clock.now
                encoded = try coder.encode(image, as: .avif, options: options)
                let elapsed = clock.now - start
                times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            times.sort()
            let p95 = times[min(times.count - 1, Int((Double(times.count) * 0.95).rounded(.up)) - 1)]
            print("{\"file\":\"\(file)\",\"speed\":\(speed),\"quality\":\(quality),\"bytes\":\(encoded.count),"
                + "\"median_ms\":\(String(format: "%.1f", times[times.count / 2])),\"p95_ms\":\(String(format: "%.1f", p95)),"
                + "\"psnr_db\":\(String(format: "%.2f", psnr)),"
                + "\"width\":\(image.width),\"height\":\(image.height)}")
        }
    }

    /// Peak signal-to-noise ratio over the colour channels.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        var squares = 0.0
        var count = 0
        for index in stride(from: 0, to: min(a.pixels.count, b.pixels.count), by: 4) {
            for channel in 0..<3 {
                let d = Double(a.pixels[index + channel]) - Double(b.pixels[index + channel])
                squares += d * d
                count += 1
            }
        }
        let mse = squares / Double(max(1, count))
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }
}
