/// How a target should animate to a newly loaded image (SDWebImage's `SDWebImageTransition`).
/// WebImage has no animation engine of its own; the target reads ``kind`` and ``duration`` and
/// animates in whatever way it draws.
public struct ImageTransition: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case fade
        case flipFromLeft, flipFromRight, flipFromTop, flipFromBottom
        case curlUp, curlDown
        /// A target-defined transition.
        case custom(String)
    }

    public var kind: Kind
    /// Seconds.
    public var duration: Double

    public init(kind: Kind, duration: Double = 0.5) {
        self.kind = kind
        self.duration = duration
    }

    /// SD's default fade (0.5 s).
    public static let fade = ImageTransition(kind: .fade)
}
