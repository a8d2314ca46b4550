import Foundation
import Synchronization
@testable import WebImage

/// Decodes run only when the spec says: `runAll()` drains them in order on the caller's thread.
final class ManualDecodeScheduler: AnimationDecodeScheduler {
    private let queue = Mutex<[@Sendable () -> Void]>([])

    func run(_ work: @escaping @Sendable () -> Void) {
        queue.withLock { $0.append(work) }
    }

    var pending: Int { queue.withLock { $0.count } }

    /// Runs the first queued decode only (the one it queues next waits).
    func runOne() {
        queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }?()
    }

    /// Runs queued decodes, and those they queue, until none is left.
    func runAll() {
        while let work = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { work() }
    }
}

/// `count` frames of 2×2 pixels, frame i filled with the value i; counts decodes.
final class SolidFrames: AnimatedFrameProvider {
    let frameDurations: [Double]
    let loopCount: Int
    let pixelSize = PixelSize(width: 2, height: 2)
    private let decodes = Mutex(0)

    init(durations: [Double], loopCount: Int = 0) {
        frameDurations = durations
        self.loopCount = loopCount
    }

    var frameCount: Int { frameDurations.count }
    var decodeCount: Int { decodes.withLock { $0 } }

    func frame(at index: Int) throws -> Bitmap {
        decodes.withLock { $0 += 1 }
        return Bitmap(width: 2, height: 2, pixels: [UInt8](repeating: UInt8(index), count: 16))
    }

    static var frameBytes: Int { 16 }
}

/// ``SolidFrames`` that runs a check at the start of every decode.
final class WatchedFrames: AnimatedFrameProvider {
    private let frames: SolidFrames
    private let check = Mutex<(@Sendable () -> Void)?>(nil)

    init(durations: [Double]) { frames = SolidFrames(durations: durations) }

    func onDecode(_ body: @escaping @Sendable () -> Void) { check.withLock { $0 = body } }

    var frameCount: Int { frames.frameCount }
    var loopCount: Int { frames.loopCount }
    var frameDurations: [Double] { frames.frameDurations }
    var pixelSize: PixelSize { frames.pixelSize }
    var decodeCount: Int { frames.decodeCount }

    func frame(at index: Int) throws -> Bitmap {
        check.withLock { $0 }?()
        return try frames.frame(at: index)
    }
}

/// What a player handed its handlers, with the clock's time.
final class PlayerRecorder: Sendable {
    private let log = Mutex<(frames: [(time: Double, index: Int)], loops: [Int])>(([], []))

    init(_ player: AnimatedImagePlayer, clock: ManualAnimationClock) {
        player.frameHandler = { [weak self] index, bitmap in
            precondition(bitmap.pixels[0] == UInt8(truncatingIfNeeded: index) || bitmap.width != 2, "frame \(index) has another frame's pixels")
            self?.log.withLock { $0.frames.append((clock.now, index)) }
        }
        player.loopHandler = { [weak self] loop in self?.log.withLock { $0.loops.append(loop) } }
    }

    var indices: [Int] { log.withLock { $0.frames.map(\.index) } }
    var times: [Double] { log.withLock { $0.frames.map { ($0.time * 1000).rounded() / 1000 } } }
    var loops: [Int] { log.withLock { $0.loops } }
}
