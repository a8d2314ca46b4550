import Foundation
import Synchronization
import Testing
@testable import WebImage

/// A target that remembers what it was shown, and an indicator that counts.
private final class RecordingTarget: ImageTarget {
    struct Shown { let image: Image?; let transition: ImageTransition? }
    let shown = Mutex<[Shown]>([])
    let recordingIndicator = RecordingIndicator()
    let wantedTransition: ImageTransition?

    init(transition: ImageTransition? = .fade) { wantedTransition = transition }

    func setImage(_ image: Image?, transition: ImageTransition?) {
        shown.withLock { $0.append(Shown(image: image, transition: transition)) }
    }
    var indicator: (any ImageIndicator)? { recordingIndicator }
    var transition: ImageTransition? { wantedTransition }
    var last: Shown? { shown.withLock { $0.last } }
}

private final class RecordingIndicator: ImageIndicator {
    let starts = Mutex(0)
    let stops = Mutex(0)
    func startAnimating() { starts.withLock { $0 += 1 } }
    func stopAnimating() { stops.withLock { $0 += 1 } }
}

/// Holds the first loaded (non-placeholder) image it is shown until ``release()``: a load's
/// delivery kept open, so a test can start the next load on the same target meanwhile.
private final class HoldingTarget: ImageTarget {
    let shown = Mutex<[Image?]>([])
    private let gate = DispatchSemaphore(value: 0)
    private let state = Mutex((holding: false, held: false))
    private let placeholders: [Image]

    init(placeholders: [Image]) { self.placeholders = placeholders }

    func setImage(_ image: Image?, transition: ImageTransition?) {
        let hold = state.withLock { state in
            guard let image, !placeholders.contains(where: { $0 === image }), !state.held else { return false }
            state.held = true
            state.holding = true
            return true
        }
        if hold { gate.wait() }
        shown.withLock { $0.append(image) }
    }

    var isHolding: Bool { state.withLock { $0.holding } }
    func release() {
        state.withLock { $0.holding = false }
        gate.signal()
    }
}

private let placeholder = Image(bitmap: Fixtures.solid(RGBA(r: 1, g: 2, b: 3, a: 255), width: 2, height: 2))

/// Records what it is shown and the players it is handed, and plays them to the end.
private final class PlayingTarget: AnimatedImageTarget {
    let shown = Mutex<[Image?]>([])
    let players = Mutex<[AnimatedImagePlayer]>([])
    let frames = Mutex<[Int]>([])

    func setImage(_ image: Image?, transition: ImageTransition?) { shown.withLock { $0.append(image) } }

    func play(_ player: AnimatedImagePlayer) {
        players.withLock { $0.append(player) }
        player.totalLoopCount = 1
        player.frameHandler = { [weak self] index, _ in self?.frames.withLock { $0.append(index) } }
        player.play()
    }
}

/// A button-like target (SD's `UIButton` + `sd_setImageWithURL:forState:`): one image per state,
/// told apart by the load's operation key.
private final class ButtonTarget: ImageTarget {
    enum State: String, CaseIterable { case normal, highlighted, disabled }
    private let images = Mutex<[State: Image?]>([:])

    static func context(_ state: State) -> WebImageContext { WebImageContext(setImageOperationKey: "button." + state.rawValue) }
    static func key(_ state: State) -> String { "button." + state.rawValue }

    func setImage(_ image: Image?, transition: ImageTransition?, operationKey: String) {
        guard let state = State.allCases.first(where: { Self.key($0) == operationKey }) else { return }
        images.withLock { $0[state] = .some(image) }
    }
    /// Loads always name a state here; an image for no state would be a binding bug.
    func setImage(_ image: Image?, transition: ImageTransition?) { Issue.record("an image without a slot") }
    func image(for state: State) -> Image? { images.withLock { $0[state] ?? nil } }
}

@Suite("ImageBinding")
struct ImageBindingTests {
    @Test("an AnimatedImageTarget gets the poster frame, then a player that decodes frames on demand; a plain target gets every frame")
    func animatedTargetGetsAPlayer() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let eager = try ImageCodersManager.shared.decode(try Fixtures.data("gif-pillow-animated.gif"))
        let url = try fixture.file("gif-pillow-animated.gif")

