import Foundation
import Synchronization
import WebImage

/// An ``AnimatedImageTarget`` that draws on standard output: each new image replaces the
/// previous drawing in place (cursor moved back up over it); animations play through an
/// ``AnimatedImagePlayer`` (frames decoded as they are due, at full resolution, fitted to the
/// terminal as they are drawn; memory is the file and a few frames); an image that arrives with
/// all its frames decoded plays them with their delays; a fade transition blends from the
/// previous drawing in a few steps.
final class TerminalImageTarget: AnimatedImageTarget {
    private struct State {
        var drawnLines = 0
        var shown: Bitmap?
        var animation: Task<Void, Never>?
        var player: AnimatedImagePlayer?
        var generation = 0
    }

    let renderer: TerminalRenderer
    /// How many times to play an animation; `nil` = its own loop count (0 = forever).
    let loops: Int?
    let transition: ImageTransition?
    let indicator: (any ImageIndicator)?
    private let state = Mutex(State())
    private let output = Mutex(FileHandle.standardOutput)

    init(renderer: TerminalRenderer, loops: Int?, transition: ImageTransition?, indicator: (any ImageIndicator)?) {
        self.renderer = renderer
        self.loops = loops
        self.transition = transition
        self.indicator = indicator
    }

    func setImage(_ image: Image?, transition: ImageTransition?) {
        let (previous, generation, player) = state.withLock { state in
            state.animation?.cancel()
            state.animation = nil
            state.generation += 1
            defer { state.player = nil }
            return (state.shown, state.generation, state.player)
        }
        player?.stop()
        guard let image else { return }
        let frames = image.frames.map { $0.bitmap.oriented(image.orientation) }
        if let transition, transition.kind == .fade, let previous {
            fade(from: previous, to: frames[0], duration: transition.duration)
        }
        draw(frames[0])
        guard frames.count > 1 else { return }
        let durations = image.frames.map(\.duration)
        let plays = loops ?? image.loopCount
        let task = Task.detached { [weak self] in
            var index = 0
            var played = 0
            while true {
                try? await Task.sleep(for: .seconds(max(durations[index], 0.02)))
                index += 1
                if index == frames.count {
                    played += 1
                    if plays != 0, played >= plays { return }
                    index = 0
                }
                guard !Task.isCancelled, let self, self.isCurrent(generation) else { return }
                self.draw(frames[index])
            }
        }
        state.withLock { if $0.generation == generation { $0.animation = task } }
    }

    func play(_ player: AnimatedImagePlayer) {
        let generation = state.withLock { state in
            state.player = player
            return state.generation
        }
        let orientation = (player.provider as? AnimatedImage)?.orientation ?? .up
        if let loops { player.totalLoopCount = loops }
        player.frameHandler = { [weak self] _, bitmap in
            guard let self, self.isCurrent(generation) else { return }
            self.draw(bitmap.oriented(orientation))
        }
        player.play()
    }

    /// Waits until a running animation has played its loops.
    func waitForAnimation() async {
        await state.withLock { $0.animation }?.value
        while let player = state.withLock({ $0.player }), player.isPlaying {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    private func isCurrent(_ generation: Int) -> Bool { state.withLock { $0.generation == generation } }

    /// Blends at the size the new image is drawn at, so any two images can fade into each other.
    private func fade(from old: Bitmap, to new: Bitmap, duration: Double) {
        let size = renderer.drawingSize(for: new.size)
        func fitted(_ bitmap: Bitmap) -> Bitmap {
            bitmap.size == size ? bitmap
                : ResizingTransformer(size: size, scaleMode: .fill).transform(Image(bitmap: bitmap), forKey: "")?.bitmap ?? bitmap
        }
        let (from, to) = (fitted(old), fitted(new))
        guard from.size == to.size else { return }
        let steps = 4
        for step in 1..<steps {
            let t = Double(step) / Double(steps)
            let pixels = zip(from.pixels, to.pixels).map { UInt8((Double($0) * (1 - t) + Double($1) * t).rounded()) }
            draw(Bitmap(width: size.width, height: size.height, pixels: pixels), remember: false)
            Thread.sleep(forTimeInterval: duration / Double(steps))
        }
    }

    private func draw(_ bitmap: Bitmap, remember: Bool = true) {
        let lines = renderer.lines(for: bitmap)
        output.withLock { out in
            let up = state.withLock { state in
                defer {
                    state.drawnLines = lines.count
                    if remember { state.shown = bitmap }
                }
                return state.drawnLines
            }
            // Back to the top of the previous drawing, cleared to the end of the screen, so a
            // smaller drawing leaves nothing of a larger one behind.
            var text = up > 0 ? "\u{1B}[\(up)F\u{1B}[0J" : ""
            text += lines.joined(separator: "\n") + "\n"
            out.write(Data(text.utf8))
        }
    }
}
