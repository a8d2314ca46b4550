import Foundation

/// An ``AnimatedImagePlayer``'s state, changed only under its lock: where playback is in the loop
/// (logical time), what is shown (the last due frame that was decoded), and the frame buffer.
struct PlayerState {
    var mode = AnimationPlaybackMode.normal
    var rate = 1.0
    var totalLoopCount: Int?
    var maxBufferSize = 0
    var frameHandler: (@Sendable (Int, Bitmap) -> Void)?
    var loopHandler: (@Sendable (Int) -> Void)?

    /// One loop's frame indices in play order, and where playback is in it.
    private(set) var order: [Int]
    private(set) var position = 0
    /// Seconds of the current position's frame already played.
    private var elapsed = 0.0
    private(set) var loops = 0
    /// Reached the last loop's end: stays on the last frame until ``rewind()``.
    private(set) var finished = false
    var token: AnimationClockToken?
    var lastTick = 0.0
    var shown: (index: Int, bitmap: Bitmap)?
    var buffer: [Int: Bitmap] = [:]
    private var decoding: Int?
    private var failed: Set<Int> = []

    init(frameCount: Int) {
        order = AnimationPlaybackMode.normal.order(frameCount: frameCount)
    }

    /// What a tick produced, to hand to the handlers outside the lock.
    struct TickEvents {
        var loops: [Int] = []
        var shown: (index: Int, bitmap: Bitmap)?
        var finished = false
        var frameHandler: (@Sendable (Int, Bitmap) -> Void)?
        var loopHandler: (@Sendable (Int) -> Void)?
    }

    /// Plays the time since the last tick: as many frames as it covers, whether or not they were
    /// decoded, then shows the frame now due if the buffer has it.
    mutating func advance(to now: Double, durations: [Double], totalLoops: Int) -> TickEvents {
        var events = TickEvents(frameHandler: frameHandler, loopHandler: loopHandler)
        guard token != nil, !finished else { return events }
        elapsed += max(0, now - lastTick) * rate
        lastTick = now
        // A zero-length frame still takes a moment, or a loop of them would never end.
        func duration(at position: Int) -> Double { max(durations[order[position]], 0.001) }
        while order.count > 1 || totalLoops > 0, elapsed >= duration(at: position) {
            elapsed -= duration(at: position)
            if position + 1 < order.count {
                position += 1
                continue
            }
            loops += 1
            events.loops.append(loops)
            if totalLoops > 0, loops >= totalLoops {
                finished = true
                events.finished = true
                elapsed = 0
                break
            }
            position = 0
        }
        let due = order[position]
        if shown?.index != due, let bitmap = buffer[due] {
            shown = (due, bitmap)
            events.shown = shown
        }
        return events
    }

    mutating func setMode(_ newMode: AnimationPlaybackMode, frameCount: Int) {
        guard newMode != mode else { return }
        mode = newMode
        order = newMode.order(frameCount: frameCount)
        position = 0
        elapsed = 0
    }

    mutating func rewind() {
        position = 0
        elapsed = 0
        loops = 0
        finished = false
    }

    mutating func seek(toFrame frame: Int, loop: Int) {
        position = order.firstIndex(of: frame) ?? 0
        elapsed = 0
        loops = max(0, loop)
        finished = false
    }

    // MARK: Buffer

    /// Frames in play order from the current position that fit the buffer (at least one).
    private func window(frameBytes: Int) -> [Int] {
        let limit = maxBufferSize > 0 ? maxBufferSize : PlayerState.automaticBufferSize
        let count = min(order.count, max(1, limit / max(1, frameBytes)))
        return (0..<count).map { order[(position + $0) % order.count] }
    }

    /// SD sizes the buffer from free memory; here 1/16 of physical memory, at most 64 MB: eight
    /// 1080p frames, a quarter second at 30 fps, when a frame decodes in milliseconds.
    static let automaticBufferSize = Int(min(ProcessInfo.processInfo.physicalMemory / 16, 64 * 1024 * 1024))

    /// The next frame to decode (marked as being decoded), or nil when one is in flight, the
    /// window is full, or the player is not playing (a paused or stopped player holds what it
    /// has and decodes no more).
    mutating func nextFrameToDecode(frameBytes: Int) -> Int? {
        guard decoding == nil, token != nil, !finished else { return nil }
        let wanted = window(frameBytes: frameBytes)
        evict(keeping: Set(wanted))
        guard let frame = wanted.first(where: { buffer[$0] == nil && !failed.contains($0) }) else { return nil }
        decoding = frame
        return frame
    }

    /// Keeps a decoded frame if playback still wants it; a frame that failed is not tried again
    /// (the one before it stays on screen).
    mutating func finishDecode(_ frame: Int, _ bitmap: Bitmap?, frameBytes: Int) {
        decoding = nil
        guard let bitmap else {
            failed.insert(frame)
            return
        }
        if token != nil, window(frameBytes: frameBytes).contains(frame) { buffer[frame] = bitmap }
    }

    private mutating func evict(keeping wanted: Set<Int>) {
        for frame in buffer.keys where !wanted.contains(frame) { buffer[frame] = nil }
    }
}
