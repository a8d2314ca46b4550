import Foundation
import NIOCore

extension TimeAmount {
    /// `seconds` as a timer's delay, at least 1 ms; nil for no limit (infinite, NaN, negative
    /// infinity, or more than a century — which `Int64` nanoseconds could not hold anyway).
    static func limit(seconds: TimeInterval) -> TimeAmount? {
        guard seconds.isFinite, seconds < 3e9 else { return nil }
        return .nanoseconds(Int64(max(0.001, seconds) * 1e9))
    }

    /// `seconds` where the API takes a delay and has no "none": what ``limit(seconds:)`` reads as
    /// no limit (infinite, NaN, negative infinity) becomes a year — longer than a connect or an
    /// idle connection ever waits, and still safe to add to any deadline.
    static func bound(seconds: TimeInterval) -> TimeAmount {
        limit(seconds: seconds) ?? .hours(24 * 365)
    }
}
