import Benchmark
import Foundation
import WebImage

// Full decode and 256-px thumbnail decode of JPEG, PNG and WebP photos from ../../.photos (made by
// Tools/harness/fetch-photos; WEBIMAGE_PHOTOS overrides the folder). A photo that is missing is skipped
// with a message; so is a format whose decoder fails (e.g. a coder still being written).

/// The photos: a baseline and a progressive JPEG, an RGB and an RGBA PNG, a lossy and a lossless WebP.
private let photos: [(format: String, file: String)] = [
    ("JPEG", "jpeg/wood-2560x1920.jpg"),
    ("JPEG", "jpeg/elephants-3840x2160-progressive.jpg"),
    ("PNG", "png/ubuntu-mate-cold-rgb-1920x1280.png"),
    ("PNG", "png/gulp-rgba-1920x1200.png"),
    ("WebP", "webp/wood-2560x1920-q80.webp"),
    ("WebP", "webp/gulp-1920x1200-lossless.webp"),
]

private func photosDirectory() -> URL {
    if let path = ProcessInfo.processInfo.environment["WEBIMAGE_PHOTOS"], !path.isEmpty {
        return URL(fileURLWithPath: path, isDirectory: true)
    }
    // This file is Tools/Benchmarks/Benchmarks/DecodeBenchmarks/DecodeBenchmarks.swift in the repository.
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".photos", isDirectory: true)
}

private func note(_ message: String) {
    FileHandle.standardError.write(Data("DecodeBenchmarks: \(message)\n".utf8))
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        warmupIterations: 2,
        maxDuration: .seconds(2),
        maxIterations: 100
    )

    let directory = photosDirectory()
    var missing: [String] = []
    for (format, file) in photos {
        let url = directory.appendingPathComponent(file)
        guard let data = try? Data(contentsOf: url) else {
            missing.append(file)
            continue
        }
        let name = url.deletingPathExtension().lastPathComponent
        // Decode once up front so a broken or unfinished decoder is reported, not timed.
        do {
            _ = try ImageCodersManager.shared.decode(data)
        } catch {
            note("skipping \(file): \(error)")
            continue
        }
        let full = ImageDecodeOptions()
        var thumbnail = ImageDecodeOptions()
        thumbnail.thumbnailPixelSize = PixelSize(width: 256, height: 256)

        Benchmark("\(format) full decode \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageCodersManager.shared.decode(data, options: full))
            }
        }
        Benchmark("\(format) 256px thumbnail \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageCodersManager.shared.decode(data, options: thumbnail))
            }
        }
    }
    colorConversionBenchmarks(directory)
    if !missing.isEmpty {
        note("skipping \(missing.count) missing photo(s) in \(directory.path): \(missing.joined(separator: ", "))")
        note("run Tools/harness/fetch-photos from the repository root to download them")
    }
}

/// ICC conversion cost: the first photo re-encoded as a JPEG tagged Display P3 (the test fixture's
/// profile), decoded with and without the conversion to sRGB; the difference divided by the
/// megapixels is the cost per megapixel (BENCHMARKS.md).
private func colorConversionBenchmarks(_ directory: URL) {
    let repository = directory.deletingLastPathComponent()
    let profileURL = repository.appendingPathComponent("Tests/WebImageTests/Fixtures/colour-displayp3.icc")
    guard let photo = try? Data(contentsOf: directory.appendingPathComponent(photos[0].file)),
          let profile = (try? Data(contentsOf: profileURL)).flatMap(ColorProfile.init(iccData:)),
          let decoded = try? ImageCodersManager.shared.decode(photo),
          let tagged = try? JPEGCoder().encode(Image(bitmap: decoded.bitmap, colorProfile: profile), as: .jpeg, options: .default)
    else {
        note("skipping the colour benchmarks: no photo or no \(profileURL.path)")
        return
    }
    let megapixels = Double(decoded.width * decoded.height) / 1_000_000
    for converts in [true, false] {
        let options = ImageDecodeOptions(convertsToSRGB: converts)
        Benchmark("JPEG Display P3 \(String(format: "%.1f", megapixels)) MP \(converts ? "converted to sRGB" : "kept")") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageCodersManager.shared.decode(tagged, options: options))
            }
        }
    }
}
