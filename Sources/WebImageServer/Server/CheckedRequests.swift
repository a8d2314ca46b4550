import Synchronization

/// Recently checked requests by path and `Accept`: a warm hit then skips the signature check, the
/// path parse and the URL rules, a large share of a warm hit's work. Only what passed is kept, and the
/// keys cannot change while the server runs. Bounded by the bytes its keys and values hold
/// (paths are at most ``ImageServer/maxPathBytes``); emptied when full.
final class CheckedRequests: Sendable {
    private struct Memo {
        var entries: [String: ImageServer.VariantRequest] = [:]
        var bytes = 0
    }

    private let memo = Mutex(Memo())
    let byteLimit: Int

    init(byteLimit: Int = 8 << 20) {
        self.byteLimit = byteLimit
    }

    func value(forKey key: String) -> ImageServer.VariantRequest? {
        memo.withLock { $0.entries[key] }
    }

    func insert(_ request: ImageServer.VariantRequest, forKey key: String) {
        let cost = Self.cost(of: request, key: key)
        memo.withLock { memo in
            guard memo.entries[key] == nil else { return }
            if memo.bytes + cost > byteLimit { memo = Memo() }
            memo.entries[key] = request
            memo.bytes += cost
        }
    }

    /// The bytes held now (for specs).
    var bytes: Int { memo.withLock { $0.bytes } }

    /// The strings an entry keeps (the key, the path's parts, the source, the result key) and a
    /// fixed overhead for the rest.
    private static func cost(of request: ImageServer.VariantRequest, key: String) -> Int {
        key.utf8.count + request.key.utf8.count + request.path.signedPart.utf8.count + request.path.source.utf8.count
            + request.source.absoluteString.utf8.count + request.path.filters.reduce(0) { $0 + $1.description.utf8.count } + 512
    }
}
