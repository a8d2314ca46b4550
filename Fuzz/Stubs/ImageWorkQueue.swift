// WebImage's work queue runs jobs on its own threads and needs swift-collections' Deque; the fuzzer runs each job inline.
public final class ImageWorkQueue: Sendable {
    public static let decoding = ImageWorkQueue()
    public static let processing = ImageWorkQueue()

    public func run<T: Sendable>(_ job: @escaping @Sendable () -> T) async -> T { job() }
}
