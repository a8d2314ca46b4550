#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HTTPTypes
import NIOCore
import Synchronization

/// Reads HTTP/1.1 responses off a connection's bytes for the lean client: the head straight into
/// `HTTPFields` (NIO's decoder builds `HTTPHeaders` of `String`s to convert after), the body as
/// slices of the bytes read, framed by RFC 9112 §6.3. Hostile servers are the normal case, so it
/// is as strict as NIO's llhttp where framing is at stake — a `Content-Length` beside `Transfer-Encoding`, two
/// lengths, a folded line, a bare CR, a bad chunk: all errors — and bounded: a head (or trailer
/// section) of more than ``maximumHeadSize`` bytes is refused, and bytes of an incomplete line are
/// searched once, not again with every read. A lone LF ends a line as CRLF does (RFC 9112 §2.2
/// lets a recipient accept it).
struct HTTP1ResponseParser {
    /// A response head: what the client checks before it wants the body.
    struct Head: Sendable {
        var status: Int
        var fields: HTTPFields
        /// Whether the connection can carry the next request after this response.
        var keepAlive: Bool
    }

    enum Event {
        case head(Head)
        case body(ByteBuffer)
        case end
    }

    /// What makes a response unreadable; ``truncated`` is the connection closing mid-response.
    enum ParseError: Error, Equatable, CustomStringConvertible {
        case malformedStatusLine
        case malformedField
        case headTooLarge
        case invalidContentLength
        case conflictingFraming
        case malformedChunk
        case responseWithoutRequest
        case truncated

        var description: String {
            switch self {
            case .malformedStatusLine: "malformed status line"
            case .malformedField: "malformed header or trailer field"
            case .headTooLarge: "response head or trailers larger than \(HTTP1ResponseParser.maximumHeadSize) bytes"
            case .invalidContentLength: "invalid Content-Length"
            case .conflictingFraming: "conflicting Content-Length and Transfer-Encoding"
            case .malformedChunk: "malformed chunked body"
            case .responseWithoutRequest: "a response to no request"
            case .truncated: "the connection closed before the response was complete"
            }
        }
    }

