import Foundation

/// A `meta/` request's JSONP function name (`callback=NAME`, thumbor's `meta_callback`): the JSON
/// is answered as `NAME({…});`. Only a dotted JavaScript identifier is accepted — the name is
/// written into a script a page runs, so anything else (a `(`, a quote, a `<`) would be an injection.
struct MetaCallback: Sendable, Hashable {
    let name: String

    /// The longest name accepted.
    static let maxLength = 64

    init(_ name: String) throws(ServerFailure) {
        guard Self.isSafe(name) else { throw .badCallback }
        self.name = name
    }

    /// Letters, digits, `_` and `$`, in dot-separated parts none of which is empty or starts with a digit.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maxLength else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            guard let first = part.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return part.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "$") }
        }
    }

    /// `result`'s JSON as `NAME(JSON);`, typed `text/javascript` as thumbor types it, with its own ETag.
    func wrapping(_ result: CachedResult) -> CachedResult {
        var wrapped = Data("\(name)(".utf8)
        wrapped.append(result.data)
        wrapped.append(contentsOf: Array(");".utf8))
        var answer = result
        answer.data = wrapped
        answer.contentType = "text/javascript"
        answer.etag = VariantMaker.etag(wrapped)
        return answer
    }
}
