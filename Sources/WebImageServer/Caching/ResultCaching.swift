import Foundation

/// An encoded variant as served: bytes, type, strong ETag, and whether it varies by `Accept`.
public struct CachedResult: Sendable, Hashable {
    public var data: Data
    public var contentType: String
    public var etag: String
    public var variesByAccept: Bool
    /// The source's `Last-Modified`, as its origin sent it; nil when it sent none.
    public var lastModified: String?

    public init(data: Data, contentType: String, etag: String, variesByAccept: Bool, lastModified: String? = nil) {
        self.data = data
        self.contentType = contentType
        self.etag = etag
        self.variesByAccept = variesByAccept
        self.lastModified = lastModified
    }
}

/// Where variants are kept between requests. The default keeps them on this machine
/// (``LocalResultCache``); a fleet plugs in a shared tier (Redis, say) behind the same protocol.
public protocol ResultCaching: Sendable {
    func result(forKey key: String) async -> CachedResult?
    /// Keeps `result` under `key`, remembering that it was made from `source` (for purges).
    func store(_ result: CachedResult, forKey key: String, source: String) async
    /// Keeps `result` under `key`, made from every one of `sources` (its source first, then the
    /// images its filters drew): a purge of any of them removes it.
    func store(_ result: CachedResult, forKey key: String, sources: [String]) async
    /// Removes every variant stored from `source`; returns how many.
    func removeResults(forSource source: String) async -> Int
}

extension ResultCaching {
    /// Stores once a source; a cache that can index one write under several sources does better.
    public func store(_ result: CachedResult, forKey key: String, sources: [String]) async {
        for source in sources { await store(result, forKey: key, source: source) }
    }
}
