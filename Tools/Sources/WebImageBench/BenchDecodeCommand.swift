import ArgumentParser
import Foundation
import WebImage

/// `webimage-bench decode`: times in-process decoding for `Tools/harness/compare-peers`.
struct BenchDecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Time decoding of each file in-process; print one JSON line per file.",
        discussion: """
            Reads each file once, decodes it --warmup times untimed, then --iterations times timed
            through ImageCodersManager.shared, and prints
              {"file":…,"median_ms":…,"min_ms":…,"width":…,"height":…,"iterations":…}
            or {"file":…,"error":…} when it cannot be decoded (exit status 1 at the end).
            Only the decode call is timed: reading the file and freeing the result are not.
            --check-only times prefetch's structural check (ImageIntegrity) instead: no pixels,
            so width and height print as 1. --keep-colors skips the conversion of an embedded
            colour profile to sRGB (the difference is the conversion's cost).
            """
    )

    @Argument(help: "The image files to decode.")
    var files: [String]

    @Option(help: ArgumentHelp("Decode to fit inside N×N (or WxH).", valueName: "N"))
    var thumbnail: String?

    @Option(help: "Timed decodes per file.")
    var iterations: Int = 10

    @Option(help: "Untimed decodes per file before timing.")
    var warmup: Int = 2

    @Flag(help: "Time the structural check `prefetch` uses instead of a decode.")
    var checkOnly = false

    @Flag(help: "Keep pixels in their embedded colour profile (no conversion to sRGB).")
    var keepColors = false

    func validate() throws {
        if let thumbnail, PixelSize(parsing: thumbnail) == nil {
            throw ValidationError("--thumbnail takes N or WxH with positive integers (got '\(thumbnail)')")
        }
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative") }
    }

    func run() throws {
        var options = ImageDecodeOptions()
        options.thumbnailPixelSize = thumbnail.flatMap(PixelSize.init(parsing:))
        options.convertsToSRGB = !keepColors
        var failures = 0
        for file in files {
            do {
                print(try bench(file, options: options))
            } catch {
                failures += 1
                print("{\"file\":\(jsonString(file)),\"error\":\(jsonString("\(error)"))}")
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    private func bench(_ file: String, options: ImageDecodeOptions) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let coder: any ImageCoder = checkOnly ? StructureCheckCoder() : ImageCodersManager.localFiles
        var size = PixelSize.zero
        for _ in 0..<warmup {
            size = try coder.decode(data, options: options).pixelSize
        }
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = clock.now
            let image = try coder.decode(data, options: options)
            let elapsed = clock.now - start
            // Keep the pixels alive past the clock so freeing them is not timed.
            withExtendedLifetime(image) { size = image.pixelSize }
            times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
        }
        times.sort()
        let mid = times.count / 2
        let median = times.count % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2
        return "{\"file\":\(jsonString(file)),\"median_ms\":\(rounded(median)),\"min_ms\":\(rounded(times[0])),"
            + "\"width\":\(size.width),\"height\":\(size.height),\"iterations\":\(iterations)}"
    }

    private func rounded(_ ms: Double) -> String { String(format: "%.3f", ms) }

    private func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        guard let data = try? encoder.encode(text), let quoted = String(data: data, encoding: .utf8) else {
            return "\"?\""
        }
        return quoted
    }
}
