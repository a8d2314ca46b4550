/// The callers joined to one ``DownloadOperation``, each under the id its ``DownloadToken``
/// cancels by (the shared-work primitive's member list).
typealias DownloadCallers = SharedMembers<LoadCallbacks>

extension SharedMembers<LoadCallbacks> {
    var wantProgress: Bool { contains { $0.wantsProgress } }

    /// Takes out those answered on the thread the load ends on (``LoadCallbacks/isAnsweredInPlace``).
    mutating func removeAnsweredInPlace() -> Self {
        removeAll { $0.isAnsweredInPlace }
    }
}
