/// The callers joined to one ``DownloadOperation``, each
/// under the id its ``DownloadToken`` cancels by, in the order they joined. Kept under its
/// owner's lock; callbacks taken out are called outside it.
struct DownloadCallers {
    private var entries: [(id: UInt64, callbacks: LoadCallbacks)] = []
    private var nextID: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// Everyone still waiting.
    var all: [LoadCallbacks] { entries.map(\.callbacks) }
    var wantProgress: Bool { entries.contains { $0.callbacks.wantsProgress } }

    /// Adds `callbacks`; the id their token cancels by.
    mutating func add(_ callbacks: LoadCallbacks) -> UInt64 {
        defer { nextID += 1 }
        entries.append((nextID, callbacks))
        return nextID
    }

    /// Takes out the caller with `id`; nil when it has left already (answered or cancelled).
    mutating func remove(_ id: UInt64) -> LoadCallbacks? {
        entries.firstIndex { $0.id == id }.map { entries.remove(at: $0).callbacks }
    }

    /// Takes out everyone.
    mutating func removeAll() -> [LoadCallbacks] {
        defer { entries = [] }
        return all
    }

    /// Takes out those answered on the thread the load ends on (``LoadCallbacks/isAnsweredInPlace``).
    mutating func removeAnsweredInPlace() -> [LoadCallbacks] {
        var taken: [LoadCallbacks] = []
        entries.removeAll { entry in
            guard entry.callbacks.isAnsweredInPlace else { return false }
            taken.append(entry.callbacks)
            return true
        }
        return taken
    }
}
