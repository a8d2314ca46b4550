/// Keeps "the last store, removal or clear asked for wins" on disk although an image that must be
/// encoded first is queued for writing only after its encode: every write takes a ticket when it
/// is asked for, and lands only if no later write of its key (or a clear) was asked for meanwhile.
/// A later write that lands first therefore wins, and the earlier one is dropped, as it would have
/// been overwritten. Lives behind ``ImageCache``'s lock.
struct DiskWriteOrder {
    private var last: UInt64 = 0
    private var latest: [String: UInt64] = [:]

    /// A ticket for a store or removal of `key` asked for now.
    mutating func ticket(for key: String) -> UInt64 {
        last += 1
        latest[key] = last
        return last
    }

    /// A clear asked for now: every write asked for before it is dropped.
    mutating func clear() {
        last += 1
        latest = [:]
    }

    /// Whether the write with `ticket` is still the last word on `key`; forgets the key when it is
    /// (so the table holds only keys with writes in flight).
    mutating func land(_ ticket: UInt64, for key: String) -> Bool {
        guard latest[key] == ticket else { return false }
        latest[key] = nil
        return true
    }
}
