import Foundation
import Synchronization

/// The repeats in one prefetch list: a URL listed again is not loaded again — it waits for its
/// first occurrence and counts with the same outcome, so a list with repeats costs one load per
/// distinct URL whatever the window (a repeat may reach the loader after the first finished,
/// when no shared load is left to join). Workers take positions in order, so a first occurrence
/// is always taken before its repeats; repeats wait outside the window.
final class PrefetchRepeats: Sendable {
    private enum Outcome {
        case pending([CheckedContinuation<Bool?, Never>])
        /// `true` loaded, `false` failed, `nil` cancelled.
        case done(Bool?)
    }

    /// For each position, the position of the URL's first occurrence when it is a repeat.
    private let firstIndex: [Int: Int]
    private let outcomes = Mutex<[Int: Outcome]>([:])

    init(_ urls: [URL]) {
        // Keyed by the absolute string, the cache key's basis; one probe per URL: the slot gets
        // this position unless an earlier one holds it.
        var first: [String: Int] = [:]
        first.reserveCapacity(urls.count)
        var repeats: [Int: Int] = [:]
        for (index, url) in urls.enumerated() {
            let earlier = Self.claim(&first[url.absoluteString, default: index])
            if earlier != index { repeats[index] = earlier }
        }
        firstIndex = repeats
    }

    private static func claim(_ slot: inout Int) -> Int { slot }

    /// Whether the URL at `index` repeats an earlier position.
    func isRepeat(_ index: Int) -> Bool { firstIndex[index] != nil }

    /// The outcome of the first occurrence of the URL at repeat position `index`, once known.
    func outcome(forRepeat index: Int) async -> Bool? {
        guard let first = firstIndex[index] else { return nil }
        return await withCheckedContinuation { continuation in
            let known = outcomes.withLock { outcomes -> Bool?? in
                switch outcomes[first] {
                case .done(let outcome): return .some(outcome)
                case .pending(let waiting): outcomes[first] = .pending(waiting + [continuation])
                case nil: outcomes[first] = .pending([continuation])
                }
                return .none
            }
            if case .some(let outcome) = known { continuation.resume(returning: outcome) }
        }
    }

    /// Records how the load at first position `index` ended, releasing its repeats.
    func finish(_ index: Int, outcome: Bool?) {
        let waiting = outcomes.withLock { outcomes -> [CheckedContinuation<Bool?, Never>] in
            defer { outcomes[index] = .done(outcome) }
            if case .pending(let waiting) = outcomes[index] { return waiting }
            return []
        }
        waiting.forEach { $0.resume(returning: outcome) }
    }
}
