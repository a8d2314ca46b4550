import Hummingbird

/// What the server answers one request: a variant (or 304 when the client's ETag matches), or a
/// failure in one plain sentence.
struct Answer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    init(result: CachedResult, ifNoneMatch: String?, maxAge: Int) {
        self.init(result: result, ifNoneMatch: ifNoneMatch, cacheControl: "public, max-age=\(maxAge)")
    }

    /// The variant with `Cache-Control: cacheControl`, and the source's `Last-Modified` when it had one.
    init(result: CachedResult, ifNoneMatch: String?, cacheControl: String) {
        headers = [.eTag: result.etag, .cacheControl: cacheControl]
        if let lastModified = result.lastModified { headers[.lastModified] = lastModified }
        if result.variesByAccept { headers[.vary] = "Accept" }
        let tags = (ifNoneMatch ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tags.contains(result.etag) || tags.contains("*") {
            status = .notModified
            body = ByteBuffer()
        } else {
            status = .ok
            headers[.contentType] = result.contentType
            body = ByteBuffer(bytes: result.data)
        }
    }

    init(failure: ServerFailure) {
        status = failure.status
        headers = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
        if let retryAfter = failure.retryAfter { headers[.retryAfter] = String(retryAfter) }
        body = ByteBuffer(string: "\(failure.status.code) \(failure.status.reasonPhrase): \(failure.message)\n")
    }

    init(json: String) {
        status = .ok
        headers = [.contentType: "application/json", .cacheControl: "no-store"]
        body = ByteBuffer(string: json)
    }

    var response: Response {
        Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
