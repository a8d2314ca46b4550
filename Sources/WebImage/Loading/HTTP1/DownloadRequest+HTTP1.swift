import HTTPTypes
import NIOCore

extension DownloadRequest {
    /// The request as the lean client sends it: HTTP/1.1, origin-form target, `Host`, the
    /// request's fields, no body. Written as bytes, not through NIO's request encoder: a request
    /// head built as `HTTPHeaders` and encoded again cost ~3 % of a bulk prefetch's CPU. Every part
    /// is valid by construction — names are `HTTPField.Name`s, values legalized by `HTTPField`, the
    /// target and `Host` from a parsed `URL`.
    func http1Bytes(allocator: ByteBufferAllocator) -> ByteBuffer {
        // Composed as one String and written once: each ByteBuffer write checks and may grow the
        // buffer (~230 instructions), a String append copies.
        var head = ""
        head.reserveCapacity(256)
        head += method.rawValue
        head += " "
        let path = url.path(percentEncoded: true)
        head += path.isEmpty ? "/" : path
        if let query = url.query(percentEncoded: true) {
            head += "?"
            head += query
        }
        head += " HTTP/1.1\r\n"
        // The host as the URL holds it, encoded: what goes on the wire, and no decoded copy made.
        if !headerFields.contains(where: { $0.name == Self.host }), let host = url.host(percentEncoded: true) {
            // An IPv6 literal keeps its brackets.
            let bracketed = host.utf8.contains(UInt8(ascii: ":"))
            head += bracketed ? "Host: [" : "Host: "
            head += host
            if bracketed { head += "]" }
            if let port = url.port {
                head += ":"
                head += String(port)
            }
            head += "\r\n"
        }
        // `HTTPFields` keeps each cookie as its own field (as HTTP/2 sends them); HTTP/1.1 allows
        // one `Cookie` line (RFC 6265 §5.4). There is no body, so framing fields are ours to say.
        var cookies: [String] = []
        for field in headerFields {
            switch field.name {
            case .cookie: cookies.append(field.value)
            case .contentLength, .transferEncoding: continue
            default: Self.append(field.name.rawName, field.value, to: &head)
            }
        }
        if !cookies.isEmpty { Self.append(HTTPField.Name.cookie.rawName, cookies.joined(separator: "; "), to: &head) }
        if Self.mayCarryBody(method) { head += "Content-Length: 0\r\n" }
        head += "\r\n"
        return allocator.buffer(string: head)
    }

    /// HTTPTypes keeps `Host` out of `HTTPField.Name`'s constants (HTTP/2 says `:authority`);
    /// HTTP/1.1 needs it, and a request modifier may have set its own.
    private static let host = HTTPField.Name("Host")!

    private static func append(_ name: String, _ value: String, to head: inout String) {
        head += name
        head += ": "
        head += value
        head += "\r\n"
    }

    /// Methods whose requests have a body by definition (POST, PUT, PATCH, …): ours is empty,
    /// and a server must be told so rather than wait for one.
    private static func mayCarryBody(_ method: HTTPRequest.Method) -> Bool {
        ![.get, .head, .delete, .options, .trace, .connect].contains(method)
    }
}
