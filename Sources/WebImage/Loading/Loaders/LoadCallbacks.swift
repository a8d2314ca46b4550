import Dispatch

/// One callback caller's progress and completion for a load — the gate at the public edge of the
/// callback form: progress in order, the completion exactly once, nothing after ``cancel()``
/// returns (`CallbackGate`). It is also the operation a loader hands back for a load that is only
/// this caller's (async loaders, early failures).
final class LoadCallbacks: WebImageOperation {
    private enum Event: Sendable {
        case progress(ImageLoaderProgress)
        case completion(Result<ImageLoaderResult, WebImageError>)
    }

    private let gate: CallbackGate<Event>
    let wantsProgress: Bool

    init(progress: ImageLoaderProgressHandler?, completion: @escaping ImageLoaderCompletion) {
        wantsProgress = progress != nil
        gate = CallbackGate { event in
            switch event {
            case .progress(let value): progress?(value)
            case .completion(let result): completion(result)
            }
        }
    }

    /// The task doing the work: cancelled when the caller cancels (after the answer went out).
    func attach(_ task: Task<Void, Never>) { gate.attach(task) }
    var isCancelled: Bool { gate.isCancelled }

    func deliverProgress(_ value: ImageLoaderProgress) {
        if wantsProgress { gate.send(.progress(value)) }
    }

    /// Calls the completion unless it was already called or cancelled. Returns whether it was.
    @discardableResult
    func complete(_ result: Result<ImageLoaderResult, WebImageError>) -> Bool {
        gate.finish(.completion(result))
    }

    /// Answers ``WebImageError/cancelled`` now, unless already answered; nothing comes after.
    func cancel() {
        gate.cancel(delivering: .completion(.failure(.cancelled)))
    }

    /// A load that failed before it started. It answers asynchronously, like any load, so a
    /// caller never sees its completion before `requestImage` returns; a cancel first wins.
    static func failed(_ error: WebImageError, completion: @escaping ImageLoaderCompletion) -> LoadCallbacks {
        let callbacks = LoadCallbacks(progress: nil, completion: completion)
        DispatchQueue.global().async { callbacks.complete(.failure(error)) }
        return callbacks
    }
}
