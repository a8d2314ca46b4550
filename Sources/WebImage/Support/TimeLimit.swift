import Foundation
import NIOCore

extension TimeAmount {
    /// `seconds` as a timer's delay, at least 1 ms; nil for no limit (infinite, NaN, negative
    /// infinity, or more than a century — which `Int64` nanoseconds could not hold anyway).
    static func limit(seconds: TimeInterval) -> TimeAmount? {
        guard seconds.isFinite, seconds < 3e9 else { return nil }
        return .nanoseconds(Int64(max(0.001, seconds) * 1e9))
    }
}