    /// NIO's default limit for a head, kept for the same servers.
    static let maximumHeadSize = 80 * 1024

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(seen: Int)
        case untilClose
    }

    enum Framing {
        case none, length(Int), chunked, untilClose
    }

    private var state = State.head
    /// The unread bytes of a head, chunk line or trailer not yet complete, and how many of them
    /// were searched for its end already.
    private var pending: (bytes: ByteBuffer, searched: Int)?
    /// The requests written and not yet answered, oldest first: `true` for a `HEAD`.
    private var awaiting: [Bool] = []

    /// Records a request written on the connection; its answer is read in turn.
    mutating func requestWritten(isHEAD: Bool) {
        awaiting.append(isHEAD)
    }

    /// Reads `incoming`, appending what it completes to `events`; an incomplete head or line waits
    /// for the next bytes.
    mutating func parse(_ incoming: ByteBuffer, into events: inout [Event]) throws(ParseError) {
        var buffer = incoming
        var searched = 0
        if let (kept, done) = pending.take() {
            buffer = kept
            buffer.writeImmutableBuffer(incoming)
            searched = done
        }
        while buffer.readableBytes > 0 {
            let before = buffer.readableBytes
            switch state {
            case .head:
                // RFC 9112 §2.2: blank lines before a status line are read past; anything else
                // with no request outstanding is refused at once, not left for the next request.
                if let first = buffer.readableBytesView.first, first == UInt8(ascii: "\r") || first == UInt8(ascii: "\n") {
                    buffer.moveReaderIndex(forwardBy: 1)
                    searched = 0
                    continue
                }
                guard !awaiting.isEmpty else { throw .responseWithoutRequest }
                guard let head = try readHead(&buffer, searched: searched) else { return keep(buffer) }
                guard let framing = start(head, into: &events) else { break }
                switch framing {
                case .none, .length(0): events.append(.end)
                case .length(let length): state = .fixed(remaining: length)
                case .chunked: state = .chunkSize
                case .untilClose: state = .untilClose
                }
            case .fixed(let remaining):
                let slice = buffer.readSlice(length: min(remaining, buffer.readableBytes))!
                events.append(.body(slice))
                if remaining == slice.readableBytes {
                    events.append(.end)
                    state = .head
                } else {
                    state = .fixed(remaining: remaining - slice.readableBytes)
                }
            case .chunkSize:
                guard let line = try Self.readLine(&buffer, searched: searched, limit: 1024, tooLong: .malformedChunk, malformed: .malformedChunk)
                else { return keep(buffer) }
                let size = try Self.chunkSize(line)
                state = size == 0 ? .trailers(seen: 0) : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let slice = buffer.readSlice(length: min(remaining, buffer.readableBytes))!
                events.append(.body(slice))
                state = remaining == slice.readableBytes ? .chunkDataEnd : .chunkData(remaining: remaining - slice.readableBytes)
            case .chunkDataEnd:
                // CRLF exactly, not a lone LF: "5\r\nabcd\r\n" would otherwise read as five bytes with a
                // CR in them, where llhttp refuses it.
                guard buffer.readableBytes >= 2 else { return keep(buffer) }
                guard buffer.readInteger(as: UInt16.self) == 0x0D0A else { throw .malformedChunk }
                state = .chunkSize
            case .trailers(let seen):
                // Trailer fields are checked as fields and read past, not kept: nothing downstream asks for them.
                guard let line = try Self.readLine(
                    &buffer, searched: searched, limit: Self.maximumHeadSize - seen, tooLong: .headTooLarge, malformed: .malformedField)
                else { return keep(buffer) }
                if !line.isEmpty { _ = try line.withUnsafeBufferPointer { bytes throws(ParseError) in try Self.parseField(bytes, 0..<bytes.count) } }
                if line.isEmpty {
                    events.append(.end)
                    state = .head
                } else {
                    state = .trailers(seen: seen + before - buffer.readableBytes)
                }
            case .untilClose:
                events.append(.body(buffer.readSlice(length: buffer.readableBytes)!))
            }
            // Something was read: what is left starts a new search.
            if buffer.readableBytes != before { searched = 0 }
        }
    }

    /// The connection closed: a body that runs until the close ends here; anything else half
    /// read is ``ParseError/truncated``. Only for a clean close: after a reset or an unclean TLS
    /// shutdown, such a body may be cut short, and the connection's error is the answer.
    mutating func finish(into events: inout [Event]) throws(ParseError) {
        defer { state = .head }
        switch state {
        case .untilClose: events.append(.end)
        case .head where pending == nil: return
        default: throw .truncated
        }
    }

    /// Keeps the unread bytes (not the storage's read ones: those would pile up with every read).
    private mutating func keep(_ buffer: ByteBuffer) {
        pending = (buffer.slice(), buffer.readableBytes)
    }

    // MARK: Head

    /// Matches a complete head to the request it answers and hands it on, with the framing its
    /// body has; nil for an informational (1xx) head, which is read past as AsyncHTTPClient does.
    private mutating func start(_ parsed: ParsedHead, into events: inout [Event]) -> Framing? {
        var head = parsed.head
        // 101: a protocol switch nobody asked for. Its head goes on (its status fails the load);
        // what follows is not HTTP, so the connection goes too.
        if (100..<200).contains(head.status), head.status != 101 { return nil }
        let isHEAD = awaiting.removeFirst()
        var framing = parsed.framing
        if isHEAD || head.status == 204 || head.status == 304 { framing = .none }
        if head.status == 101 { framing = .none; head.keepAlive = false }
        if case .untilClose = framing { head.keepAlive = false }
        events.append(.head(head))
        return framing
    }

    /// The head at the front of `buffer`, consumed; nil while its blank line has not arrived
    /// (`searched` bytes of it were searched before).
    private func readHead(_ buffer: inout ByteBuffer, searched: Int) throws(ParseError) -> ParsedHead? {
        let result = buffer.withUnsafeReadableBytes { bytes -> Result<(ParsedHead, Int)?, ParseError> in
            // The blank line's LF may follow an LF (and CR) found at the end of the last search.
            guard let end = Self.headEnd(in: bytes, from: max(0, searched - 2)) else {
                return bytes.count > Self.maximumHeadSize ? .failure(.headTooLarge) : .success(nil)
            }
            guard end <= Self.maximumHeadSize else { return .failure(.headTooLarge) }
            let head = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: end)
            return Result { () throws(ParseError) in (try Self.parseHead(head), end) }
        }
        guard let (head, length) = try result.get() else { return nil }
        buffer.moveReaderIndex(forwardBy: length)
        return head
    }

    /// The length of the head at the front of `bytes` (through its blank line), or nil.
    private static func headEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var from = start
        while let lf = index(of: UInt8(ascii: "\n"), in: bytes, from: from) {
            if lf + 1 < bytes.count, bytes[lf + 1] == UInt8(ascii: "\n") { return lf + 2 }
            if lf + 2 < bytes.count, bytes[lf + 1] == UInt8(ascii: "\r"), bytes[lf + 2] == UInt8(ascii: "\n") { return lf + 3 }
            if lf > maximumHeadSize { return nil }
            from = lf + 1
        }
        return nil
    }

    static func index(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress,
              let found = memchr(base + start, Int32(byte), bytes.count - start)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// A chunk-size line: hex digits, then optional extensions after `;` (ignored).
    private static func chunkSize(_ line: [UInt8]) throws(ParseError) -> Int {
        var size = 0
        var digits = 0
        for (index, byte) in line.enumerated() {
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            case UInt8(ascii: ";"):
                guard digits > 0, extensionsAreWellFormed(line[index...]) else { throw .malformedChunk }
                return size
            default: throw .malformedChunk
            }
            digits += 1
            // 15 hex digits stay below Int.max; no image is that large anyway.
            guard digits <= 15 else { throw .malformedChunk }
            size = size * 16 + value
        }
        guard digits > 0 else { throw .malformedChunk }
        return size
    }

    /// `;name=value;name="quoted"…`: tokens and quoted strings only, as llhttp checks them (a
    /// lenient reader and a strict one must not read one chunk line two ways).
    private static func extensionsAreWellFormed(_ bytes: ArraySlice<UInt8>) -> Bool {
        var (quoted, escaped) = (false, false)
        for byte in bytes {
            if escaped {
                escaped = false
            } else if quoted {
                if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { quoted = false }
                else if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F { return false }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            } else if !(isTokenByte(byte) || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "=")) {
                return false
            }
        }
        return !quoted && !escaped
    }

    /// The line at the front of `buffer` without its line ending, consumed; nil while its end has
    /// not arrived (`searched` bytes were searched before). A line longer than `limit` bytes is
    /// `tooLong`, one with a CR inside `malformed`. Copied: chunk lines and trailers are short and rare.
    private static func readLine(
        _ buffer: inout ByteBuffer, searched: Int, limit: Int, tooLong: ParseError, malformed: ParseError
    ) throws(ParseError) -> [UInt8]? {
        let found = buffer.withUnsafeReadableBytes { index(of: UInt8(ascii: "\n"), in: $0, from: searched) }
        guard let lf = found else {
            if buffer.readableBytes > limit { throw tooLong }
            return nil
        }
        var line = buffer.readBytes(length: lf)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        guard line.count <= limit else { throw tooLong }
        guard !line.contains(UInt8(ascii: "\r")) else { throw malformed }
        return line
    }
}

