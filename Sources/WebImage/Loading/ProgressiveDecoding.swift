import Dispatch
import Foundation
import Synchronization

/// Partial images for a progressive download: at most one decode in flight, always of the newest
/// bytes; a burst of chunks during a decode becomes one decode after it, not a backlog.
///
/// `@unchecked Sendable`: `decoder` is touched only on the serial `queue`; everything else is
/// immutable or in the `pending` mutex.
final class ProgressiveDecoding: @unchecked Sendable {  // decoder: serial `queue` only; flags: the `pending` Mutex
    private let queue = DispatchQueue(label: "WebImage.ProgressiveDecoding", qos: .utility)
    private let decoder: any IncrementalImageDecoder
    /// The bytes so far, read only when a decode starts (so the transfer's buffer is not copied
    /// on every chunk).
    private let snapshot: @Sendable () -> Data
    private let deliver: @Sendable (Image) -> Void
    private let pending = Mutex<(isDirty: Bool, isScheduled: Bool, isFinished: Bool)>((false, false, false))

    /// `nil` when the coder cannot decode incrementally.
    init?(coder: any ImageCoder, options: ImageDecodeOptions,
          snapshot: @escaping @Sendable () -> Data, deliver: @escaping @Sendable (Image) -> Void) {
        guard let progressive = coder as? any ProgressiveImageCoder else { return nil }
        decoder = progressive.makeIncrementalDecoder(options: options)
        self.snapshot = snapshot
        self.deliver = deliver
    }

    /// More bytes arrived.
    func bytesArrived() {
        let schedule = pending.withLock { state in
            guard !state.isFinished else { return false }
            state.isDirty = true
            if state.isScheduled { return false }
            state.isScheduled = true
            return true
        }
        if schedule { queue.async { self.drain() } }
    }

    /// The download ended: no more partial images (the full decode takes over).
    func finish() {
        pending.withLock { $0.isFinished = true }
    }

    private func drain() {
        while pending.withLock({ state in
            let go = state.isDirty && !state.isFinished
            state.isDirty = false
            if !go { state.isScheduled = false }
            return go
        }) {
            decoder.update(snapshot(), isFinal: false)
            if let image = try? decoder.decodedImage() { deliver(image) }
        }
    }
}
