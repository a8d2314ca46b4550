import HTTPTypes

extension HTTP1ResponseParser {
    /// A head's status, fields and framing, before it is matched to its request.
    struct ParsedHead {
        var head: Head
        var framing: Framing
    }

    /// Parses a complete head — status line, fields, the blank line — read in place as bytes.
    ///
    /// The fields a server sends on every response are recognised by their bytes and get
    /// HTTPTypes' own names (`.contentType`, …) without a `String` made, validated and lowercased
    /// for the name; the three that frame the body are read as bytes too. `HTTPField` replaces a
    /// control character in a value with a space, as it does for any value; a CR is refused
    /// before that (RFC 9112 §2.2: it would hide a line break from us but not from others).
    static func parseHead(_ bytes: UnsafeBufferPointer<UInt8>) throws(ParseError) -> ParsedHead {
        var lines = Lines(bytes)
        guard let statusLine = lines.next() else { throw .malformedStatusLine }
        let (minor, status) = try parseStatusLine(bytes, statusLine)
        var fields = HTTPFields()
        fields.reserveCapacity(12)
        var length: Int?
        var chunkedLast: Bool?  // nil: no Transfer-Encoding
        var close = false, keepAliveAsked = false
        while let line = lines.next(), !line.isEmpty {
            let (name, role, value) = try parseField(bytes, line)
            switch role {
            case .contentLength:
                let declared = try contentLength(value)
                guard length == nil || length == declared else { throw .conflictingFraming }
                // One field, one number: `5, 5` or a repeated field would read as no length later.
                if length == nil { fields.append(HTTPField(name: .contentLength, value: String(declared))) }
                length = declared
                continue
            case .transferEncoding:
                // `chunked\t` and `chunked,` end in chunked for us and not for llhttp (close-delimited): refused, not guessed.
                guard !bytes[line].contains(UInt8(ascii: "\t")), value.last != UInt8(ascii: ",") else { throw .malformedField }
                var last: Bool?
                for token in Tokens(value) { last = ASCII.equalsIgnoringCase(token, "chunked") }
                chunkedLast = last ?? chunkedLast ?? false
            case .connection:
                // llhttp ignores `keep-alive\t`: with a tab, an HTTP/1.0 connection is not kept, as there.
                let tab = bytes[line].contains(UInt8(ascii: "\t"))
                for token in Tokens(value) {
                    close = close || ASCII.equalsIgnoringCase(token, "close")
                    keepAliveAsked = keepAliveAsked || !tab && ASCII.equalsIgnoringCase(token, "keep-alive")
                }
            case .other: break
            }
            // From a String: HTTPTypes makes one from bytes through its unspecialised generic path.
            fields.append(HTTPField(name: name, value: String(decoding: value, as: UTF8.self)))
        }
        let framing: Framing
        if let chunkedLast {
            guard length == nil else { throw .conflictingFraming }
            // Only a final `chunked` frames the body; any other coding runs until the close.
            framing = chunkedLast ? .chunked : .untilClose
        } else if let length {
            framing = .length(length)
        } else {
            framing = .untilClose
        }
        let keepAlive = minor >= 1 ? !close : keepAliveAsked && !close
        return ParsedHead(head: Head(status: status, fields: fields, keepAlive: keepAlive), framing: framing)
    }

