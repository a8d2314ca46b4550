import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import WebImage

// The lean client's HTTP1ResponseParser against SwiftNIO's llhttp-based HTTPResponseDecoder (NIO built by
// Fuzz/Packages, uninstrumented) on the same bytes: the answers to N pipelined GETs (N = the input's count of
// "HTTP/", 1...4), then the close.
//
// Comparison rule, per response in order, up to and including the first one the lean parser marks not
// keep-alive, or 101 (the client reads nothing after those on that connection):
// - A response the lean parser completes, llhttp completes too, with the same status, the same body bytes and
//   the same end: one byte offset, found exactly (the lean end by bisecting prefixes, llhttp's by cutting its
//   input at that byte and the one before), or both at the close. It is not keep-alive where llhttp says close
//   (closing where llhttp would not is safe).
// - Unless llhttp refused a byte before that end: the lean parser is then more lenient, a finding too unless
//   the byte is one of its documented leniencies (`lenientAccept`): a lone LF as a line end (after chunk data
//   too), HTTP/1.2–1.9, a Content-Length repeated with the same value (a list, a trailing comma), whitespace
//   or anything after a chunk size, unparsed trailer lines, a control byte in a field value (HTTPField makes it
//   a space), bytes after a 1xx that said close.
// - Where both read a head, the statuses agree, and the body bytes both delivered agree on their common prefix.
// - The lean parser refusing what llhttp accepts (a typed ParseError, or truncated at the close) is fine: e.g. a
//   status below 100, a tab in Transfer-Encoding, a head that never ends where llhttp takes a bare CR.
// Each input is compared as it is and normalized (bare LFs made CRLF, HTTP/1.2–1.9 made 1.1), where the lone-LF
// and version leniencies cannot excuse a refusal. The lean parser alone must also read the input fed in
// pseudo-random pieces exactly as in one piece (same events, same error).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let raw = Array(UnsafeRawBufferPointer(start: start, count: count))
    let requests = min(4, max(1, occurrences(of: Array("HTTP/".utf8), in: raw)))
    compare(raw, requests: requests, lenientLines: true)
    let strict = normalized(raw)
    if strict != raw { compare(strict, requests: requests, lenientLines: false) }
    return 0
}

/// One response as a parser delivered it.
struct Response: Equatable {
    var status: Int
    var keepAlive: Bool
    var body: [UInt8] = []
    var complete = false
}

/// What a parser made of the input: responses in order, and the error it stopped at.
struct Reading {
    var responses: [Response] = []
    var error: (any Error)?
    /// llhttp only: each completed response's end offset (input count + 1: at the close), and where it failed.
    var ends: [Int] = []
    var errorOffset: Int?
    /// llhttp only: the last head it read was a 1xx (not 101), which neither parser hands on.
    var afterInterim = false
    var completed: Int { responses.count(where: \.complete) }
}

// MARK: The lean parser

func readLean(_ bytes: [UInt8], requests: Int, pieces: [Int], close: Bool) -> Reading {
    var parser = HTTP1ResponseParser()
    for _ in 0..<requests { parser.requestWritten(isHEAD: false) }
    var reading = Reading()
    var events: [HTTP1ResponseParser.Event] = []
    do throws(HTTP1ResponseParser.ParseError) {
        var from = 0
        for end in pieces + [bytes.count] where end > from {
            try parser.parse(ByteBuffer(bytes: bytes[from..<end]), into: &events)
            from = end
        }
        if close { try parser.finish(into: &events) }
    } catch {
        reading.error = error
    }
    for event in events {
        switch event {
        case .head(let head): reading.responses.append(Response(status: head.status, keepAlive: head.keepAlive))
        case .body(let buffer):
            precondition(!reading.responses.isEmpty && !reading.responses[reading.responses.count - 1].complete, "lean: body outside a response")
            reading.responses[reading.responses.count - 1].body += buffer.readableBytesView
        case .end:
            precondition(!reading.responses.isEmpty && !reading.responses[reading.responses.count - 1].complete, "lean: end outside a response")
            reading.responses[reading.responses.count - 1].complete = true
        }
    }
    return reading
}

/// The offset right after the lean parser's `k`-th response (1-based): the shortest prefix that completes it,
/// or count + 1 when only the close does.
func leanEnd(_ bytes: [UInt8], requests: Int, response k: Int) -> Int {
    var low = 1, high = bytes.count + 1
    while low < high {
        let middle = (low + high) / 2
        if readLean(Array(bytes[..<middle]), requests: requests, pieces: [], close: false).completed >= k { high = middle } else { low = middle + 1 }
    }
    return low
}

// MARK: llhttp

