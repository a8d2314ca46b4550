import Synchronization

/// The events of one load, as ``ImageManager/images(with:options:context:)`` returns them:
/// progress, partial images, then the image — never more than one partial image waiting for a
/// slow consumer: a newer partial replaces the waiting one, and the consumer always gets the newest. Ending the
/// iteration (or dropping the sequence) cancels the load.
public struct ImageLoadEvents: AsyncSequence, Sendable {
    public typealias Element = ImageLoadEvent

    /// What travels through the stream: an event, or word that the newest partial image (kept
    /// aside, one at a time) is ready.
    enum Item: Sendable {
        case event(ImageLoadEvent)
        case partialReady
    }

    let stream: AsyncThrowingStream<Item, any Error>
    let partials: NewestPartial

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), partials: partials)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Item, any Error>.AsyncIterator
        let partials: NewestPartial

        public mutating func next() async throws -> ImageLoadEvent? {
            while let item = try await base.next() {
                switch item {
                case .event(let event): return event
                case .partialReady: if let image = partials.take() { return .partial(image) }
                }
            }
            return nil
        }
    }
}

/// The one partial image waiting for the consumer.
final class NewestPartial: Sendable {
    private let image = Mutex<Image?>(nil)

    /// Keeps `newest` in place of any waiting partial; `true` when none was waiting, so the
    /// producer sends word of it.
    func offer(_ newest: Image) -> Bool {
        image.withLock { waiting in
            defer { waiting = newest }
            return waiting == nil
        }
    }

    func take() -> Image? { image.withLock { $0.take() } }
}
