import Hummingbird

extension Request {
    /// The path as thumbor reads it: with its query, which a source URL may carry — less a
    /// `meta/` request's `callback` parameter, which names the JSONP function, not the source's.
    var thumborPath: String {
        var path = uri.path
        guard let query = uri.query, !query.isEmpty else { return path }
        if isMetaPath {
            let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { !$0.hasPrefix("callback=") && $0 != "callback" }
            if !kept.isEmpty { path += "?" + kept.joined(separator: "&") }
        } else {
            path += "?" + query
        }
        return path
    }

    /// A `meta/` request's `callback=NAME` (thumbor's JSONP), as given.
    var metaCallback: String? {
        guard isMetaPath else { return nil }
        return uri.queryParameters["callback"].map(String.init)
    }

    /// `/SIGNATURE/meta/…` or `/unsafe/meta/…`.
    private var isMetaPath: Bool {
        let parts = uri.path.split(separator: "/", maxSplits: 2)
        return parts.count > 2 && parts[1] == "meta"
    }
}
