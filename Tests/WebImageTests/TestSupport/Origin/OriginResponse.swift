import Foundation

/// What one route of a ``TestOrigin`` answers: declarative, so a suite sets up a misbehaving server
/// in one line (`origin.route("/slow.jpg", .drip(.fixture("jpeg-baseline.jpg"), bytesPerSecond: 2000))`).
indirect enum OriginResponse: Sendable {
    /// A body and its metadata. `contentType: nil` sends no `Content-Type` header.
    case body(OriginBody, status: Int = 200, contentType: String? = "", headers: [(String, String)] = [])
    /// Just a status code, with a short text body.
    case status(Int)
    /// The body in pieces of `chunkSize` bytes at `bytesPerSecond`, with its `Content-Length`.
    case drip(OriginBody, bytesPerSecond: Int, chunkSize: Int = 256, contentType: String? = "")
    /// `Content-Length` says the whole body, `sentBytes` of it are sent, then the connection
    /// closes cleanly (FIN): a truncated body.
    case truncated(OriginBody, sentBytes: Int, contentType: String? = "")
    /// Sends `sentBytes` of the body, then resets the connection (RST).
    case reset(OriginBody, sentBytes: Int, contentType: String? = "")
    /// Headers declaring `declaredLength` bytes, then an endless trickle of zeros until the
    /// client gives up.
    case hugeDeclaredLength(Int64, contentType: String = "image/jpeg")
    /// `304 Not Modified` without a body whose `Content-Length` declares `declaredLength` (a 304
    /// may carry the length the full response would have; a hostile origin makes it huge).
    case notModified(declaredLength: Int64)
    /// A chunked body (no `Content-Length`) of `totalBytes`, sent as fast as the client reads.
    case chunked(OriginBody, chunkSize: Int = 16 * 1024, contentType: String? = "")
    /// A redirect (`Location: to`) with the given status.
    case redirect(to: String, status: Int = 302)
    /// `200` with the body and the validators; `304 Not Modified` (no body) when the request's
    /// `If-None-Match` matches `etag` or its `If-Modified-Since` equals `lastModified`.
    case validated(OriginBody, etag: String?, lastModified: String?, contentType: String? = "")
    /// Waits before sending anything of `response`.
    case delayed(TimeInterval, OriginResponse)
    /// `response` as a keep-alive answer, then the connection closes (FIN) right after it: a
    /// server whose keep-alive timeout fired just as the client was about to reuse the connection.
    case thenClose(OriginResponse)
    /// Holds the response until ``OriginGate/open()`` (or the connection closes).
    case gated(OriginGate, OriginResponse)
    /// Chooses the response per request.
    case dynamic(@Sendable (OriginRequest) -> OriginResponse)

    /// A fixture file served as `200` with its content type from the extension.
    static func fixture(_ name: String, headers: [(String, String)] = []) -> OriginResponse {
        .body(.fixture(name), headers: headers)
    }

    /// An HTML page with 200: the classic "image URL returns an error page" case.
    static let html = OriginResponse.body(
        .bytes(Data("<!doctype html><html><body>not an image</body></html>".utf8)), contentType: "text/html")
}

/// The bytes of a response.
enum OriginBody: Sendable {
    case bytes(Data)
    /// `Tests/WebImageTests/Fixtures/<name>`.
    case fixture(String)
    /// `count` zero bytes.
    case zeros(Int)

    var data: Data {
        switch self {
        case .bytes(let data): data
        case .fixture(let name): (try? Data(contentsOf: TestOrigin.fixturesDirectory.appendingPathComponent(name))) ?? Data()
        case .zeros(let count): Data(count: count)
        }
    }

    /// `image/<ext>` for a fixture, else `application/octet-stream`.
    var defaultContentType: String {
        guard case .fixture(let name) = self else { return "application/octet-stream" }
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        default: return "application/octet-stream"
        }
    }
}

/// What a ``TestOrigin`` recorded of one request.
struct OriginRequest: Sendable {
    var method: String
    /// Path and query, as sent.
    var uri: String
    var path: String
    /// Header names lower-cased.
    var headers: [(name: String, value: String)]

    /// The first value of `name` (case-insensitive).
    func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }
}
