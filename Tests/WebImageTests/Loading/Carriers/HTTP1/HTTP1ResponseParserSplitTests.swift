import NIOCore
import Testing
@testable import WebImage

/// The parser keeps an incomplete line between reads and resumes its search where it stopped; a
/// server decides where its segments end. Property: however the bytes are split, the parser
/// reads the same responses and fails with the same error — for valid responses of every framing
/// and for the same bytes damaged at random.
@Suite("HTTP/1.1 response parser, split anywhere", .onOwnThreads)
struct HTTP1ResponseParserSplitTests {
    /// One response's wire form, the request it answers (`true`: a HEAD), and its body.
    private struct Exchange {
        var wire: [UInt8]
        var isHEAD: Bool
        var body: [UInt8]
    }

    @Test("600 seeded responses, valid and damaged: the same events and the same error whole and in random pieces")
    func splitInvariance() throws {
        var random = SplitMix64(seed: 0x5EED_0F_1E55)
        var damagedErrors = 0
        for round in 0..<600 {
            let exchanges = (0..<Int.random(in: 1...3, using: &random)).map { _ in exchange(using: &random) }
            var wire = exchanges.flatMap(\.wire)
            let damaged = round % 2 == 1
            if damaged { damage(&wire, using: &random) }
            let requests = exchanges.map(\.isHEAD)
            let whole = read(wire, pieces: [wire.count], requests: requests)
            let pieces = splits(of: wire.count, using: &random)
            #expect(read(wire, pieces: pieces, requests: requests) == whole, "round \(round), pieces \(pieces)")
            if damaged {
                if whole.error != nil { damagedErrors += 1 }
            } else {
                #expect(whole.error == nil, "round \(round): \(String(decoding: wire, as: UTF8.self))")
                #expect(whole.bodies == exchanges.map { $0.isHEAD ? [] : $0.body }, "round \(round)")
            }
        }
        // The damage is real: most damaged rounds fail (a flipped body byte is still a valid response).
        #expect(damagedErrors > 100)
    }

    /// What a read came to: a line per event (bodies joined per response) and the error, if any.
    private struct Outcome: Equatable {
        var events: [String] = []
        var bodies: [[UInt8]] = []
        var error: HTTP1ResponseParser.ParseError?
    }

    private func read(_ wire: [UInt8], pieces: [Int], requests: [Bool]) -> Outcome {
        var parser = HTTP1ResponseParser()
        for isHEAD in requests { parser.requestWritten(isHEAD: isHEAD) }
        var events: [HTTP1ResponseParser.Event] = []
        var outcome = Outcome()
        var start = 0
        do throws(HTTP1ResponseParser.ParseError) {
            for length in pieces {
                try parser.parse(ByteBuffer(bytes: wire[start..<start + length]), into: &events)
                start += length
            }
            try parser.finish(into: &events)
        } catch {
            outcome.error = error
        }
        for event in events {
            switch event {
            case .head(let head):
                let fields = head.fields.map { "\($0.name.canonicalName)=\($0.value)" }.joined(separator: ";")
                outcome.events.append("head \(head.status) \(head.keepAlive) \(fields)")
                outcome.bodies.append([])
            case .body(let buffer): outcome.bodies[outcome.bodies.count - 1] += buffer.readableBytesView
            case .end: outcome.events.append("end")
            }
        }
        return outcome
    }

    /// Piece lengths that add up to `count`: one to a dozen cuts, single bytes among them.
    private func splits(of count: Int, using random: inout SplitMix64) -> [Int] {
        guard count > 1 else { return [count] }
        var cuts = Set((0..<Int.random(in: 1...12, using: &random)).map { _ in Int.random(in: 1..<count, using: &random) })
        if Bool.random(using: &random) { cuts.insert(count - 1) }
        let ends = cuts.sorted() + [count]
        return zip([0] + ends, ends).map { $1 - $0 }.filter { $0 > 0 }
    }

    private func exchange(using random: inout SplitMix64) -> Exchange {
        let crlf = Bool.random(using: &random) ? "\r\n" : "\n"
        let isHEAD = Int.random(in: 0..<6, using: &random) == 0
        let status = [200, 200, 200, 404, 304, 204].randomElement(using: &random)!
        let body = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        var head = ""
        if Int.random(in: 0..<5, using: &random) == 0 { head += "HTTP/1.1 100 Continue\(crlf)\(crlf)" }
        head += "HTTP/1.1 \(status) Reason Phrase\(crlf)"
        let spaces = ["", " ", "  ", "\t", " \t "]
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            let name = ["X-Thing", "content-TYPE", "ETag", "Cache-Control", "Vary"].randomElement(using: &random)!
            head += "\(name):\(spaces.randomElement(using: &random)!)value \(Int.random(in: 0...99, using: &random))"
            head += "\(spaces.randomElement(using: &random)!)\(crlf)"
        }
        let hasBody = !isHEAD && status != 304 && status != 204
        var wire: [UInt8]
        if Bool.random(using: &random) {
            head += "Content-Length: \(body.count)\(crlf)\(crlf)"
            wire = Array(head.utf8) + (hasBody ? body : [])
        } else {
            head += "Transfer-Encoding: chunked\(crlf)\(crlf)"
            wire = Array(head.utf8)
            if hasBody {
                var rest = body[...]
                while !rest.isEmpty {
                    let size = min(rest.count, Int.random(in: 1...120, using: &random))
                    let extensions = Bool.random(using: &random) ? ";name=value" : ""
                    wire += Array("\(String(size, radix: 16, uppercase: Bool.random(using: &random)))\(extensions)\(crlf)".utf8)
                    wire += rest.prefix(size)
                    wire += Array("\r\n".utf8)  // a chunk's data ends with CRLF exactly, whatever the lines use
                    rest = rest.dropFirst(size)
                }
                let trailer = Bool.random(using: &random) ? "X-Trailer: 1\(crlf)" : ""
                wire += Array("0\(crlf)\(trailer)\(crlf)".utf8)
            }
        }
        return Exchange(wire: wire, isHEAD: isHEAD, body: hasBody ? body : [])
    }

    /// One to three bytes replaced, removed or added, or one of the framing bytes a server could
    /// get wrong: a CR, an LF, a colon, a digit.
    private func damage(_ wire: inout [UInt8], using random: inout SplitMix64) {
        for _ in 0..<Int.random(in: 1...3, using: &random) where !wire.isEmpty {
            let at = Int.random(in: 0..<wire.count, using: &random)
            let byte = [UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ":"), UInt8(ascii: "9"), UInt8(ascii: " "),
                        UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
            switch Int.random(in: 0..<3, using: &random) {
            case 0: wire[at] = byte
            case 1: wire.remove(at: at)
            default: wire.insert(byte, at: at)
            }
        }
    }
}
