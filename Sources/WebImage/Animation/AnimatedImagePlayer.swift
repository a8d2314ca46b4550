import Dispatch
import Foundation
import Synchronization

/// Plays an animation frame by frame: SDWebImage's `SDAnimatedImagePlayer`, the engine behind
/// `SDAnimatedImageView`. Frames are decoded ahead on a background queue into a buffer of at
/// most ``maxBufferSize`` bytes; when decoding falls behind, time keeps going and the player
/// shows the frame that is due once it is ready, skipping the ones in between rather than
/// slowing the animation down.
///
/// ``frameHandler`` gets each frame to show (on the clock's thread), ``loopHandler`` each
/// finished loop. Neither runs after ``pause()`` or ``stop()`` returns.
public final class AnimatedImagePlayer: Sendable {
    public let provider: any AnimatedFrameProvider
    private let clock: any AnimationClock
    private let decodeQueue: any AnimationDecodeScheduler
    private let tickInterval: Double
    private let state: Mutex<PlayerState>

    /// - Parameters:
    ///   - provider: the animation's frames and durations (an ``AnimatedImage``, or any ``AnimatedFrameProvider``).
    ///   - clock: where time comes from; a ``ManualAnimationClock`` makes playback deterministic.
    ///   - decodeQueue: where frames are decoded (a serial queue of its own by default).
    ///   - tickInterval: how often the clock is asked to tick (60 Hz, a display's refresh).
    public init(
        provider: any AnimatedFrameProvider, clock: any AnimationClock = DispatchAnimationClock(),
        decodeQueue: any AnimationDecodeScheduler = DispatchQueue(label: "WebImage.AnimatedImagePlayer.decode"),
        tickInterval: Double = 1.0 / 60
    ) {
        self.provider = provider
        self.clock = clock
        self.decodeQueue = decodeQueue
        self.tickInterval = tickInterval
        state = Mutex(PlayerState(frameCount: provider.frameCount))
    }

    // MARK: Settings

    /// Times to play before stopping on the last frame; 0 = forever. Starts as the provider's.
    public var totalLoopCount: Int {
        get { state.withLock { $0.totalLoopCount ?? provider.loopCount } }
        set { state.withLock { $0.totalLoopCount = max(0, newValue) } }
    }

    /// Speed: 2 plays twice as fast. Must be positive (SD's `playbackRate`).
    public var playbackRate: Double {
        get { state.withLock { $0.rate } }
        set { state.withLock { $0.rate = newValue > 0 ? newValue : 1 } }
    }

    /// The order frames play in; changing it starts the loop again from its first frame.
    public var playbackMode: AnimationPlaybackMode {
        get { state.withLock { $0.mode } }
        set { state.withLock { $0.setMode(newValue, frameCount: provider.frameCount) } }
    }

    /// Most bytes of decoded frames held ahead of playback; 0 = automatic (SD's
    /// `maxBufferSize`): 1/16 of physical memory, at most 64 MB, at least one frame.
    public var maxBufferSize: Int {
        get { state.withLock { $0.maxBufferSize } }
        set { state.withLock { $0.maxBufferSize = max(0, newValue) } }
    }

    /// Called with each frame to show and its index.
    public var frameHandler: (@Sendable (Int, Bitmap) -> Void)? {
        get { state.withLock { $0.frameHandler } }
        set { state.withLock { $0.frameHandler = newValue } }
    }

    /// Called with the number of loops finished so far, at the end of each.
    public var loopHandler: (@Sendable (Int) -> Void)? {
        get { state.withLock { $0.loopHandler } }
        set { state.withLock { $0.loopHandler = newValue } }
    }

    // MARK: State

    public var isPlaying: Bool { state.withLock { $0.token != nil } }
    /// The frame shown last (nil before the first one is decoded).
    public var currentFrame: Bitmap? { state.withLock { $0.shown?.bitmap } }
    /// The index of ``currentFrame`` (0 before any).
    public var currentFrameIndex: Int { state.withLock { $0.shown?.index ?? 0 } }
    /// Loops finished.
    public var currentLoopCount: Int { state.withLock { $0.loops } }
    /// Frames decoded and held, and their bytes.
    public var bufferedFrameCount: Int { state.withLock { $0.buffer.count } }
    public var bufferedBytes: Int { state.withLock { state in state.buffer.values.reduce(0) { $0 + $1.pixels.count } } }

    // MARK: Control

    /// Starts or resumes playing from the current frame (from the start once all loops played).
    public func play() {
        let token = clock.schedule(every: tickInterval) { [weak self] now in self?.tick(now) }
        let started = state.withLock { state -> Bool in
            guard state.token == nil else { return false }
            if state.finished { state.rewind() }  // played out: play again from the start
            state.token = token
            state.lastTick = clock.now
            return true
        }
        if started { requestDecodes() } else { token.cancel() }
    }

    /// Stops at the current frame; ``play()`` resumes from it.
    public func pause() {
        state.withLock { state in
            let token = state.token
            state.token = nil
            return token
        }?.cancel()
    }

    /// Stops, back to the first frame of the first loop, and frees the buffer.
    public func stop() {
        pause()
        state.withLock { state in
            state.rewind()
            state.buffer.removeAll()
            state.shown = nil
        }
    }

    /// Jumps to `frame` in loop `loop` (SD's `seekToFrameAtIndex:loopCount:`). While paused the
    /// frame is decoded now and handed to ``frameHandler``; while playing it shows at the next tick.
    public func seek(toFrame frame: Int, loop: Int = 0) {
        precondition(frame >= 0 && frame < provider.frameCount, "frame \(frame) of \(provider.frameCount)")
        let playing = state.withLock { state in
            state.seek(toFrame: frame, loop: loop)
            return state.token != nil
        }
        if playing {
            requestDecodes()
        } else if let bitmap = (state.withLock { $0.buffer[frame] }) ?? (try? provider.frame(at: frame)) {
            let handler = state.withLock { state in
                state.shown = (frame, bitmap)
                return state.frameHandler
            }
            handler?(frame, bitmap)
        }
    }

    // MARK: Playback

    private func tick(_ now: Double) {
        let events = state.withLock { state in state.advance(to: now, durations: provider.frameDurations, totalLoops: totalLoopCount(state)) }
        if events.finished { pause() }
        requestDecodes()
        for loop in events.loops { events.loopHandler?(loop) }
        if let shown = events.shown { events.frameHandler?(shown.index, shown.bitmap) }
    }

    private func totalLoopCount(_ state: PlayerState) -> Int { state.totalLoopCount ?? provider.loopCount }

    /// Decodes the next frame the buffer is missing, one at a time, until the window ahead of
    /// playback is full.
    private func requestDecodes() {
        let frameBytes = provider.pixelSize.pixelCount * Bitmap.bytesPerPixel
        guard let frame = state.withLock({ $0.nextFrameToDecode(frameBytes: frameBytes) }) else { return }
        decodeQueue.run { [weak self] in
            guard let self else { return }
            let bitmap = try? self.provider.frame(at: frame)
            self.state.withLock { $0.finishDecode(frame, bitmap, frameBytes: frameBytes) }
            self.requestDecodes()
        }
    }
}

/// Where decoding work runs.
public protocol AnimationDecodeScheduler: Sendable {
    func run(_ work: @escaping @Sendable () -> Void)
}

extension DispatchQueue: AnimationDecodeScheduler {
    public func run(_ work: @escaping @Sendable () -> Void) { async(execute: work) }
}
