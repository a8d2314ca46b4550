/// glibc's `random()` after `srandom(seed)` (its default additive-feedback generator, `TYPE_3`:
/// `r[i] = r[i−3] + r[i−31]`, the first 310 outputs discarded), so that `noise(amount,seed)` makes
/// the very pixels thumbor's C filter makes with that seed.
struct GlibcRandom {
    private var state: [UInt32]
    private var front = 3
    private var rear = 0

    /// glibc treats seed 0 as 1; 1 is also the state a process starts in before any `srandom`.
    init(seed: UInt32) {
        var state = [UInt32](repeating: 0, count: 31)
        var word = Int64(seed == 0 ? 1 : seed)
        state[0] = UInt32(truncatingIfNeeded: word)
        for i in 1..<31 {
            // 16807 × word mod (2³¹ − 1), by Schrage's method as glibc computes it.
            let high = word / 127_773
            let low = word % 127_773
            word = 16_807 * low - 2_836 * high
            if word < 0 { word += 2_147_483_647 }
            state[i] = UInt32(truncatingIfNeeded: word)
        }
        self.state = state
        for _ in 0..<310 { _ = next() }
    }

    /// The next value, 0 ..< 2³¹.
    mutating func next() -> Int {
        state[front] = state[front] &+ state[rear]
        let result = Int(state[front] >> 1)
        front += 1
        rear += 1
        if front == 31 { front = 0 }
        if rear == 31 { rear = 0 }
        return result
    }
}
