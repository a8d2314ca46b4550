import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import WebImage

/// The lean client's own response parser against llhttp (SwiftNIO's `HTTPResponseDecoder`) on
/// thousands of generated responses, mutated where framing lives. Where both read a response they
/// read the same one: status, fields, body and where it ends. Where only ours reads it, the
/// response uses one of the parser's documented allowances — a lone LF as a line end (RFC 9112
/// §2.2), a Content-Length repeated with the same value (RFC 9110 §8.6), a control or non-ASCII byte
/// in a field value (read as a space, RFC 9110 §5.5), a later HTTP/1 minor version (RFC 9110 §2.5)
/// — which llhttp's strict mode refuses;
/// anything else is a disagreement.
@Suite("HTTP/1.1 response parser against llhttp: a differential fuzz", .onOwnThreads)
struct HTTP1ParserDifferentialTests {
    /// The response to the one request written, as a reader made it out.
    enum Reading: Equatable {
        /// A whole response: its status, its fields as read (lowercased names, in order) and its body.
        case response(status: Int, fields: [String], body: [UInt8])
        /// Refused, or cut short before its end.
        case refused
        /// An informational or upgrade status: not compared (the readers hand them on differently).
        case informational
    }

    @Test("10,000 mutated responses: what both read, they read alike; what only ours reads uses a documented allowance")
    func agreesWithLLHTTP() throws {
        var random = SplitMix64(seed: 0x5EB1_4A6E)
        var (bothRead, onlyLLHTTP, allowed) = (0, 0, 0)
        var disagreements: [String] = []
        for _ in 0..<10_000 {
            let wire = Self.mutated(Self.bases[random.below(Self.bases.count)], &random)
            let ours = Self.ours(wire)
            let llhttp = try Self.llhttp(wire)
            switch (ours, llhttp) {
            case (.informational, _), (_, .informational), (.refused, .refused): continue
            case (.refused, .response): onlyLLHTTP += 1
            case (.response, .response):
                bothRead += 1
                if ours != llhttp { disagreements.append("\(Self.escaped(wire))\n  ours:   \(ours)\n  llhttp: \(llhttp)") }
            case (.response, .refused):
                if Self.usesAnAllowance(wire) { allowed += 1 } else {
                    disagreements.append("\(Self.escaped(wire))\n  ours:   \(ours)\n  llhttp: refused")
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count):\n\(disagreements.prefix(5).joined(separator: "\n"))")
        // Enough of the cases must be read at all for the comparison to mean something.
        #expect(bothRead > 1_500, "both read \(bothRead), only llhttp \(onlyLLHTTP), only ours by an allowance \(allowed)")
    }

    /// Whether `wire` has a lone LF, a repeated Content-Length, a control or non-ASCII byte outside
    /// the line ends, or a version after HTTP/1.1 — what the parser reads and llhttp's strict mode refuses.
    static func usesAnAllowance(_ wire: [UInt8]) -> Bool {
        if wire.count > 7, wire.starts(with: Array("HTTP/1.".utf8)), (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(wire[7]) { return true }
        for (index, byte) in wire.enumerated() {
            if byte == UInt8(ascii: "\n"), index == 0 || wire[index - 1] != UInt8(ascii: "\r") { return true }
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") { continue }
            if byte < 0x20 || byte >= 0x7F { return true }
        }
        let text = String(decoding: wire, as: UTF8.self).lowercased()
        return text.components(separatedBy: "content-length").count > 2 || text.contains("content-length: 5, 5")
    }

    // MARK: The two readers

    /// Our parser, for one GET, the connection then closed cleanly.
    static func ours(_ wire: [UInt8]) -> Reading {
        var parser = HTTP1ResponseParser()
        parser.requestWritten(isHEAD: false)
        var events: [HTTP1ResponseParser.Event] = []
        // Bytes past the first response are a response to no request: refused after it, which is
        // not the first response's business.
        do throws(HTTP1ResponseParser.ParseError) {
            try parser.parse(ByteBuffer(bytes: wire), into: &events)
            try parser.finish(into: &events)
        } catch {}
        return first(events.map { event -> Part in
            switch event {
            case .head(let head): .head(head.status, head.fields.map { "\($0.name.canonicalName): \($0.value)" })
            case .body(let buffer): .body(Array(buffer.readableBytesView))
            case .end: .end
            }
        })
    }

    /// NIO's decoder (llhttp) behind its request encoder, which tells it the request's method.
    static func llhttp(_ wire: [UInt8]) throws -> Reading {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHTTPClientHandlers()
        try channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        try channel.writeOutbound(HTTPClientRequestPart.end(nil))
        var parts: [Part] = []
        func drain() {
            while let part = try? channel.readInbound(as: HTTPClientResponsePart.self) {
                switch part {
                case .head(let head):
                    parts.append(.head(Int(head.status.code), head.headers.map {
                        "\($0.name.lowercased()): \($0.value.trimmingCharacters(in: [" ", "\t"]))"
                    }))
                case .body(let buffer): parts.append(.body(Array(buffer.readableBytesView)))
                case .end: parts.append(.end)
                }
            }
        }
        _ = try? channel.writeInbound(ByteBuffer(bytes: wire))
        drain()
        _ = try? channel.finish(acceptAlreadyClosed: true)  // the close: a body read to the end ends here
        drain()
        return first(parts)
    }

    enum Part {
        case head(Int, [String])
        case body([UInt8])
        case end
    }

    /// The first response the parts make, whole.
    static func first(_ parts: [Part]) -> Reading {
        guard case .head(let status, let fields)? = parts.first else { return .refused }
        if status < 200 { return .informational }
        var body: [UInt8] = []
        for part in parts.dropFirst() {
            switch part {
            case .head: return .refused
            case .body(let bytes): body += bytes
            case .end: return .response(status: status, fields: fields, body: body)
            }
        }
        return .refused
    }

    // MARK: Generated responses

    static let bases: [[UInt8]] = [
        "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nhel\r\n2\r\nlo\r\n0\r\nX-Trailer: t\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\nhello",
        "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
        "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\nContent-Length: 9\r\n\r\n",
        "HTTP/1.1 301 Moved\r\nLocation: /b.png\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi",
        "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 1\r\n\r\nx",
    ].map { Array($0.utf8) }

    /// Bytes that matter to framing, and lines that fight over it.
    static let bytes: [UInt8] = Array(" \t\r\n:;,0159aFx-+\"".utf8) + [0, 0x7F, 0x80, 0xFF]
    static let lines: [String] = [
        "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked", "Transfer-Encoding: chunked, gzip",
        "Transfer-Encoding: identity", "Content-Length: 3", "Content-Length: 5, 5", "Content-Length: +5",
        "Content-Length: 0x5", " Content-Length: 5", "Content-Length : 5", "Content-Length:5", "X-Fold: a\r\n b",
        "Connection: close", "Connection: keep-alive", "Connection: upgrade", "Location: /elsewhere", "X-Empty:",
    ]

    static func mutated(_ base: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var wire = base
        for _ in 0..<(1 + random.below(3)) {
            let at = random.below(wire.count + 1)
            switch random.below(6) {
            case 0 where at < wire.count: wire[at] = bytes[random.below(bytes.count)]
            case 1: wire.insert(bytes[random.below(bytes.count)], at: at)
            case 2 where at < wire.count: wire.remove(at: at)
            case 3:
                // A field line, after the status line.
                guard let lineEnd = wire.firstIndex(of: UInt8(ascii: "\n")) else { break }
                wire.insert(contentsOf: Array((lines[random.below(lines.count)] + "\r\n").utf8), at: lineEnd + 1)
            case 4: wire = Array(wire.prefix(at))
            default:
                // A stretch of the response repeated (a second line, chunk or response).
                let from = random.below(wire.count), length = random.below(24)
                wire.insert(contentsOf: wire[from..<min(wire.count, from + length)], at: at)
            }
        }
        return wire
    }

    static func escaped(_ wire: [UInt8]) -> String {
        wire.map { byte in
            switch byte {
            case UInt8(ascii: "\r"): "\\r"
            case UInt8(ascii: "\n"): "\\n"
            case 0x20..<0x7F: String(UnicodeScalar(byte))
            default: "\\x" + String(byte, radix: 16)
            }
        }.joined()
    }
}

private extension RandomNumberGenerator {
    /// A number in `0..<bound` (0 for an empty range).
    mutating func below(_ bound: Int) -> Int { bound > 0 ? Int.random(in: 0..<bound, using: &self) : 0 }
}
