import Benchmark
import Foundation
import WebImage

// Resizing a 4000×3000 image to fit 256 px and 1920 px with ResizingTransformer (the resampler every
// thumbnail and resize goes through), opaque and with an alpha ramp. The pixels are the centre of
// ../.photos/jpeg/elephants-5640x3172-progressive.jpg (Tools/harness/fetch-photos) when it is there, so the
// numbers match Tools/harness/compare-peers row P5; otherwise a synthetic gradient of the same size
// (resampling time does not depend on the content).

private let sourceSize = PixelSize(width: 4000, height: 3000)

private func note(_ message: String) {
    FileHandle.standardError.write(Data("TransformBenchmarks: \(message)\n".utf8))
}

private func photo() -> Bitmap? {
    let folder = ProcessInfo.processInfo.environment["WEBIMAGE_PHOTOS"].flatMap { $0.isEmpty ? nil : $0 }
        .map { URL(fileURLWithPath: $0, isDirectory: true) }
        // This file is Tools/Benchmarks/Benchmarks/TransformBenchmarks/TransformBenchmarks.swift in the repository.
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".photos", isDirectory: true)
    let file = folder.appendingPathComponent("jpeg/elephants-5640x3172-progressive.jpg")
    guard let data = try? Data(contentsOf: file), let image = try? ImageCodersManager.shared.decode(data) else {
        note("\(file.path) missing or unreadable: using a synthetic image (run Tools/harness/fetch-photos for the photo)")
        return nil
    }
    let rect = PixelRect(x: (image.width - sourceSize.width) / 2, y: (image.height - sourceSize.height) / 2,
                         width: sourceSize.width, height: sourceSize.height)
    return image.bitmap.cropped(to: rect).flatMap { $0.size == sourceSize ? $0 : nil }
}

private func gradient() -> Bitmap {
    var pixels = [UInt8](repeating: 255, count: sourceSize.pixelCount * 4)
    for y in 0..<sourceSize.height {
        for x in 0..<sourceSize.width {
            let i = (y * sourceSize.width + x) * 4
            pixels[i] = UInt8(x * 255 / sourceSize.width)
            pixels[i + 1] = UInt8(y * 255 / sourceSize.height)
            pixels[i + 2] = UInt8((x ^ y) & 255)
        }
    }
    return Bitmap(width: sourceSize.width, height: sourceSize.height, pixels: pixels)
}

/// `bitmap` with alpha falling from 255 at the left edge to 0 at the right.
private func withAlphaRamp(_ bitmap: Bitmap) -> Bitmap {
    var pixels = bitmap.pixels
    for y in 0..<bitmap.height {
        for x in 0..<bitmap.width { pixels[(y * bitmap.width + x) * 4 + 3] = UInt8(255 - x * 255 / bitmap.width) }
    }
    return Bitmap(width: bitmap.width, height: bitmap.height, pixels: pixels)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        warmupIterations: 2,
        maxDuration: .seconds(2),
        maxIterations: 100
    )
    let opaque = photo() ?? gradient()
    let sources = [("opaque", Image(bitmap: opaque)), ("alpha", Image(bitmap: withAlphaRamp(opaque)))]
    for (kind, image) in sources {
        for box in [256, 1920] {
            let target = ThumbnailMath.scaledSize(image.pixelSize, fitting: PixelSize(width: box, height: box))
            let transformer = ResizingTransformer(size: target, scaleMode: .fill)
            Benchmark("resize 4000x3000 to \(target) \(kind)") { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(transformer.transform(image, forKey: "bench"))
                }
            }
        }
    }
}
