import Dispatch
import Foundation
import Synchronization

/// Partial images for a progressive download: at most one decode in flight, always of the newest
/// bytes; a burst of chunks during a decode becomes one decode after it, not a backlog. Each round
/// hands the decoder only the new bytes (copied out, so the transfer's buffer stays unshared).
final class ProgressiveDecoding: @unchecked Sendable {  // decoder, received, fallback: serial `queue` only; flags: the `pending` Mutex
    private let queue = DispatchQueue(label: "WebImage.ProgressiveDecoding", qos: .utility)
    private let decoder: any IncrementalImageDecoder
    /// The bytes from a position on, copied out of the transfer's buffer.
    private let bytes: @Sendable (_ from: Int) -> Data
    /// How many bytes the decoder has been given.
    private var received = 0
    /// All bytes so far, for a decoder that does not keep them itself (not WebImage's own).
    private var fallback = Data()
    private let deliver: @Sendable (Image) -> Void
    private let pending = Mutex<(isDirty: Bool, isScheduled: Bool, isFinished: Bool)>((false, false, false))

    /// `nil` when the coder cannot decode incrementally.
    init?(coder: any ImageCoder, options: ImageDecodeOptions,
          bytes: @escaping @Sendable (_ from: Int) -> Data, deliver: @escaping @Sendable (Image) -> Void) {
        guard let progressive = coder as? any ProgressiveImageCoder else { return nil }
        decoder = progressive.makeIncrementalDecoder(options: options)
        self.bytes = bytes
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
            let fresh = bytes(received)
            received += fresh.count
            if let buffering = decoder as? any ReceivedBytesBuffering {
                buffering.append(fresh, isFinal: false)
            } else {
                fallback.append(fresh)
                decoder.update(fallback, isFinal: false)
            }
            if let image = try? decoder.decodedImage() { deliver(image) }
        }
    }
}