        let target = PlayingTarget()
        let answers = ManagerAnswers()
        binding.setImage(on: target, with: url, completed: { answers.record($0) })
        #expect(await eventually { answers.count == 1 })
        let poster = try #require(target.shown.withLock { $0.last } ?? nil)
        #expect(poster.frames.count == 1 && poster.bitmap == eager.bitmap)
        let animation = try #require(poster.animatedImage)
        #expect(animation.frameCount == eager.frames.count)
        #expect(poster.cost == animation.cost + poster.bitmap.pixels.count, "the memory cache counts bytes + canvas + poster")
        #expect(target.players.withLock { $0.count } == 1)
        #expect(await eventually { target.frames.withLock { $0 } == Array(0..<eager.frames.count) })

        let plain = RecordingTarget()
        let plainAnswers = ManagerAnswers()
        binding.setImage(on: plain, with: try fixture.file("gif-pillow-animated.gif", as: "again.gif"), completed: { plainAnswers.record($0) })
        #expect(await eventually { plainAnswers.count == 1 })
        #expect(plain.last?.image?.frames.count == eager.frames.count && plain.last?.image?.animatedImage == nil)
    }

    @Test("placeholder first, then the loaded image with the target's transition; indicator started and stopped")
    func placeholderThenImage() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let target = RecordingTarget()
        let url = try fixture.file("png-rgb.png")
        let answers = ManagerAnswers()
        binding.setImage(on: target, with: url, placeholder: placeholder, completed: { answers.record($0) })
        #expect(target.shown.withLock { $0.first?.image } === placeholder)
        #expect(await eventually { answers.count == 1 })
        #expect(target.last?.image?.width == (try ImageCodersManager.shared.decode(try Fixtures.data("png-rgb.png"))).width)
        #expect(target.last?.transition == .fade)
        #expect(target.recordingIndicator.starts.withLock { $0 } == 1)
        #expect(target.recordingIndicator.stops.withLock { $0 } == 1)
        #expect(binding.currentURL(of: target) == url)
        #expect(!binding.isLoading(target))
    }

    @Test("a memory hit is shown without a transition, unless forceTransition")
    func memoryHitNoTransition() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let url = try fixture.file("png-rgb.png")
        _ = try await fixture.manager.loadImage(with: url)
        let target = RecordingTarget()
        binding.setImage(on: target, with: url)
        #expect(target.last?.image != nil && target.last?.transition == nil)
        binding.setImage(on: target, with: url, options: .forceTransition)
        #expect(target.last?.transition == .fade)
    }

    @Test("a new load on the same target cancels the previous one (2002); avoidAutoCancelImage keeps it")
    func autoCancel() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let target = RecordingTarget()
        let first = ManagerAnswers()
        let second = ManagerAnswers()
        binding.setImage(on: target, with: try fixture.file("jpeg-progressive.jpg", as: "a.jpg"), completed: { first.record($0) })
        binding.setImage(on: target, with: try fixture.file("jpeg-baseline.jpg", as: "b.jpg"), completed: { second.record($0) })
        #expect(first.count == 1)
        #expect(first.last.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
        #expect(await eventually { second.count == 1 })
        #expect((try? second.last?.get()) != nil)

        let third = ManagerAnswers()
        let fourth = ManagerAnswers()
        binding.setImage(on: target, with: try fixture.file("png-rgba.png", as: "c.png"), completed: { third.record($0) })
        binding.setImage(on: target, with: try fixture.file("png-gray.png", as: "d.png"), options: .avoidAutoCancelImage, completed: { fourth.record($0) })
        #expect(await eventually { third.count == 1 && fourth.count == 1 })
        #expect((try? third.last?.get()) != nil)
    }

    @Test("cell reuse: a load delivered while the next one starts never paints over the next load's placeholder or image")
    func reuseWhileDelivering() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let secondPlaceholder = Image(bitmap: Fixtures.solid(RGBA(r: 9, g: 9, b: 9, a: 255), width: 3, height: 3))
        let target = HoldingTarget(placeholders: [placeholder, secondPlaceholder])
        let first = ManagerAnswers()
        binding.setImage(on: target, with: try fixture.file("png-rgb.png", as: "first.png"), placeholder: placeholder,
                         completed: { first.record($0) })
        // The first load's image is being shown right now (held inside the target).
        #expect(await eventually { target.isHolding })

        let second = ManagerAnswers()
        let secondURL = try fixture.file("png-gray.png", as: "second.png")
        let secondStarted = Mutex(false)
        Thread.detachNewThread {
            binding.setImage(on: target, with: secondURL, placeholder: secondPlaceholder, completed: { second.record($0) })
            secondStarted.withLock { $0 = true }
        }
        // Give the second load every chance to get past the first's delivery (it must not).
        await eventually(timeout: .milliseconds(300)) { secondStarted.withLock { $0 } }
        target.release()
        #expect(await eventually { secondStarted.withLock { $0 } && second.count == 1 && first.count == 1 })

        let gray = try ImageCodersManager.shared.decode(try Fixtures.data("png-gray.png"))
        let last = try #require(target.shown.withLock { $0.last } ?? nil)
        #expect(last === secondPlaceholder || last.bitmap == gray.bitmap, "the target ends with the second load's placeholder or image")
        #expect(binding.currentURL(of: target) == secondURL)
    }

    @Test("different operation keys on one target load side by side")
    func operationKeys() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let target = RecordingTarget()
        let a = ManagerAnswers()
        let b = ManagerAnswers()
        binding.setImage(on: target, with: try fixture.file("png-rgb.png", as: "k1.png"),
                         context: WebImageContext(setImageOperationKey: "background"), completed: { a.record($0) })
        binding.setImage(on: target, with: try fixture.file("png-gray.png", as: "k2.png"), completed: { b.record($0) })
        #expect(await eventually { a.count == 1 && b.count == 1 })
        #expect((try? a.last?.get()) != nil && (try? b.last?.get()) != nil)
    }

    @Test("a button-like target holds a normal, a highlighted and a disabled image at once: each load shows in its own slot, and a new load replaces only its slot")
    func perStateImages() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let button = ButtonTarget()
        let files: [ButtonTarget.State: String] = [.normal: "png-rgb.png", .highlighted: "png-gray.png", .disabled: "jpeg-baseline.jpg"]
        let answers = ManagerAnswers()
        var urls: [ButtonTarget.State: URL] = [:]
        for (state, name) in files {
            let url = try fixture.file(name)
            urls[state] = url
            binding.setImage(on: button, with: url, placeholder: placeholder, context: ButtonTarget.context(state),
                             completed: { answers.record($0) })
        }
        #expect(await eventually { answers.count == 3 })
        for (state, name) in files {
            let expected = try ImageCodersManager.shared.decode(try Fixtures.data(name))
            #expect(button.image(for: state)?.bitmap == expected.bitmap, "\(state)")
            // SD's sd_imageURLForState:
            #expect(binding.currentURL(of: button, operationKey: ButtonTarget.key(state)) == urls[state])
        }
        // Highlighted changes; normal and disabled keep theirs.
        let again = ManagerAnswers()
        binding.setImage(on: button, with: try fixture.file("png-rgb.png", as: "pressed.png"),
                         context: ButtonTarget.context(.highlighted), completed: { again.record($0) })
        #expect(await eventually { again.count == 1 })
        #expect(button.image(for: .highlighted)?.bitmap == button.image(for: .normal)?.bitmap)
        #expect(button.image(for: .disabled)?.format == .jpeg)
    }

    @Test("cancelCurrentLoad answers 2002 and leaves the placeholder")
    func cancelCurrentLoad() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let target = RecordingTarget()
        let answers = ManagerAnswers()
        binding.setImage(on: target, with: try fixture.file("jpeg-progressive.jpg"), placeholder: placeholder, completed: { answers.record($0) })
        binding.cancelCurrentLoad(on: target)
        #expect(answers.count == 1)
        #expect(answers.last.map { if case .failure(let e) = $0 { e.code == 2002 } else { false } } == true)
        // The shared load the cancel stopped has ended: nothing of it can reach the target now.
        #expect(await eventually { fixture.manager.sharedLoads.count == 0 && !fixture.manager.isRunning })
        #expect(target.last?.image === placeholder)
        #expect(target.recordingIndicator.stops.withLock { $0 } == 1)
    }

    @Test("delayPlaceholder: nothing shown while loading, the placeholder after a failure")
    func delayPlaceholder() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let target = RecordingTarget()
        let answers = ManagerAnswers()
        let missing = fixture.directory.appendingPathComponent("missing.png")
        binding.setImage(on: target, with: missing, placeholder: placeholder, options: .delayPlaceholder, completed: { answers.record($0) })
        #expect(target.shown.withLock { $0.isEmpty } || answers.count == 1)
        #expect(await eventually { answers.count == 1 })
        #expect(target.last?.image === placeholder)
        #expect(target.shown.withLock { $0.count } == 1)
    }

    @Test("avoidAutoSetImage leaves the target alone; the completion gets the image")
    func avoidAutoSetImage() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let target = RecordingTarget()
        let answers = ManagerAnswers()
        binding.setImage(on: target, with: try fixture.file("png-rgb.png"), placeholder: placeholder, options: .avoidAutoSetImage,
                         completed: { answers.record($0) })
        #expect(await eventually { answers.count == 1 })
        #expect(target.shown.withLock { $0.map(\.image) }.count == 1)
        #expect(target.last?.image === placeholder)
        #expect((try? answers.last?.get()) != nil)
    }

    @Test("a nil URL shows the placeholder and answers invalidURL (1000)")
    func nilURL() throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let target = RecordingTarget()
        let answers = ManagerAnswers()
        binding.setImage(on: target, with: nil, placeholder: placeholder, completed: { answers.record($0) })
        #expect(target.last?.image === placeholder)
        #expect(answers.last.map { if case .failure(let e) = $0 { e.code == 1000 } else { false } } == true)
    }

    @Test("previous cached image as placeholder (SD's sd_setImageWithPreviousCachedImageWithURL): from memory, else read from disk before the call returns; the given placeholder when nothing is cached")
    func previousCachedImage() async throws {
        let fixture = try ManagerFixture(loader: FileLoader())
        let binding = ImageBinding(manager: fixture.manager)
        let url = try fixture.file("png-rgb.png")
        let inMemory = try await fixture.manager.loadImage(with: url).image

        let fromMemory = RecordingTarget()
        binding.setImageWithPreviousCachedImage(on: fromMemory, with: url, placeholder: placeholder, options: .refreshCached)
        #expect(fromMemory.shown.withLock { $0.first?.image } === inMemory)

        await fixture.cache.waitForPendingDiskWork()
        fixture.cache.memoryCache.removeAll()
        let fromDisk = RecordingTarget()
        let answers = ManagerAnswers()
        binding.setImageWithPreviousCachedImage(on: fromDisk, with: url, placeholder: placeholder, options: .refreshCached,
                                                completed: { answers.record($0) })
        let shownFirst = try #require(fromDisk.shown.withLock { $0.first?.image })
        #expect(shownFirst !== placeholder && shownFirst.width == inMemory.width && shownFirst.bitmap == inMemory.bitmap)
        #expect(await eventually { answers.count >= 1 })

        let uncached = RecordingTarget()
        binding.setImageWithPreviousCachedImage(on: uncached, with: try fixture.file("png-gray.png"), placeholder: placeholder)
        #expect(uncached.shown.withLock { $0.first?.image } === placeholder)
    }

    @Test("transition rule: network and async disk animate, memory and sync disk do not")
    func transitionRule() {
        #expect(ImageBinding.shouldTransition(.none, options: []))
        #expect(ImageBinding.shouldTransition(.disk, options: []))
        #expect(!ImageBinding.shouldTransition(.disk, options: .queryDiskDataSync))
        #expect(!ImageBinding.shouldTransition(.memory, options: []))
        #expect(ImageBinding.shouldTransition(.memory, options: .forceTransition))
    }
}
