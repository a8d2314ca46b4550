/// A least-recently-used ordering of keys with costs, stored in flat arrays (no per-entry
/// objects, so no reference counting on the hot path). Not thread-safe: ``MemoryCache`` holds it
/// inside its mutex (and so does the image server's result cache, hence `package`).
package struct LRUList<Value> {
    private var keys: [String] = []
    private var values: [Value?] = []
    private var costs: [Int] = []
    private var previous: [Int] = []
    private var next: [Int] = []
    private var free: [Int] = []
    private var index: [String: Int] = [:]
    private var head = -1  // most recent
    private var tail = -1  // least recent

    package private(set) var totalCost = 0
    package var count: Int { index.count }

    package init() {}

    /// The value for `key`, marking it most recently used.
    package mutating func value(forKey key: String) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return values[slot]
    }

    /// Inserts or replaces `key` as the most recently used entry.
    package mutating func set(_ value: Value, forKey key: String, cost: Int) {
        if let slot = index[key] {
            totalCost += cost - costs[slot]
            values[slot] = value
            costs[slot] = cost
            moveToFront(slot)
            return
        }
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            keys[slot] = key
            values[slot] = value
            costs[slot] = cost
        } else {
            slot = keys.count
            keys.append(key)
            values.append(value)
            costs.append(cost)
            previous.append(-1)
            next.append(-1)
        }
        index[key] = slot
        totalCost += cost
        linkAtFront(slot)
    }

    @discardableResult
    package mutating func remove(_ key: String) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        return release(slot)
    }

    /// Removes and returns the least recently used entry.
    package mutating func removeLeastRecent() -> (key: String, value: Value)? {
        guard tail >= 0 else { return nil }
        let slot = tail
        let key = keys[slot]
        index.removeValue(forKey: key)
        guard let value = release(slot) else { return nil }
        return (key, value)
    }

    package mutating func removeAll() {
        self = LRUList()
    }

    private mutating func release(_ slot: Int) -> Value? {
        unlink(slot)
        let value = values[slot]
        totalCost -= costs[slot]
        values[slot] = nil
        keys[slot] = ""
        costs[slot] = 0
        free.append(slot)
        return value
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private mutating func linkAtFront(_ slot: Int) {
        previous[slot] = -1
        next[slot] = head
        if head >= 0 { previous[head] = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let p = previous[slot], n = next[slot]
        if p >= 0 { next[p] = n } else { head = n }
        if n >= 0 { previous[n] = p } else { tail = p }
        previous[slot] = -1
        next[slot] = -1
    }
}
