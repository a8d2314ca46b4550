/// A load-in-progress display (SDWebImage's `SDWebImageIndicator`): started when a load
/// begins, given progress as bytes arrive, stopped when it ends either way.
public protocol ImageIndicator: Sendable {
    func startAnimating()
    func stopAnimating()
    /// 0...1, or not called when the size is unknown.
    func updateProgress(_ progress: Double)
}

extension ImageIndicator {
    public func updateProgress(_ progress: Double) {}
}
