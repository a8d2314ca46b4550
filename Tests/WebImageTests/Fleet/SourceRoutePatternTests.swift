import Foundation
import Testing
@testable import WebImageServer

/// nginx routes by the key ``SourceRoutePattern`` cuts out of `$request_uri`; the server knows the
/// source by ``ThumborPath``. These specs hold the two together (the regex evaluated by ICU here;
/// NginxConfigTests runs the same text through nginx's PCRE).
@Suite("Source route pattern")
struct SourceRoutePatternTests {
    /// The key nginx gets for `target`, or nil when the image pattern does not match it.
    static func routeKey(_ target: String) throws -> String? {
        try capture(SourceRoutePattern.imagePattern, in: target)
    }

    /// The key the parser's source (as written) should get: its scheme left out, as purge keys it.
    static func expectedKey(_ target: String) -> String? {
        guard let path = try? ThumborPath(parsing: target, decodingSource: false) else { return nil }
        return try? capture(SourceRoutePattern.purgePattern, in: path.source)
    }

    static func capture(_ pattern: String, in text: String) throws -> String? {
        let regex = try NSRegularExpression(pattern: pattern)
        // The one capturing group (named for nginx); by number, as corelibs reads names unevenly.
        #expect(regex.numberOfCaptureGroups == 1)
        guard let match = regex.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)),
              match.range(at: 1).location != NSNotFound else { return nil }
        // By UTF-16 offsets: a key may start with a combining mark, inside a Character.
        return (text as NSString).substring(with: match.range(at: 1))
    }

    /// Checks `targets`; returns how many the parser took (the rest it refuses: no key is owed).
    static func expectAgreement(_ targets: [String]) throws -> Int {
        var parsed = 0
        for target in targets {
            guard let expected = expectedKey(target) else { continue }
            parsed += 1
            let key = try routeKey(target)
            #expect(key == expected, "\(target.debugDescription): nginx would route by \(key.debugDescription), the parser's source is \(expected.debugDescription)")
        }
        return parsed
    }

    @Test("every thumbor path in the specs: the regex cuts out the source the parser finds")
    func specPaths() throws {
        let paths = try ThumborPathCorpus.fromSpecs()
        #expect(paths.count >= 60, "the scan of the spec files found only \(paths.count) paths")
        let parsed = try Self.expectAgreement(paths)
        #expect(parsed >= 55, "\(parsed) of \(paths.count) parse")
    }

    @Test("5,000 generated paths: signed and unsafe, every option in and out of place, near misses, odd sources")
    func generatedPaths() throws {
        let paths = ThumborPathCorpus.generated(count: 5000, seed: 0xF1EE7)
        let parsed = try Self.expectAgreement(paths)
        #expect(parsed >= 2000, "only \(parsed) of 5,000 generated paths parse: the generator is too wild to test much")
    }

    @Test("trim's tolerance: the generated number pattern takes exactly what the parser takes, 0 to 442, up to six digits")
    func tolerances() throws {
        var targets: [String] = []
        for value in 0...1000 {
            for zeros in 0...4 { targets.append("/unsafe/trim:\(String(repeating: "0", count: zeros))\(value)/a.jpg") }
        }
        targets += ["+5", "-0", "-00", "1e2", "", "0x1"].map { "/unsafe/trim:\($0)/a.jpg" }
        #expect(try Self.expectAgreement(targets) == targets.count)
        let pattern = try NSRegularExpression(pattern: "^" + SourceRoutePattern.integerPattern(0...442) + "$")
        for value in [0, 9, 10, 99, 100, 399, 400, 439, 440, 442, 443, 449, 450, 999, 1000] {
            let text = String(value)
            #expect((pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil) == (value <= 442), "\(value)")
        }
    }

    @Test("keys: the scheme is left out, the rest of the source kept as written; other paths match nothing")
    func keys() throws {
        #expect(try Self.routeKey("/unsafe/300x200/smart/http://example.com/a.jpg?v=1") == "example.com/a.jpg?v=1")
        #expect(try Self.routeKey("/unsafe/fit-in/300x200/example.com/a.jpg?v=1") == "example.com/a.jpg?v=1")
        #expect(try Self.routeKey("/\(ThumborPathCorpus.signature)/filters:f(a(b))/HTTPS:/example.com/a.jpg") == "example.com/a.jpg")
        #expect(try Self.routeKey("/unsafe/10x10/smart%2Fx.jpg") == "smart%2Fx.jpg", "an escaped slash is no segment end")
        #expect(try Self.routeKey("/healthz") == nil)
        #expect(try Self.routeKey("/metrics") == nil)
        // Purge's url= argument gets the key its image requests get.
        #expect(try Self.capture(SourceRoutePattern.purgePattern, in: "http://example.com/a.jpg?v=1") == "example.com/a.jpg?v=1")
        #expect(try Self.capture(SourceRoutePattern.purgePattern, in: "http%3A%2F%2Fexample.com/a.jpg") == "example.com/a.jpg")
    }
}
