/// The order frames play in: SDWebImage's `SDAnimatedImagePlaybackMode`.
public enum AnimationPlaybackMode: Sendable, Hashable {
    /// 0, 1, … n-1, then again from 0.
    case normal
    /// n-1 … 0, then again from n-1.
    case reversed
    /// 0 … n-1 … 1 (each end once), then again from 0.
    case bounce
    /// n-1 … 0 … n-2, then again from n-1.
    case reversedBounce

    /// One loop's frame indices for `count` frames.
    func order(frameCount count: Int) -> [Int] {
        guard count > 1 else { return [0] }
        let forward = Array(0..<count)
        switch self {
        case .normal: return forward
        case .reversed: return forward.reversed()
        case .bounce: return forward + forward[1..<(count - 1)].reversed()
        case .reversedBounce: return forward.reversed() + forward[1..<(count - 1)]
        }
    }
}