    /// `HTTP/1.x NNN reason`: the minor version and the status (the reason is not kept).
    private static func parseStatusLine(_ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(ParseError) -> (Int, Int) {
        let prefix = "HTTP/1.".utf8
        guard line.count >= 12, bytes[line.lowerBound..<line.lowerBound + 7].elementsEqual(prefix),
              !bytes[line].contains(UInt8(ascii: "\r"))
        else { throw .malformedStatusLine }
        let at = line.lowerBound
        guard let minor = digit(bytes[at + 7]), bytes[at + 8] == UInt8(ascii: " "),
              let hundreds = digit(bytes[at + 9]), hundreds >= 1, let tens = digit(bytes[at + 10]), let ones = digit(bytes[at + 11]),
              line.count == 12 || bytes[at + 12] == UInt8(ascii: " ")
        else { throw .malformedStatusLine }
        return (minor, hundreds * 100 + tens * 10 + ones)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte &- UInt8(ascii: "0") < 10 ? Int(byte &- UInt8(ascii: "0")) : nil
    }

    /// `name: value` on `line`: the name, what it means for framing, and the value's bytes
    /// without the spaces and tabs around them.
    static func parseField(
        _ bytes: UnsafeBufferPointer<UInt8>, _ line: Range<Int>
    ) throws(ParseError) -> (HTTPField.Name, FieldRole, UnsafeBufferPointer<UInt8>) {
        var colon = line.lowerBound
        while colon < line.upperBound, bytes[colon] != UInt8(ascii: ":") {
            // A folded line (leading space) or a space before the colon fails here: NIO's llhttp
            // refused both, and RFC 9112 §5.2 allows a client to reject obsolete folding.
            guard isTokenByte(bytes[colon]) else { throw .malformedField }
            colon += 1
        }
        guard colon < line.upperBound, colon > line.lowerBound else { throw .malformedField }
        let rawName = UnsafeBufferPointer(rebasing: bytes[line.lowerBound..<colon])
        let (name, role): (HTTPField.Name, FieldRole)
        if let known = KnownField.match(rawName) {
            (name, role) = known
        } else {
            guard let made = HTTPField.Name(String(decoding: rawName, as: UTF8.self)) else { throw .malformedField }
            (name, role) = (made, .other)
        }
        let value = ASCII.trimmingSpacesAndTabs(bytes[(colon + 1)..<line.upperBound])
        guard !value.contains(UInt8(ascii: "\r")) else { throw .malformedField }
        return (name, role, value)
    }

    /// RFC 9110 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"):
            true
        default:
            "!#$%&'*+.^_`|~".utf8.contains(byte)
        }
    }

    /// A `Content-Length` value: digits, or a list of one value repeated (RFC 9110 §8.6).
    private static func contentLength(_ value: UnsafeBufferPointer<UInt8>) throws(ParseError) -> Int {
        var length: Int?
        for token in Tokens(value) {
            guard token.count > 0, token.count <= 18 else { throw .invalidContentLength }
            var number = 0
            for byte in token {
                guard let digit = digit(byte) else { throw .invalidContentLength }
                number = number * 10 + digit
            }
            guard length == nil || length == number else { throw .conflictingFraming }
            length = number
        }
        guard let length else { throw .invalidContentLength }
        return length
    }

    /// What a field means for reading the body.
    enum FieldRole {
        case contentLength, transferEncoding, connection, other
    }
}

/// The fields servers send on most responses, matched by their bytes in any case: by length
/// first, so a name is compared with at most three spellings, not with the whole list.
private enum KnownField {
    typealias Match = (HTTPField.Name, HTTP1ResponseParser.FieldRole)

    static func match(_ raw: UnsafeBufferPointer<UInt8>) -> Match? {
        func spells(_ spelling: StaticString) -> Bool { ASCII.equalsIgnoringCase(raw, spelling) }
        switch raw.count {
        case 3: return spells("age") ? (.age, .other) : nil
        case 4:
            if spells("date") { return (.date, .other) }
            if spells("etag") { return (.eTag, .other) }
            return spells("vary") ? (.vary, .other) : nil
        case 6: return spells("server") ? (.server, .other) : nil
        case 7: return spells("expires") ? (.expires, .other) : nil
        case 8: return spells("location") ? (.location, .other) : nil
        case 10:
            if spells("connection") { return (.connection, .connection) }
            return spells("set-cookie") ? (.setCookie, .other) : nil
        case 12: return spells("content-type") ? (.contentType, .other) : nil
        case 13:
            if spells("last-modified") { return (.lastModified, .other) }
            if spells("accept-ranges") { return (.acceptRanges, .other) }
            return spells("cache-control") ? (.cacheControl, .other) : nil
        case 14: return spells("content-length") ? (.contentLength, .contentLength) : nil
        case 16: return spells("content-encoding") ? (.contentEncoding, .other) : nil
        case 17: return spells("transfer-encoding") ? (.transferEncoding, .transferEncoding) : nil
        default: return nil
        }
    }
}

/// The lines of a head as ranges, split at LF with a CR before it dropped.
private struct Lines {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func next() -> Range<Int>? {
        guard position < bytes.count else { return nil }
        let start = position
        let lf = HTTP1ResponseParser.index(of: UInt8(ascii: "\n"), in: UnsafeRawBufferPointer(bytes), from: start) ?? bytes.count
        position = lf + 1
        return start..<(lf > start && bytes[lf - 1] == UInt8(ascii: "\r") ? lf - 1 : lf)
    }
}

/// The items of a comma-separated list, without the spaces and tabs around them.
private struct Tokens: Sequence, IteratorProtocol {
    private var rest: Slice<UnsafeBufferPointer<UInt8>>

    init(_ value: UnsafeBufferPointer<UInt8>) { rest = value[...] }

    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        guard !rest.isEmpty else { return nil }
        let comma = rest.firstIndex(of: UInt8(ascii: ",")) ?? rest.endIndex
        let token = rest[rest.startIndex..<comma]
        rest = comma < rest.endIndex ? rest[(comma + 1)...] : rest[rest.endIndex...]
        return ASCII.trimmingSpacesAndTabs(token)
    }
}
