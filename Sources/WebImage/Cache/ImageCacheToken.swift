import Synchronization

/// A running cache query that can be cancelled (SDWebImage's `SDImageCacheToken`).
///
/// The completion fires exactly once — with the query's result, or with `nil` inside the
/// ``cancel()`` call when that comes first — and never after `cancel()` returns
/// (`CallbackGate`).
public final class ImageCacheToken: Sendable {
    private let gate: CallbackGate<ImageCacheResult?>
    private let cancelled = Atomic(false)

    init(completion: @escaping @Sendable (ImageCacheResult?) -> Void) {
        gate = CallbackGate(completion)
    }

    private init(gate: CallbackGate<ImageCacheResult?>) { self.gate = gate }

    /// A token for a query that already answered (a synchronous memory hit).
    static func finished() -> ImageCacheToken { ImageCacheToken(gate: .closed()) }

    /// Whether ``cancel()`` was called (SD's token says so whether or not the query had answered).
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops the query; the completion fires now, with `nil`, unless it already fired.
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
        gate.cancel(delivering: .some(nil))
    }

    func attach(_ task: Task<Void, Never>) { gate.attach(task) }

    func finish(with result: ImageCacheResult?) { gate.finish(result) }
}
