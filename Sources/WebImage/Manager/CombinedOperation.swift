/// One manager load, as the callback form returns it (SDWebImage's
/// `SDWebImageCombinedOperation`): cancelling it cancels the cache query and the download.
///
/// The final answer is delivered exactly once: by the load, or — when ``cancel()`` comes first —
/// as ``WebImageError/cancelled`` inside the `cancel()` call. After that nothing is delivered
/// (`CallbackGate`: deliveries are serialised, and a cancel waits for one in flight on another
/// thread).
public final class CombinedOperation: WebImageOperation {
    enum Event: Sendable {
        case progress(ImageLoaderProgress)
        /// A complete image that is not the last answer (the cached image of a refreshCached load).
        case intermediate(ImageResult)
        /// The last answer. `repeatsIntermediate`: it is the refreshCached image already sent
        /// (the server said 304), which the callback form does not deliver twice.
        case final(Result<ImageResult, WebImageError>, repeatsIntermediate: Bool)
    }

    private let gate: CallbackGate<Event>
    /// Called once when the operation ends either way (the manager's running set).
    private let onEnd: @Sendable () -> Void

    init(sink: @escaping @Sendable (Event) -> Void, onEnd: @escaping @Sendable () -> Void = {}) {
        gate = CallbackGate(sink)
        self.onEnd = onEnd
    }

    public var isCancelled: Bool { gate.isCancelled }

    /// Whether the final answer has been delivered (or the operation cancelled).
    public var isFinished: Bool { !gate.isOpen }

    public func cancel() {
        if gate.cancel(delivering: .final(.failure(.cancelled), repeatsIntermediate: false)) { onEnd() }
    }

    func attach(_ task: Task<Void, Never>) { gate.attach(task) }

    func send(_ event: Event) {
        if case .final(let result, let repeats) = event {
            finish(result, repeatsIntermediate: repeats)
        } else {
            gate.send(event)
        }
    }

    func finish(_ result: Result<ImageResult, WebImageError>, repeatsIntermediate: Bool = false) {
        if gate.finish(.final(result, repeatsIntermediate: repeatsIntermediate)) { onEnd() }
    }
}
