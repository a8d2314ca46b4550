import ArgumentParser
import Foundation
import WebImage

/// `webimage-bench resize`: times ``ResizingTransformer`` in-process for `Tools/harness/compare-peers`
///.
struct BenchResizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resize",
        abstract: "Time resizing a decoded image in-process; print one JSON line per target size.",
        discussion: """
            Decodes FILE once (untimed), then for each --to N resizes the first frame to fit inside
            N×N (aspect kept, ResizingTransformer in fill mode at the fitted size) --warmup times
            untimed and --iterations times timed, and prints
              {"file":…,"to":N,"width":…,"height":…,"median_ms":…,"min_ms":…,"iterations":…}
            Only the transform call is timed: freeing the result is not.
            """
    )

    @Argument(help: "The image file to resize (decoded once, untimed).")
    var file: String

    @Option(help: ArgumentHelp("Fit inside N×N; repeat for several sizes.", valueName: "N"))
    var to: [Int] = [256]

    @Option(help: "Timed resizes per size.")
    var iterations: Int = 10

    @Option(help: "Untimed resizes per size before timing.")
    var warmup: Int = 2

    func validate() throws {
        guard to.allSatisfy({ $0 > 0 }) else { throw ValidationError("--to takes positive sizes") }
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative") }
    }

    func run() throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw BenchError("cannot read \(file): \(error.localizedDescription)")
        }
        let decoded = try ImageCodersManager.shared.decode(data)
        let image = Image(bitmap: decoded.bitmap)  // one frame, upright as stored
        for box in to {
            let target = ThumbnailMath.scaledSize(image.pixelSize, fitting: PixelSize(width: box, height: box))
            let transformer = ResizingTransformer(size: target, scaleMode: .fill)
            let resize = { transformer.transform(image, forKey: file) }
            for _ in 0..<warmup { _ = resize() }
            let clock = ContinuousClock()
            var times: [Double] = []
            for _ in 0..<iterations {
                let start = clock.now
                let result = resize()
                let elapsed = clock.now - start
                withExtendedLifetime(result) {}
                times.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
            }
            times.sort()
            let mid = times.count / 2
            let median = times.count % 2 == 1 ? times[mid] : (times[mid - 1] + times[mid]) / 2
            print("{\"file\":\"\(file)\",\"to\":\(box),\"width\":\(target.width),\"height\":\(target.height),"
                + "\"median_ms\":\(String(format: "%.3f", median)),\"min_ms\":\(String(format: "%.3f", times[0])),"
                + "\"iterations\":\(iterations)}")
        }
    }
}
