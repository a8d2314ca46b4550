import Synchronization

/// What makes two loads the same work: the same image under the same key, decoded, transformed
/// and stored the same way, with the same appetite for progress.
struct LoadShareKey: Hashable, Sendable {
    let url: String
    let cacheKey: String?
    let options: WebImageOptions
    let decodeOptions: ImageDecodeOptions
    /// The context's coder, by its ``ImageCoder/coderKey``.
    let coder: String?
    let queryCacheType: ImageCacheType
    let storeCacheType: ImageCacheType
    let originalQueryCacheType: ImageCacheType
    let originalStoreCacheType: ImageCacheType
    let wantsProgress: Bool
}

/// One long-way load per ``LoadShareKey`` at a time, shared by every caller that asks for the same
/// image meanwhile (Nuke's task coalescing; SD shares only the download). It spans cache query,
/// download, decode, transform and the memory store, so the callers of a popular URL cost one
/// query, one transform and one store instead of one each — and a caller arriving while the
/// download is being delivered joins it instead of missing both the download (already ended)
/// and the memory cache (not yet filled), which used to cost a second request.
///
/// Each caller keeps its own answer: it leaves with ``WebImageError/cancelled`` when its task is
/// cancelled, and the shared work is cancelled only when the last caller has left.
final class SharedLoads: Sendable {
    private let loads = Mutex<[LoadShareKey: SharedLoad]>([:])

    /// Loads in progress (for tests: none may be left once every caller has its answer).
    var count: Int { loads.withLock { $0.count } }

    /// The result of `work` for `key` — run for `caller` or joined if already running. `work`
    /// gets the operation standing for all callers (its progress goes to each of them).
    func result(
        for key: LoadShareKey, caller: CombinedOperation,
        work: @escaping @Sendable (CombinedOperation) async throws(WebImageError) -> ImageResult
    ) async -> Result<ImageResult, WebImageError> {
        let (load, isNew) = loads.withLock { loads -> (SharedLoad, Bool) in
            if let running = loads[key], running.subscribe(caller) { return (running, false) }
            let fresh = SharedLoad(wantsProgress: key.wantsProgress)
            _ = fresh.subscribe(caller)
            loads[key] = fresh
            return (fresh, true)
        }
        if isNew {
            load.start(work) { [weak self] in self?.remove(load, for: key) }
        }
        return await withTaskCancellationHandler {
            await load.answer(for: caller)
        } onCancel: {
            if load.leave(caller) { remove(load, for: key) }
        }
    }

    private func remove(_ load: SharedLoad, for key: LoadShareKey) {
        loads.withLock { loads in
            if loads[key] === load { loads[key] = nil }
        }
    }
}

/// One shared run: its callers, their waiting continuations, and the result once there is one.
private final class SharedLoad: Sendable {
    typealias Answer = Result<ImageResult, WebImageError>

    private struct Caller {
        let operation: CombinedOperation
        var continuation: CheckedContinuation<Answer, Never>?
    }

    private struct State {
        var callers: [ObjectIdentifier: Caller] = [:]
        /// Set when the result is in or the last caller left: no one may join any more.
        var isClosed = false
        var result: Answer?
        /// The work's task: cancelled when the last caller leaves. (Not through the leader
        /// operation: its cancel takes the leader's delivery lock, which a progress fan-out holds
        /// while it waits for a caller's — the very caller whose cancel got us here.)
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let wantsProgress: Bool

    init(wantsProgress: Bool) {
        self.wantsProgress = wantsProgress
    }

    /// Adds `operation` as a caller; `false` when the load is closed (finished or abandoned).
    func subscribe(_ operation: CombinedOperation) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.callers[ObjectIdentifier(operation)] = Caller(operation: operation)
            return true
        }
    }

    func start(
        _ work: @escaping @Sendable (CombinedOperation) async throws(WebImageError) -> ImageResult,
        onEnd: @escaping @Sendable () -> Void
    ) {
        // Stands for all callers inside the work: its progress fans out to each.
        let leader = CombinedOperation(wantsProgress: wantsProgress, sink: { [weak self] event in
            guard case .progress = event, let self else { return }
            let operations = self.state.withLock { $0.callers.values.map(\.operation) }
            for operation in operations { operation.send(event) }
        })
        // Started by the first caller's task, which waits for it: no hop to another thread.
        let task = immediateTask {
            let answer: Answer
            do throws(WebImageError) {
                answer = .success(try await work(leader))
            } catch {
                answer = .failure(error)
            }
            onEnd()
            self.finish(answer)
        }
        let abandoned = state.withLock { state in
            if !state.isClosed { state.task = task }
            return state.isClosed
        }
        if abandoned { task.cancel() }
    }

    /// Waits for the result — or answers ``WebImageError/cancelled`` at once if `operation`
    /// already left.
    func answer(for operation: CombinedOperation) async -> Answer {
        await withCheckedContinuation { continuation in
            let immediate = state.withLock { state -> Answer? in
                let id = ObjectIdentifier(operation)
                guard state.callers[id] != nil else { return state.result ?? .failure(.cancelled) }
                if let result = state.result { return result }
                state.callers[id]?.continuation = continuation
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }

    /// `operation` stops waiting (its task was cancelled) and answers ``WebImageError/cancelled``.
    /// Returns whether it was the last caller, in which case the work is cancelled.
    func leave(_ operation: CombinedOperation) -> Bool {
        let (continuation, abandonedTask, abandoned) = state.withLock {
            state -> (CheckedContinuation<Answer, Never>?, Task<Void, Never>?, Bool) in
            guard let caller = state.callers.removeValue(forKey: ObjectIdentifier(operation)) else { return (nil, nil, false) }
            guard state.callers.isEmpty, state.result == nil else { return (caller.continuation, nil, false) }
            state.isClosed = true
            defer { state.task = nil }
            return (caller.continuation, state.task, true)
        }
        continuation?.resume(returning: .failure(.cancelled))
        abandonedTask?.cancel()
        return abandoned
    }

    private func finish(_ answer: Answer) {
        let waiting = state.withLock { state -> [CheckedContinuation<Answer, Never>] in
            state.isClosed = true
            state.result = answer
            state.task = nil
            defer { state.callers = [:] }
            return state.callers.values.compactMap(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: answer) }
    }
}
