import Testing
@testable import WebImage

/// The member list of one shared piece of work (a download's callers, a shared load's waiters):
/// joined order kept however members leave, each leaving by its own id once.
@Suite("SharedMembers: callers in the order they joined, each leaving by its id once")
struct SharedMembersTests {
    private func members(_ names: [String]) -> (SharedMembers<String>, [UInt64]) {
        var list = SharedMembers<String>()
        let ids = names.map { list.add($0) }
        return (list, ids)
    }

    @Test("members come out in the order they joined, the first one included", arguments: [0, 1, 2, 5])
    func order(count: Int) {
        let names = (0..<count).map { "caller \($0)" }
        let (list, ids) = members(names)
        #expect(Array(list) == names)
        #expect(list.all == names)
        #expect(list.count == count)
        #expect(list.isEmpty == (count == 0))
        #expect(Set(ids).count == count)
    }

    @Test("the first member leaving hands its place to the next, and an id leaves only once")
    func firstLeaves() {
        var (list, ids) = members(["a", "b", "c"])
        #expect(list.remove(ids[0]) == "a")
        #expect(list.remove(ids[0]) == nil)
        #expect(Array(list) == ["b", "c"])
        #expect(list.remove(ids[2]) == "c")
        #expect(list.remove(ids[1]) == "b")
        #expect(list.isEmpty)
        // Ids are never reused: a new member cannot be removed by a stale token.
        let next = list.add("d")
        #expect(!ids.contains(next))
        #expect(list.remove(ids[1]) == nil)
        #expect(Array(list) == ["d"])
    }

    @Test("a member changed in place keeps its id; taking out everyone leaves the list empty")
    func updateAndTakeAll() {
        var (list, ids) = members(["a1", "b1", "a2", "b2"])
        #expect(list.remove(ids[3]) == "b2")
        #expect(list.update(ids[1]) { $0 += "!" })
        #expect(list.remove(ids[0]) == "a1")
        #expect(!list.update(ids[0]) { $0 += "!" })
        #expect(Array(list) == ["b1!", "a2"])
        let rest = list.removeAll()
        #expect(Array(rest) == ["b1!", "a2"])
        #expect(list.isEmpty)
    }
}
