import HTTPTypes
import NIOCore

extension DownloadRequest {
    /// The request as the lean client sends it: HTTP/1.1, origin-form target, `Host`, the
    /// request's fields, no body, written as bytes in one buffer write (NIO's encoder would build
    /// `HTTPHeaders` and encode them again). Every part is valid by construction: names are
    /// `HTTPField.Name`s, values legalized by `HTTPField`, the target and `Host` from a parsed `URL`.
    func http1Bytes(allocator: ByteBufferAllocator) -> ByteBuffer {
        var head: [UInt8] = []
        head.reserveCapacity(512)
        head.appendUTF8(method.rawValue)
        head.append(UInt8(ascii: " "))
        let path = url.path(percentEncoded: true)
        if path.isEmpty { head.append(UInt8(ascii: "/")) } else { head.appendUTF8(path) }
        if let query = url.query(percentEncoded: true) {
            head.append(UInt8(ascii: "?"))
            head.appendUTF8(query)
        }
        head.appendUTF8(" HTTP/1.1\r\n")
        if headerFields[Self.host] == nil, let host = url.host {
            head.appendUTF8("Host: ")
            // An IPv6 literal keeps its brackets.
            let bracketed = host.utf8.contains(UInt8(ascii: ":"))
            if bracketed { head.append(UInt8(ascii: "[")) }
            head.appendUTF8(host)
            if bracketed { head.append(UInt8(ascii: "]")) }
            if let port = url.port {
                head.append(UInt8(ascii: ":"))
                head.appendUTF8(String(port))
            }
            head.appendUTF8("\r\n")
        }
        headerFields.forEachHTTP1RequestField { Self.append($0, $1, to: &head) }
        if Self.mayCarryBody(method) { head.appendUTF8("Content-Length: 0\r\n") }
        head.appendUTF8("\r\n")
        return allocator.buffer(bytes: head)
    }

    /// HTTPTypes keeps `Host` out of `HTTPField.Name`'s constants (HTTP/2 says `:authority`);
    /// HTTP/1.1 needs it, and a request modifier may have set its own.
    private static let host = HTTPField.Name("Host")!

    private static func append(_ name: String, _ value: String, to head: inout [UInt8]) {
        head.appendUTF8(name)
        head.appendUTF8(": ")
        head.appendUTF8(value)
        head.appendUTF8("\r\n")
    }

    /// Methods whose requests have a body by definition (POST, PUT, PATCH, …): ours is empty,
    /// and a server must be told so rather than wait for one.
    private static func mayCarryBody(_ method: HTTPRequest.Method) -> Bool {
        switch method {
        case .get, .head, .delete, .options, .trace, .connect: false
        default: true
        }
    }
}

extension [UInt8] {
    /// `string`'s UTF-8 bytes appended as one copy (`+= string.utf8` takes a generic path that
    /// costs several times the copy for the short parts of a request head).
    fileprivate mutating func appendUTF8(_ string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }
}
