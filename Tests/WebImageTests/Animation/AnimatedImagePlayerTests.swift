import Foundation
import Synchronization
import Testing
@testable import WebImage

/// Ticks every 1/64 s and durations in eighths, so every time below is exact in binary.
private let tick = 1.0 / 64

private func makePlayer(_ provider: any AnimatedFrameProvider) -> (AnimatedImagePlayer, ManualAnimationClock, ManualDecodeScheduler, PlayerRecorder) {
    let clock = ManualAnimationClock()
    let decodes = ManualDecodeScheduler()
    let player = AnimatedImagePlayer(provider: provider, clock: clock, decodeQueue: decodes, tickInterval: tick)
    return (player, clock, decodes, PlayerRecorder(player, clock: clock))
}

/// Advances in steps of one tick, decoding whatever was asked for after each: decoding that always keeps up.
private func play(_ clock: ManualAnimationClock, _ decodes: ManualDecodeScheduler, for seconds: Double) {
    for _ in 0..<Int((seconds / tick).rounded()) {
        decodes.runAll()
        clock.advance(by: tick)
    }
}

@Suite("AnimatedImagePlayer")
struct AnimatedImagePlayerTests {
    @Test("each frame shows for its duration, at the first tick of its time; a finished loop is reported")
    func timing() {
        let (player, clock, decodes, record) = makePlayer(SolidFrames(durations: [0.125, 0.25, 0.375]))
        player.play()
        play(clock, decodes, for: 0.75)
        #expect(record.indices == [0, 1, 2, 0])
        #expect(record.times == [0.016, 0.125, 0.375, 0.75].map { ($0 * 1000).rounded() / 1000 })
        #expect(record.loops == [1])
        #expect(player.isPlaying && player.currentFrameIndex == 0 && player.currentLoopCount == 1)
    }

    @Test("playbackRate 2 plays at twice the speed, 0.5 at half")
    func rate() {
        for (rate, changes) in [(2.0, [0.016, 0.063, 0.188, 0.375]), (0.5, [0.016, 0.25, 0.75, 1.5])] {
            let (player, clock, decodes, record) = makePlayer(SolidFrames(durations: [0.125, 0.25, 0.375]))
            player.playbackRate = rate
            player.play()
            play(clock, decodes, for: 0.75 / rate)
            #expect(record.indices == [0, 1, 2, 0], "rate \(rate)")
            #expect(record.times == changes.map { ($0 * 1000).rounded() / 1000 }, "rate \(rate)")
        }
    }

    @Test("modes: normal, reversed, bounce (each end once) and reversed bounce, over two loops",
          arguments: [
              (AnimationPlaybackMode.normal, [0, 1, 2, 3, 0, 1, 2, 3]),
              (.reversed, [3, 2, 1, 0, 3, 2, 1, 0]),
              (.bounce, [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1]),
              (.reversedBounce, [3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2]),
          ])
    func modes(mode: AnimationPlaybackMode, expected: [Int]) {
        let (player, clock, decodes, record) = makePlayer(SolidFrames(durations: [0.125, 0.125, 0.125, 0.125], loopCount: 2))
        player.playbackMode = mode
        player.play()
        play(clock, decodes, for: 0.125 * Double(expected.count) + 0.5)
        #expect(record.indices == expected)
        #expect(record.loops == [1, 2])
    }

    @Test("the loop count is honoured: after the last loop the player stops on the last frame; 0 plays forever")
    func loopCount() {
        let (player, clock, decodes, record) = makePlayer(SolidFrames(durations: [0.125, 0.125], loopCount: 2))
        player.play()
        play(clock, decodes, for: 2)
        #expect(record.indices == [0, 1, 0, 1])
        #expect(record.loops == [1, 2])
        #expect(!player.isPlaying && player.currentFrameIndex == 1)
        player.play()  // played out: from the start again
        play(clock, decodes, for: 0.25 - tick)
        #expect(Array(record.indices.suffix(3)) == [1, 0, 1] && record.times.suffix(2) == [2.016, 2.125])

        let (forever, foreverClock, foreverDecodes, foreverRecord) = makePlayer(SolidFrames(durations: [0.125, 0.125], loopCount: 0))
        forever.play()
        play(foreverClock, foreverDecodes, for: 2.5)
        #expect(foreverRecord.loops == Array(1...10) && forever.isPlaying)
    }

    @Test("pause stops frames and time; play resumes where it was; stop goes back to the start and frees the buffer")
    func pauseResumeStop() {
        let (player, clock, decodes, record) = makePlayer(SolidFrames(durations: [0.125, 0.25, 0.375]))
        player.play()
        play(clock, decodes, for: 0.1875)  // into frame 1 by 1/16 s
        player.pause()
        play(clock, decodes, for: 5)
        #expect(record.indices == [0, 1])
        player.play()
        play(clock, decodes, for: 0.1875)  // frame 1 has 3/16 s left
        #expect(record.indices == [0, 1, 2])
        #expect(record.times.last == 5.375)
        player.stop()
        #expect(!player.isPlaying && player.bufferedFrameCount == 0 && player.currentFrame == nil)
        play(clock, decodes, for: 1)
        #expect(record.indices.count == 3, "nothing after stop")
    }

    @Test("a stopped player drops the decode in flight and starts no other: nothing stays buffered")
    func stopDropsDecodes() {
        let provider = SolidFrames(durations: [0.125, 0.125, 0.125])
        let (player, _, decodes, _) = makePlayer(provider)
        player.play()
        #expect(decodes.pending == 1)
        player.stop()
        decodes.runAll()
        #expect(provider.decodeCount == 1 && player.bufferedFrameCount == 0 && decodes.pending == 0)
    }

