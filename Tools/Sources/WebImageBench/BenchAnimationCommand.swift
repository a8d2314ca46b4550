import ArgumentParser
import Foundation
import Synchronization
import WebImage

/// `webimage-bench animation`: plays one animation for `Tools/harness/bench-animation`.
struct BenchAnimationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animation",
        abstract: "Play an animation for a while; print one JSON line with its costs.",
        discussion: """
            --mode lazy: AnimatedImage + AnimatedImagePlayer on the real clock (frames decoded as
            they are due). --mode eager: every frame decoded up front into an Image, as without
            on-demand animation (--no-budget lifts the 512 MB animation budget, which otherwise
            scales the frames down), then shown by time. Prints
              {"mode":…,"first_frame_ms":…,"width":…,"height":…,"frames":…,"shown":…,
               "play_seconds":…,"cpu_per_play_second":…,"peak_rss_mb":…}
            first_frame_ms runs from reading the bytes to the first frame in hand; CPU per second
            of playback excludes that start; peak RSS is the process's maximum.
            """
    )

    @Argument(help: "The animation file.")
    var file: String

    @Option(help: "lazy or eager.")
    var mode: String = "lazy"

    @Option(help: "Seconds of playback to measure.")
    var seconds: Double = 5

    @Flag(help: "Eager mode: no animation budget (every frame at full size).")
    var noBudget = false

    func validate() throws {
        guard ["lazy", "eager"].contains(mode) else { throw ValidationError("--mode is lazy or eager") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
    }

    func run() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let clock = ContinuousClock()
        let start = clock.now
        let summary: (size: PixelSize, frames: Int, shown: Int, firstFrame: Duration, cpu: Double)
        if mode == "lazy" {
            let image = try AnimatedImage(data: data)
            let player = AnimatedImagePlayer(provider: image)
            let first = DispatchSemaphore(value: 0)
            let shown = Mutex(0)
            player.frameHandler = { _, _ in
                if shown.withLock({ count in
                    count += 1
                    return count
                }) == 1 { first.signal() }
            }
            player.totalLoopCount = 0
            player.play()
            first.wait()
            let firstFrame = clock.now - start
            let cpuStart = BenchDownloadCommand.cpuSeconds()
            Thread.sleep(forTimeInterval: seconds)
            player.pause()
            summary = (image.pixelSize, image.frameCount, shown.withLock { $0 }, firstFrame, BenchDownloadCommand.cpuSeconds() - cpuStart)
        } else {
            var options = ImageDecodeOptions()
            if noBudget { options.maxAnimationBytes = nil }
            let image = try ImageCodersManager.shared.decode(data, options: options)
            let firstFrame = clock.now - start
            // Showing a decoded frame costs nothing more: time passes, the index follows it.
            let cpuStart = BenchDownloadCommand.cpuSeconds()
            var shown = 0
            var elapsed = 0.0
            while elapsed < seconds {
                blackHole(image.frames[shown % image.frames.count].bitmap)
                Thread.sleep(forTimeInterval: image.frames[shown % image.frames.count].duration)
                elapsed += image.frames[shown % image.frames.count].duration
                shown += 1
            }
            summary = (image.pixelSize, image.frames.count, shown, firstFrame, BenchDownloadCommand.cpuSeconds() - cpuStart)
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let ms = Double(summary.firstFrame.components.attoseconds) / 1e15 + Double(summary.firstFrame.components.seconds) * 1000
        print("{\"mode\":\"\(mode)\(noBudget ? "-nobudget" : "")\",\"first_frame_ms\":\(String(format: "%.1f", ms)),"
            + "\"width\":\(summary.size.width),\"height\":\(summary.size.height),\"frames\":\(summary.frames),\"shown\":\(summary.shown),"
            + "\"play_seconds\":\(seconds),\"cpu_per_play_second\":\(String(format: "%.3f", summary.cpu / seconds)),"
            + "\"peak_rss_mb\":\(usage.ru_maxrss / 1024)}")
    }

    @inline(never)
    private func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }
}