extension Mutex where Value == HTTP1ResponseParser {
    /// Parses `buffer`: the events it completes and the error it ends with, for the caller to
    /// hand on outside the lock — handling an event may close the channel, which comes back to
    /// the parser at once.
    func parse(_ buffer: ByteBuffer) -> (events: [HTTP1ResponseParser.Event], failure: HTTP1ResponseParser.ParseError?) {
        run { parser, events throws(HTTP1ResponseParser.ParseError) in try parser.parse(buffer, into: &events) }
    }

    /// The connection closed: what the close completes, and the error it makes of a response
    /// half read. No events when the connection `failed` (a reset, an unclean TLS shutdown): a
    /// body that runs until the close may be cut short, and the connection's error is the answer.
    func close(failed: Bool) -> (events: [HTTP1ResponseParser.Event], failure: HTTP1ResponseParser.ParseError?) {
        let (events, failure) = run { parser, events throws(HTTP1ResponseParser.ParseError) in try parser.finish(into: &events) }
        return (failed ? [] : events, failure)
    }

    private func run(
        _ step: (inout HTTP1ResponseParser, inout [HTTP1ResponseParser.Event]) throws(HTTP1ResponseParser.ParseError) -> Void
    ) -> (events: [HTTP1ResponseParser.Event], failure: HTTP1ResponseParser.ParseError?) {
        withLock { parser in
            var events: [HTTP1ResponseParser.Event] = []
            // A read usually completes a head, a body part and the end: one allocation, not three.
            events.reserveCapacity(3)
            do throws(HTTP1ResponseParser.ParseError) { try step(&parser, &events) } catch { return (events, error) }
            return (events, nil)
        }
    }

    /// See ``HTTP1ResponseParser/requestWritten(isHEAD:)``.
    func requestWritten(_ request: DownloadRequest) {
        withLock { $0.requestWritten(isHEAD: request.method == .head) }
    }
}
