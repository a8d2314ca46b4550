/// Something in flight that can be cancelled (SDWebImage's `SDWebImageOperation`): a download
/// token, a local load, the manager's combined operation.
///
/// Cancelling is idempotent and thread-safe. A cancelled load calls its completion once with
/// ``WebImageError/cancelled`` unless it had already completed; it never calls it twice.
public protocol WebImageOperation: AnyObject, Sendable {
    /// Stops the load (or this caller's share of it).
    func cancel()
    /// Whether ``cancel()`` was called before the load finished.
    var isCancelled: Bool { get }
}
