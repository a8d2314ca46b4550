import HTTPTypes
import NIOCore

extension DownloadRequest {
    /// The request as the lean client sends it: HTTP/1.1, origin-form target, `Host`, the
    /// request's fields, no body. Written as bytes, not through NIO's request encoder: a request
    /// head built as `HTTPHeaders` and encoded again cost ~3 % of a bulk prefetch's CPU. Every part
    /// is valid by construction — names are `HTTPField.Name`s, values legalized by `HTTPField`, the
    /// target and `Host` from a parsed `URL`.
    func http1Bytes(allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 256)
        buffer.writeString(method.rawValue)
        buffer.writeStaticString(" ")
        let path = url.path(percentEncoded: true)
        buffer.writeString(path.isEmpty ? "/" : path)
        if let query = url.query(percentEncoded: true) {
            buffer.writeStaticString("?")
            buffer.writeString(query)
        }
        buffer.writeStaticString(" HTTP/1.1\r\n")
        if !headerFields.contains(where: { $0.name == Self.host }), let host = url.host {
            buffer.writeStaticString("Host: ")
            // An IPv6 literal keeps its brackets.
            let bracketed = host.utf8.contains(UInt8(ascii: ":"))
            if bracketed { buffer.writeStaticString("[") }
            buffer.writeString(host)
            if bracketed { buffer.writeStaticString("]") }
            if let port = url.port { buffer.writeString(":\(port)") }
            buffer.writeStaticString("\r\n")
        }
        // `HTTPFields` keeps each cookie as its own field (as HTTP/2 sends them); HTTP/1.1 allows
        // one `Cookie` line (RFC 6265 §5.4). There is no body, so framing fields are ours to say.
        var cookies: [String] = []
        for field in headerFields {
            switch field.name {
            case .cookie: cookies.append(field.value)
            case .contentLength, .transferEncoding: continue
            default: Self.write(field.name.rawName, field.value, to: &buffer)
            }
        }
        if !cookies.isEmpty { Self.write(HTTPField.Name.cookie.rawName, cookies.joined(separator: "; "), to: &buffer) }
        if Self.mayCarryBody(method) { buffer.writeStaticString("Content-Length: 0\r\n") }
        buffer.writeStaticString("\r\n")
        return buffer
    }

    /// HTTPTypes keeps `Host` out of `HTTPField.Name`'s constants (HTTP/2 says `:authority`);
    /// HTTP/1.1 needs it, and a request modifier may have set its own.
    private static let host = HTTPField.Name("Host")!

    private static func write(_ name: String, _ value: String, to buffer: inout ByteBuffer) {
        buffer.writeString(name)
        buffer.writeStaticString(": ")
        buffer.writeString(value)
        buffer.writeStaticString("\r\n")
    }

    /// Methods whose requests have a body by definition (POST, PUT, PATCH, …): ours is empty,
    /// and a server must be told so rather than wait for one.
    private static func mayCarryBody(_ method: HTTPRequest.Method) -> Bool {
        ![.get, .head, .delete, .options, .trace, .connect].contains(method)
    }
}
