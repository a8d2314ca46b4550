import Testing
@testable import WebImage

@Suite("LRUList")
struct LRUListTests {
    @Test func evictsInLeastRecentlyUsedOrderAndReusesSlots() {
        var list = LRUList<Int>()
        for (i, key) in ["a", "b", "c", "d"].enumerated() { list.set(i, forKey: key, cost: 1) }
        _ = list.value(forKey: "b")
        list.remove("c")
        list.set(9, forKey: "e", cost: 5)
        #expect(list.count == 4)
        #expect(list.totalCost == 8)
        var order: [String] = []
        while let (key, _) = list.removeLeastRecent() { order.append(key) }
        #expect(order == ["a", "d", "b", "e"])
        #expect(list.totalCost == 0)
    }
}