    @Test("seek: while paused the frame is decoded and handed over at once; while playing it shows at the next tick")
    func seek() {
        let (player, clock, decodes, record) = makePlayer(SolidFrames(durations: [0.125, 0.125, 0.125, 0.125]))
        player.seek(toFrame: 2, loop: 3)
        #expect(record.indices == [2] && player.currentLoopCount == 3 && player.currentFrameIndex == 2)
        player.play()
        play(clock, decodes, for: 0.125)
        #expect(record.indices == [2, 3])
        player.seek(toFrame: 0)
        play(clock, decodes, for: tick * 2)
        #expect(record.indices == [2, 3, 0] && player.currentLoopCount == 0)
    }

    @Test("the buffer never holds more than maxBufferSize bytes of frames, and every frame still plays in order")
    func bufferLimit() {
        let provider = SolidFrames(durations: Array(repeating: 0.125, count: 12))
        let (player, clock, decodes, record) = makePlayer(provider)
        player.maxBufferSize = 3 * SolidFrames.frameBytes
        player.play()
        var largest = 0
        for _ in 0..<Int(3 / tick) - 1 {
            decodes.runAll()
            largest = max(largest, player.bufferedFrameCount)
            #expect(player.bufferedBytes <= 3 * SolidFrames.frameBytes)
            clock.advance(by: tick)
        }
        #expect(largest == 3)
        #expect(record.indices == Array(0..<12) + Array(0..<12))
    }

    @Test("a consumer that never takes a frame, or takes them late and far apart, never makes the player hold more than maxBufferSize: the frames buffered and the one decoding")
    func bufferBoundWhateverTheTiming() {
        let provider = WatchedFrames(durations: Array(repeating: 0.125, count: 40))
        let (player, clock, decodes, record) = makePlayer(provider)
        let bound = 4 * SolidFrames.frameBytes
        player.maxBufferSize = bound
        provider.onDecode { #expect(player.bufferedBytes + SolidFrames.frameBytes <= bound, "a decode starts only with room for its frame") }
        player.play()
        // Never taken: time stands still, decoding fills the buffer and stops.
        decodes.runAll()
        #expect(player.bufferedBytes == bound && decodes.pending == 0 && provider.decodeCount == 4)
        // Taken late: time jumps past what is decoded again and again, one decode between jumps.
        for step in 0..<300 {
            if step % 3 == 0 { clock.advance(by: 0.7) }
            decodes.runOne()
            #expect(player.bufferedBytes <= bound)
        }
        #expect(record.indices.count > 10, "frames still show")
        player.stop()
    }

    @Test("late decoding skips frames rather than slowing down: the frame due when decoding catches up shows, on time")
    func lateDecodeSkips() {
        let (player, clock, decodes, record) = makePlayer(SolidFrames(durations: Array(repeating: 0.125, count: 8)))
        player.play()
        decodes.runOne()
        clock.advance(by: tick)
        #expect(record.indices == [0])
        // Decoding stalls for 3.5 frames' time: nothing new shows, time keeps going.
        clock.advance(by: 0.4375)
        #expect(record.indices == [0])
        // It catches up: the next tick shows frame 3 (due at 0.375), not 1 or 2.
        play(clock, decodes, for: tick)
        play(clock, decodes, for: tick)
        #expect(record.indices == [0, 3])
        play(clock, decodes, for: 0.125)
        #expect(record.indices == [0, 3, 4])
        #expect(record.times.last == 0.5, "frame 4 on its own time: the skip did not shift the clock")
    }

    @Test("an AnimatedImage plays every fixture frame equal to the eager decoder's, decoded on demand")
    func playsAnAnimatedImage() throws {
        let data = try Fixtures.data("apng-pillow-ops.png")
        let eager = try ImageCodersManager.shared.decode(data)
        let image = try AnimatedImage(data: data)
        let (player, clock, decodes, _) = makePlayer(image)
        let shown = ShownFrames()
        player.frameHandler = { index, bitmap in shown.append(index, bitmap) }
        player.totalLoopCount = 1
        player.play()
        play(clock, decodes, for: eager.duration + 1)
        #expect(shown.indices == Array(0..<eager.frames.count))
        for (index, bitmap) in shown.all { #expect(bitmap == eager.frames[index].bitmap, "frame \(index)") }
    }
}

private final class ShownFrames: Sendable {
    private let frames = Mutex<[(Int, Bitmap)]>([])
    func append(_ index: Int, _ bitmap: Bitmap) { frames.withLock { $0.append((index, bitmap)) } }
    var all: [(Int, Bitmap)] { frames.withLock { $0 } }
    var indices: [Int] { all.map(\.0) }
}

@Suite("AnimatedImagePlayer on the real clock")
struct AnimatedImagePlayerRealClockTests {
    @Test("plays on a dispatch timer and decoding queue; no frame arrives after pause() returns")
    func realClock() async throws {
        let player = AnimatedImagePlayer(provider: SolidFrames(durations: [0.02, 0.02, 0.02]))
        let shown = Mutex(0)
        player.frameHandler = { _, _ in shown.withLock { $0 += 1 } }
        player.play()
        let deadline = ContinuousClock.now + .seconds(20 * TestTiming.scale)
        while shown.withLock({ $0 }) < 6, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        player.pause()
        let atPause = shown.withLock { $0 }
        #expect(atPause >= 6)
        try await Task.sleep(for: .milliseconds(100))
        #expect(shown.withLock { $0 } == atPause)
        #expect(!player.isPlaying)
    }
}
