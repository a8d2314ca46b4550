import Testing
@testable import WebImage

/// The callers joined to one download (an operation's or a bulk share's).
@Suite("DownloadCallers")
struct DownloadCallersTests {
    private func callbacks(resumesTask: Bool = false, progress: Bool = false) -> LoadCallbacks {
        var handler: ImageLoaderProgressHandler?
        if progress { handler = { _ in } }
        return LoadCallbacks(progress: handler, completion: { _ in }, resumesTask: resumesTask)
    }

    @Test("each caller gets its own id, and leaves once: a second cancel by the same id finds no one")
    func idsAreDistinctAndLeaveOnce() {
        var callers = DownloadCallers()
        let first = callbacks(), second = callbacks()
        let a = callers.add(first), b = callers.add(second)
        #expect(a != b)
        #expect(callers.remove(a) === first)
        #expect(callers.remove(a) == nil)
        #expect(callers.count == 1)
        #expect(callers.all.map(ObjectIdentifier.init) == [ObjectIdentifier(second)])
    }

    @Test("those answered in place (a task to resume, no progress) are taken out in order; the rest stay")
    func answeredInPlaceAreTakenOut() {
        var callers = DownloadCallers()
        let task1 = callbacks(resumesTask: true), handler = callbacks(), task2 = callbacks(resumesTask: true)
        let watching = callbacks(resumesTask: true, progress: true)
        for caller in [task1, handler, task2, watching] { _ = callers.add(caller) }
        #expect(callers.wantProgress)
        #expect(callers.removeAnsweredInPlace().map(ObjectIdentifier.init) == [task1, task2].map(ObjectIdentifier.init))
        #expect(callers.removeAll().map(ObjectIdentifier.init) == [handler, watching].map(ObjectIdentifier.init))
        #expect(callers.isEmpty)
        #expect(!callers.wantProgress)
    }
}