/// NIO's decoder fed `bytes` cut at `cuts`, then closed; each end is recorded at the cut it arrived in.
func readNIO(_ bytes: [UInt8], requests: Int, cuts: [Int]) -> Reading {
    // 1xx heads forwarded only to be seen (`afterInterim`), then dropped as the lean parser drops them.
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)))
    defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
    var reading = Reading()
    for _ in 0..<requests {
        // The decoder learns each request's method from the writes it sees.
        try! channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        try! channel.writeOutbound(HTTPClientRequestPart.end(nil))
    }
    func drain(at offset: Int) {
        while let part = try? channel.readInbound(as: HTTPClientResponsePart.self) {
            switch part {
            case .head(let head):
                let status = Int(head.status.code)
                reading.afterInterim = (100..<200).contains(status) && status != 101
                if !reading.afterInterim { reading.responses.append(Response(status: status, keepAlive: head.isKeepAlive)) }
            case .body(let buffer): reading.responses[reading.responses.count - 1].body += buffer.readableBytesView
            case .end:
                reading.responses[reading.responses.count - 1].complete = true
                reading.ends.append(offset)
            }
        }
    }
    var from = 0
    for end in cuts + [bytes.count] where end > from {
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes[from..<end]))
        } catch {
            reading.error = error
            reading.errorOffset = end
        }
        drain(at: end)
        if reading.error != nil { return reading }
        from = end
    }
    do {
        _ = try channel.finish()
    } catch {
        reading.error = error
        reading.errorOffset = bytes.count + 1
    }
    drain(at: bytes.count + 1)
    return reading
}

/// Where llhttp refuses `bytes` (the shortest prefix it fails on), for reports and the leniency check.
func nioErrorOffset(_ bytes: [UInt8], requests: Int) -> Int {
    readNIO(bytes, requests: requests, cuts: Array(1..<max(1, bytes.count))).errorOffset ?? bytes.count + 1
}

// MARK: The comparison

func compare(_ bytes: [UInt8], requests: Int, lenientLines: Bool) {
    let lean = readLean(bytes, requests: requests, pieces: [], close: true)
    checkSplits(bytes, requests: requests, against: lean)
    // The responses that count: through the first after which the client reads no more on the connection.
    var counted = lean.responses.count
    if let last = lean.responses.firstIndex(where: { !$0.keepAlive || $0.status == 101 }) { counted = last + 1 }
    var leanEnds: [Int] = []
    var cuts: [Int] = []
    for k in 0..<counted where lean.responses[k].complete {
        let end = leanEnd(bytes, requests: requests, response: k + 1)
        leanEnds.append(end)
        if end <= bytes.count { cuts += [end - 1, end] }
    }
    let nio = readNIO(bytes, requests: requests, cuts: cuts)

    func fail(_ what: String) -> Never {
        let errorAt = nio.error == nil ? "" : " (fails at byte \(nioErrorOffset(bytes, requests: requests)))"
        fatalError("""
            http1-response: \(what)
              input (\(bytes.count) bytes, \(requests) GETs): \(String(decoding: bytes, as: UTF8.self).debugDescription)
              lean:   \(lean.responses.map(describe)) ends \(leanEnds) error \(lean.error.map { "\($0)" } ?? "none")
              llhttp: \(nio.responses.map(describe)) ends \(nio.ends) error \(nio.error.map { "\($0)" } ?? "none")\(errorAt)
            """)
    }

    for k in 0..<counted {
        let ours = lean.responses[k]
        let theirs = k < nio.responses.count ? nio.responses[k] : nil
        if let theirs {
            if theirs.status != ours.status { fail("response \(k + 1): status \(ours.status), llhttp \(theirs.status)") }
            let common = min(ours.body.count, theirs.body.count)
            if ours.body[..<common] != theirs.body[..<common] { fail("response \(k + 1): the bodies differ within their first \(common) bytes") }
        }
        guard ours.complete else { continue }
        let end = leanEnds[lean.responses[..<k].count(where: \.complete)]
        if let theirs, theirs.complete {
            let theirEnd = nio.ends[nio.responses[..<k].count(where: \.complete)]
            if theirEnd != end { fail("response \(k + 1) ends at \(end), llhttp's \(end <= bytes.count ? "not at that byte" : "before the close")") }
            if theirs.body != ours.body { fail("response \(k + 1): body of \(ours.body.count) bytes, llhttp's \(theirs.body.count)") }
            // Closing where llhttp would keep the connection is safe; keeping it where llhttp closes is not.
            if ours.keepAlive, !theirs.keepAlive, ours.status != 101 { fail("response \(k + 1): keep-alive \(ours.keepAlive), llhttp \(theirs.keepAlive)") }
            continue
        }
        // llhttp did not complete it: it refused bytes before the lean end (a leniency), or it still wanted more.
        guard let errorOffset = nio.errorOffset, errorOffset <= min(end, bytes.count) else {
            fail("response \(k + 1) ends at \(end == bytes.count + 1 ? "the close" : "byte \(end)"); llhttp does not end it there")
        }
        if lenientAccept(bytes, nioFailsAt: nioErrorOffset(bytes, requests: requests), error: nio.error, afterInterim: nio.afterInterim,
                          lineEndsAndVersion: lenientLines) { return }
        fail("response \(k + 1): the lean parser accepts it, llhttp refuses it")
    }
}

