import Foundation

/// Request targets to hold nginx's source regex against the parser: every thumbor path written in
/// the specs (read from their source files, so a path added to any spec joins), and generated ones.
enum ThumborPathCorpus {
    /// The thumbor paths in the spec files: string literals holding `unsafe/` or a signature
    /// segment, and `harness.unsafe("OPTIONS", "/PATH")` calls; interpolations read as `8080`.
    static func fromSpecs() throws -> [String] {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        let literal = try NSRegularExpression(pattern: #""((?:[^"\\\n]|\\.)*)""#)
        let harnessCall = try NSRegularExpression(pattern: #"unsafe\("((?:[^"\\\n]|\\.)*)", "((?:[^"\\\n]|\\.)*)"\)"#)
        let signed = try NSRegularExpression(pattern: "(?:^|/)([A-Za-z0-9_=-]{27,}/.*)$")
        var paths: Set<String> = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let whole = NSRange(text.startIndex..., in: text)
            for match in harnessCall.matches(in: text, range: whole) {
                let options = unescaped(text, match.range(at: 1)), path = unescaped(text, match.range(at: 2))
                paths.insert("/unsafe/" + (options.isEmpty ? "" : options + "/") + "127.0.0.1:8080" + path)
            }
            for match in literal.matches(in: text, range: whole) {
                let value = unescaped(text, match.range(at: 1))
                if let start = value.range(of: "unsafe/") {
                    paths.insert("/" + value[start.lowerBound...])
                } else if let found = signed.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)),
                          let range = Range(found.range(at: 1), in: value) {
                    paths.insert("/" + value[range])
                }
            }
        }
        return paths.sorted()
    }

    /// A Swift literal's text as the string it makes (near enough: `\(…)` becomes `8080`).
    private static func unescaped(_ text: String, _ range: NSRange) -> String {
        var value = String(text[Range(range, in: text)!])
        value = value.replacingOccurrences(of: #"\\\([^()]*(?:\([^()]*\))?[^()]*\)"#, with: "8080", options: .regularExpression)
        value = value.replacingOccurrences(of: "ORIGIN", with: "127.0.0.1:8080")
        var result = ""
        var scalars = value.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\\", let next = scalars.popFirst() else { result.unicodeScalars.append(scalar); continue }
            switch next {
            case "u":
                let hex = scalars.dropFirst().prefix { $0 != "}" }
                scalars = scalars.dropFirst(hex.count + 2)
                if let code = UInt32(String(String.UnicodeScalarView(hex)), radix: 16), let decoded = Unicode.Scalar(code) {
                    result.unicodeScalars.append(decoded)
                }
            case "n": result += "\n"
            case "t": result += "\t"
            default: result.unicodeScalars.append(next)
            }
        }
        return result
    }

    /// `count` generated request targets, the same for one `seed`: every option in and out of its
    /// place, near misses of each (a 7-digit size, `trim:443`, `1xax2:3x4`, an Arabic digit, `Fit-in`),
    /// filters with nested parentheses and `)/` inside, sources that look like options, escaped
    /// sources, queries with slashes, combining marks after delimiters. `wire` keeps to what may
    /// stand in an HTTP request line (no spaces, controls or `#`), for the specs that send them to nginx.
    static func generated(count: Int, seed: UInt64, wire: Bool = false) -> [String] {
        var random = SplitMix64(seed: seed)
        var paths: [String] = []
        for _ in 0..<count {
            var parts: [String] = [random.pick(authorizations)]
            for slot in optionSlots where random.chance(0.45) { parts.append(random.pick(slot)) }
            if random.chance(0.1), parts.count > 2 { parts.swapAt(1, parts.count - 1) }  // out of place
            var source = random.pick(sources)
            if random.chance(0.3) { source = randomText(&random, wire: wire) + "/" + source }
            if random.chance(0.2) { source += "?" + randomText(&random, wire: wire) }
            if random.chance(0.05) { source = "" }
            paths.append("/" + (parts + [source]).joined(separator: "/"))
        }
        return paths
    }

    /// 28 characters, as an HMAC-SHA1 in URL-safe base64.
    static let signature = "ZUFiVUFQcE1LQUNmT3hEUjlIZ0="
    static let authorizations = ["unsafe", signature, signature + "x", String(signature.dropLast()), "unsafe2", "UNSAFE", "abc", "unsafe/unsafe"]
    static let optionSlots: [[String]] = [
        ["debug", "debugx"],
        ["meta", "Meta"],
        ["trim", "trim:top-left", "trim:bottom-right:10", "trim:10:top-left", "trim:442", "trim:443", "trim:000442", "trim:0000442",
         "trim:+5", "trim:-0", "trim:1:2:3", "trim:", "trim:top-right", "trim:\u{0664}2", "trim:44\u{301}"],
        ["10x20:300x400", "-10x-20:-300x-400", "1xax2:3x4", "1x2:3x4x5", "1234567x1:1x1", "123456x1:1x1", "1x2:3x", "1x2-3x4", "1x2:3x4:5x6"],
        ["fit-in", "adaptive-fit-in", "full-fit-in", "adaptive-full-fit-in", "Fit-in", "fit-inx", "fit-in\u{301}"],
        ["300x200", "-300x-0", "origx100", "x", "-x-", "300x", "x200", "300x200x1", "1234567x1", "\u{0663}x2", "300X200", "--1x1",
         "orig", "origxorig", "-origx-orig", "+1x1", "\u{212A}x1"],
        ["left", "center", "right", "Left", "leftish"],
        ["top", "middle", "bottom", "top\u{301}"],
        ["smart", "smartx"],
        ["filters:quality(80)", "filters:quality(80):format(webp)", "filters:watermark(http://x/a(1).png,1,1,1):blur(2)",
         "filters:f(a)/b)", "filters:noclose(", "filters:f()", "filters:(x)", "filters:f(x\u{600} )", "filters:fill(red):round_corner(1,2)",
         "filters:f((a)(b))", "filters:", "filters:f(a/b)/c)"],
    ]
    static let sources = [
        "example.com/a.jpg", "http://example.com/a.jpg", "https:/example.com/a.jpg", "HTTP://x/y", "https%3A%2F%2Fexample.com%2Fa.jpg",
        "http%3a%2f%2fexample.com/a.jpg", "smart/x.jpg", "300x200/a.jpg", "filters:f()/a.jpg", "fit-in/a.jpg", "unsafe/a.jpg",
        "a.jpg?x=1/2", "x\u{301}.jpg", "%2Fa", "smart%2Fx.jpg", "127.0.0.1:8080/img/%E2%9C%93.png", "http:", "http://", "a)/b.jpg",
        "trim:10/a.jpg", "\u{301}/a.jpg", "a%zz.jpg",
    ]

    private static func randomText(_ random: inout SplitMix64, wire: Bool) -> String {
        // nginx refuses a target with a bad %-escape (400): on the wire, `%` comes only in whole escapes.
        let alphabet: [Unicode.Scalar] = ["a", "x", "0", "9", "-", ":", "(", ")", "/", "?", "=", ".", "\u{301}", "\u{600}", "\u{0663}"]
            + (wire ? [] : ["%", " ", "#", "\n"])
        let length = Int(random.next() % 12) + 1
        var text = String.UnicodeScalarView()
        for _ in 0..<length { text.append(random.pick(alphabet)) }
        return String(text)
    }
}

extension SplitMix64 {
    mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    mutating func chance(_ probability: Double) -> Bool { Double(next() % 10_000) / 10_000 < probability }
}
