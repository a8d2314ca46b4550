#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HTTPTypes
import NIOCore
import Synchronization

/// Reads HTTP/1.1 responses off a connection's bytes for the bulk lanes: the head straight into
/// `HTTPFields`, the body as slices of the bytes read (no copy), framed by RFC 9112 §6.3.
///
/// NIO's decoder builds `HTTPHeaders` of `String`s through llhttp's callbacks, and the lane then
/// converted them to `HTTPFields`: together about a fifth of the lane's own instructions per image
/// (BENCHMARKS.md, "Bulk download"). Hostile servers are the normal case, so it is strict where
/// framing is at stake — a `Content-Length` beside `Transfer-Encoding`, two different lengths, a
/// folded line, a bad chunk size: all errors — and bounded: a head (or trailer) of more than
/// ``maximumHeadSize`` bytes is refused as NIO's decoder refuses it.
struct HTTP1ResponseParser {
    /// A response head: what the lane checks before it wants the body.
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
        case unexpectedSwitchingProtocols
        case responseWithoutRequest
        case truncated

        var description: String {
            switch self {
            case .malformedStatusLine: "malformed status line"
            case .malformedField: "malformed header field"
            case .headTooLarge: "response head larger than \(HTTP1ResponseParser.maximumHeadSize) bytes"
            case .invalidContentLength: "invalid Content-Length"
            case .conflictingFraming: "conflicting Content-Length and Transfer-Encoding"
            case .malformedChunk: "malformed chunked body"
            case .unexpectedSwitchingProtocols: "unrequested protocol switch (101)"
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
    /// Bytes of a head, chunk line or trailer not yet complete, kept for the next read.
    private var pending: ByteBuffer?
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
        if var kept = pending.take() {
            kept.writeImmutableBuffer(incoming)
            buffer = kept
        }
        while buffer.readableBytes > 0 {
            switch state {
            case .head:
                // RFC 9112 §2.2: blank lines before a status line are read past.
                if let first = buffer.readableBytesView.first, first == UInt8(ascii: "\r") || first == UInt8(ascii: "\n") {
                    buffer.moveReaderIndex(forwardBy: 1)
                    continue
                }
                guard let head = try readHead(&buffer) else { return keep(buffer) }
                guard let framing = try start(head, into: &events) else { continue }
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
                guard let line = try Self.readLine(&buffer, limit: 1024, error: .malformedChunk) else { return keep(buffer) }
                let size = try Self.chunkSize(line)
                state = size == 0 ? .trailers(seen: 0) : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let slice = buffer.readSlice(length: min(remaining, buffer.readableBytes))!
                events.append(.body(slice))
                state = remaining == slice.readableBytes ? .chunkDataEnd : .chunkData(remaining: remaining - slice.readableBytes)
            case .chunkDataEnd:
                guard let line = try Self.readLine(&buffer, limit: 2, error: .malformedChunk) else { return keep(buffer) }
                guard line.isEmpty else { throw .malformedChunk }
                state = .chunkSize
            case .trailers(let seen):
                // Trailer fields are read past, not kept: nothing downstream asks for them.
                let before = buffer.readableBytes
                guard let line = try Self.readLine(&buffer, limit: Self.maximumHeadSize - seen, error: .headTooLarge) else {
                    return keep(buffer)
                }
                if line.isEmpty {
                    events.append(.end)
                    state = .head
                } else {
                    state = .trailers(seen: seen + before - buffer.readableBytes)
                }
            case .untilClose:
                events.append(.body(buffer.readSlice(length: buffer.readableBytes)!))
            }
        }
    }

    /// The connection closed: a body that runs until the close ends here; anything else half
    /// read is ``ParseError/truncated``.
    mutating func finish(into events: inout [Event]) throws(ParseError) {
        defer { state = .head }
        switch state {
        case .untilClose: events.append(.end)
        case .head where pending == nil: return
        default: throw .truncated
        }
    }

    private mutating func keep(_ buffer: ByteBuffer) {
        pending = buffer
    }

    // MARK: Head

    /// Matches a complete head to the request it answers and hands it on; nil for an
    /// informational (1xx) head, which is read past as AsyncHTTPClient does.
    private mutating func start(_ parsed: ParsedHead, into events: inout [Event]) throws(ParseError) -> Framing? {
        let status = parsed.head.status
        if status == 101 { throw .unexpectedSwitchingProtocols }
        if (100..<200).contains(status) { return nil }
        guard !awaiting.isEmpty else { throw .responseWithoutRequest }
        let isHEAD = awaiting.removeFirst()
        events.append(.head(parsed.head))
        return isHEAD || status == 204 || status == 304 ? Framing.none : parsed.framing
    }

    /// The head at the front of `buffer`, consumed; nil while its blank line has not arrived.
    private func readHead(_ buffer: inout ByteBuffer) throws(ParseError) -> ParsedHead? {
        let result = buffer.withUnsafeReadableBytes { bytes -> Result<(ParsedHead, Int)?, ParseError> in
            guard let end = Self.headEnd(in: bytes) else {
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
    private static func headEnd(in bytes: UnsafeRawBufferPointer) -> Int? {
        var from = 0
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
        for byte in line {
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard digits > 0 else { throw .malformedChunk }
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

    /// The line at the front of `buffer` without its line ending, consumed; nil while its end has
    /// not arrived. A line longer than `limit` bytes is `error`. Copied: chunk lines and trailers
    /// are short and rare.
    private static func readLine(_ buffer: inout ByteBuffer, limit: Int, error: ParseError) throws(ParseError) -> [UInt8]? {
        let view = buffer.readableBytesView
        guard let lf = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > limit { throw error }
            return nil
        }
        let length = lf - view.startIndex
        let end = length > 0 && view[lf - 1] == UInt8(ascii: "\r") ? length - 1 : length
        guard end <= limit else { throw error }
        let line = buffer.readBytes(length: end)!
        buffer.moveReaderIndex(forwardBy: length + 1 - end)
        return line
    }
}

extension Mutex where Value == HTTP1ResponseParser {
    /// Parses `buffer` and hands each event to `handle` outside the lock: handling one may close
    /// the channel, which reaches ``finish(handing:)`` at once. Returns the parse error, if any,
    /// after the events before it.
    func parse(_ buffer: ByteBuffer, handing handle: (HTTP1ResponseParser.Event) -> Void) -> HTTP1ResponseParser.ParseError? {
        var events: [HTTP1ResponseParser.Event] = []
        let failure = withLock { parser -> HTTP1ResponseParser.ParseError? in
            do throws(HTTP1ResponseParser.ParseError) { try parser.parse(buffer, into: &events) } catch { return error }
            return nil
        }
        events.forEach(handle)
        return failure
    }

    /// The connection closed: as ``parse(_:handing:)``, for what the close completes.
    func finish(handing handle: (HTTP1ResponseParser.Event) -> Void) -> HTTP1ResponseParser.ParseError? {
        var events: [HTTP1ResponseParser.Event] = []
        let failure = withLock { parser -> HTTP1ResponseParser.ParseError? in
            do throws(HTTP1ResponseParser.ParseError) { try parser.finish(into: &events) } catch { return error }
            return nil
        }
        events.forEach(handle)
        return failure
    }

    /// See ``HTTP1ResponseParser/requestWritten(isHEAD:)``.
    func requestWritten(_ request: DownloadRequest) {
        withLock { $0.requestWritten(isHEAD: request.method == .head) }
    }
}