/// The lean parser fed `bytes` in pseudo-random pieces (seeded by the input) reads as in one piece.
func checkSplits(_ bytes: [UInt8], requests: Int, against whole: Reading) {
    var state = UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15 | 1
    var pieces: [Int] = []
    var end = 0
    while end < bytes.count {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17  // xorshift64
        end = min(bytes.count, end + 1 + Int(state % 23))
        pieces.append(end)
    }
    let split = readLean(bytes, requests: requests, pieces: pieces, close: true)
    let sameError = (split.error as? HTTP1ResponseParser.ParseError) == (whole.error as? HTTP1ResponseParser.ParseError)
    if split.responses != whole.responses || !sameError {
        fatalError("""
            http1-response: the lean parser reads pieces \(pieces) differently
              input: \(String(decoding: bytes, as: UTF8.self).debugDescription)
              whole: \(whole.responses.map(describe)) error \(whole.error.map { "\($0)" } ?? "none")
              split: \(split.responses.map(describe)) error \(split.error.map { "\($0)" } ?? "none")
            """)
    }
}

/// The lean parser's documented leniencies; one of them must be where llhttp failed (`failure`: the shortest
/// prefix it fails on) when llhttp refused a response the lean parser completed. `lineEndsAndVersion` is off for
/// the normalized input, which has no bare LF and no HTTP/1.2–1.9.
func lenientAccept(_ bytes: [UInt8], nioFailsAt failure: Int, error: (any Error)?, afterInterim: Bool, lineEndsAndVersion: Bool) -> Bool {
    let at = failure - 1
    guard at >= 0, at < bytes.count else { return false }
    let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
    func lineStart(before index: Int) -> Int {
        var start = index
        while start > 0, bytes[start - 1] != lf { start -= 1 }
        return start
    }
    let start = lineStart(before: at)
    let line = Array(bytes[start...at])
    // llhttp wanted a CR before this LF: the lean parser takes a lone LF as a line end (RFC 9112 §2.2), after
    // chunk data too, where a CR before it may be the data's last byte.
    if bytes[at] == lf { return true }
    if lineEndsAndVersion {
        // The line before ended with a bare LF.
        if start >= 1, start == 1 || bytes[start - 2] != cr { return true }
        // HTTP/1.2–1.9, read as 1.1 (RFC 9110 §2.5).
        if at >= 7, bytes[(at - 7)..<at].elementsEqual("HTTP/1.".utf8), (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(bytes[at]) { return true }
    }
    // A Content-Length the lean parser accepted: one number, repeated in a list or another field (RFC 9110 §8.6).
    if line.map({ $0 | 0x20 }).starts(with: Array("content-length:".utf8)) { return true }
    // A chunk size followed by whitespace or `;` and anything but CR: the lean parser reads the digits, ignores the rest.
    if let end = line.firstIndex(where: { !isHex($0) }), end > 0, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ";")].contains(line[end]) { return true }
    // A trailer line (after a last chunk): the lean parser reads trailers past without parsing them.
    var previous = start
    while previous > 0 {
        let before = lineStart(before: previous - 1)
        var text = Array(bytes[before..<(previous - 1)])
        if text.last == cr { text.removeLast() }
        if text.isEmpty { break }
        let digits = text.prefix(while: isHex)
        if !digits.isEmpty, digits.allSatisfy({ $0 == UInt8(ascii: "0") }),
           digits.count == text.count || [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ";")].contains(text[digits.count]) { return true }
        previous = before
    }
    // More bytes after a 1xx head that asked to close (or HTTP/1.0 without keep-alive): the lean parser reads
    // interim responses past, and only the final response's Connection decides.
    if afterInterim, let error = error as? HTTPParserError, error == .closedConnection { return true }
    // A control byte in a field value: HTTPField makes it a space (RFC 9110 §5.5 allows that for NUL).
    if let colon = line.firstIndex(of: UInt8(ascii: ":")), colon < line.count - 1,
       bytes[at] < 0x20 && bytes[at] != UInt8(ascii: "\t") || bytes[at] == 0x7F {
        return true
    }
    return false
}

func isHex(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
}

/// `bytes` with every bare LF made CRLF and `HTTP/1.2`–`1.9` made `HTTP/1.1`: what llhttp accepts strictly.
func normalized(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count + 16)
    for (index, byte) in bytes.enumerated() {
        if byte == UInt8(ascii: "\n"), index == 0 || bytes[index - 1] != UInt8(ascii: "\r") { result.append(UInt8(ascii: "\r")) }
        result.append(byte)
        if (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(byte), result.count >= 8, result[(result.count - 8)..<(result.count - 1)].elementsEqual("HTTP/1.".utf8) {
            result[result.count - 1] = UInt8(ascii: "1")
        }
    }
    return result
}

func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
    guard bytes.count >= needle.count else { return 0 }
    return (0...(bytes.count - needle.count)).count { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
}

func describe(_ response: Response) -> String {
    "\(response.status)\(response.keepAlive ? "" : " close") body \(response.body.count)\(response.complete ? "" : " (incomplete)")"
}
