/// Keeps "the last store, removal or clear asked for wins" on disk although an image that must be
/// encoded first is queued for writing only after its encode: every write takes a ticket when it
/// is asked for, and lands only if no later write of its key (or a clear) was asked for meanwhile.
/// A later write that lands first therefore wins, and the earlier one is dropped, as it would have
/// been overwritten.
///
/// A dropped write's caller is not told "done" before the key has settled — until the write that
/// superseded it is over too — so a store that reported done is on disk, or overwritten by a later
/// write that is. Lives behind ``ImageCache``'s lock; waiters run outside it.
struct DiskWriteOrder {
    typealias Waiter = @Sendable () -> Void

    private var last: UInt64 = 0
    /// The last write asked for, per key with a write in flight.
    private var latest: [String: UInt64] = [:]
    private var waiters: [String: [Waiter]] = [:]

    /// A ticket for a store or removal of `key` asked for now.
    mutating func ticket(for key: String) -> UInt64 {
        last += 1
        latest[key] = last
        return last
    }

    /// A clear asked for now: every write asked for before it is dropped. Returns the waiters, to
    /// run once the clear is done.
    mutating func clear() -> [Waiter] {
        last += 1
        latest = [:]
        defer { waiters = [:] }
        return waiters.values.flatMap { $0 }
    }

    /// Whether the write with `ticket` is still the last word on `key`: asked right before it lands.
    func isCurrent(_ ticket: UInt64, for key: String) -> Bool {
        latest[key] == ticket
    }

    /// The write with `ticket` is over — landed, dropped or failed. When it was the last word on
    /// `key`, the key has settled: it is forgotten (the table holds only keys with writes in
    /// flight) and its waiters are returned, to run outside the lock.
    mutating func end(_ ticket: UInt64, for key: String) -> [Waiter] {
        guard latest[key] == ticket else { return [] }
        latest[key] = nil
        // Most keys never have a waiter: no second hash of the key for an empty table.
        return waiters.isEmpty ? [] : waiters.removeValue(forKey: key) ?? []
    }

    /// Whether no write of `key` is in flight.
    func isSettled(_ key: String) -> Bool { latest[key] == nil }

    /// Keeps `waiter` until `key` settles; `false` when it has already (the caller runs it).
    mutating func whenSettled(_ key: String, _ waiter: @escaping Waiter) -> Bool {
        guard latest[key] != nil else { return false }
        waiters[key, default: []].append(waiter)
        return true
    }
}
