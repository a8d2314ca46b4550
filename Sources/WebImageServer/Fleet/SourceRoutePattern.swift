/// The regular expression that cuts a thumbor request's *source* out of its request target, built
/// from the tables ``ThumborPath`` parses with (`ThumborGrammar`, the option enums), so nginx can
/// route every variant of one source to one instance (`hash $webimage_source consistent`).
///
/// It runs on nginx's `$request_uri` — the raw path and query, byte for byte what the server parses
/// (nginx's `$uri` is percent-decoded and slash-merged: `smart%2Fx.jpg`, a source, would read as the
/// `smart` option). Each optional part matches one whole segment in its place, in the parser's order,
/// and the named group ``captureName`` takes the rest: the source as written, without a leading
/// `http://`/`https://` (thumbor's `http:/host` and no scheme name the same source, and the purge
/// route's `url=` is keyed the same way). Only the subset PCRE (nginx) and ICU (`NSRegularExpression`,
/// the specs) read alike is used: `(?s)`, `(?i:…)`, `(?:…)`, named groups, lazy `*?`, bounded repeats,
/// ASCII classes — no `\d` (ICU's matches every script's digits), no lookaround, no possessives.
public enum SourceRoutePattern {
    /// The named group holding the routing key in ``imagePattern``.
    public static let captureName = "routekey"
    /// The named group holding the routing key in ``purgePattern``.
    public static let purgeCaptureName = "purgekey"

    /// A leading scheme left out of the key: `http://`, `http:/`, `HTTPS://`, or escaped (`http%3A%2F%2F`).
    static let schemePrefix = "(?:(?i:https?)(?::|%3[Aa])(?:/|%2[Ff])*)?"

    /// Matches a thumbor request target (`/unsafe/300x200/smart/example.com/a.jpg?v=1`); the group
    /// ``captureName`` is the routing key (`example.com/a.jpg?v=1`). A target it does not match
    /// (`/healthz`) is no image request: any instance may answer it.
    public static let imagePattern: String = {
        let number = "-?" + digits
        let signature = "[" + ThumborGrammar.signatureScalars.map { range in
            range.lowerBound == range.upperBound ? escapedForClass(range.lowerBound) : "\(range.lowerBound)-\(range.upperBound)"
        }.joined() + "]{\(ThumborGrammar.minimumSignatureLength),}"
        let tolerance = integerPattern(ThumborGrammar.trimTolerance)
        let corner = alternatives(ThumborPath.Trim.Corner.allCases.map { escaped($0.rawValue) } + [tolerance])
        let side = "-?(?:\(ThumborGrammar.original)|\(digits))?"
        let segments = [
            "(?:\(ThumborGrammar.unsafe)|\(signature))/",
            optional(ThumborGrammar.debug),
            optional(ThumborGrammar.meta),
            optional("\(ThumborGrammar.trim)(?::\(corner)){0,2}"),
            optional("\(number)x\(number):\(number)x\(number)"),
            optional(alternatives(ThumborPath.FitIn.allCases.map { escaped($0.rawValue) })),
            optional("\(side)x\(side)"),
            optional(alternatives(ThumborPath.HorizontalAlign.allCases.map { escaped($0.rawValue) })),
            optional(alternatives(ThumborPath.VerticalAlign.allCases.map { escaped($0.rawValue) })),
            optional(ThumborGrammar.smart),
            // The parser's rule for the segment's end (the first `)/`, thumbor's lazy `.+?\)/`); what the
            // filter list holds cannot move the source: a list ThumborFilter refuses fails the request.
            "(?:\(escaped(ThumborGrammar.filtersPrefix)).*?\\)/)?",
        ]
        return "(?s)^/" + segments.joined() + schemePrefix + "(?<\(captureName)>.*)$"
    }()

    /// Matches the `url` argument of `DELETE /purge?url=SOURCE` (nginx's `$arg_url`, as sent); the
    /// group ``purgeCaptureName`` is the key an image request for that source gets, when the URL is
    /// written as in the image path (an escaped one may land elsewhere: fleet-wide purge reaches it).
    public static let purgePattern = "(?s)^" + schemePrefix + "(?<\(purgeCaptureName)>.*)$"

    // MARK: Building blocks

    /// One number of a crop or size: digits only, as the parser's `integer`.
    private static let digits = "[0-9]{1,\(ThumborGrammar.maximumDigits)}"

    private static func optional(_ segment: String) -> String { "(?:\(segment)/)?" }

    /// One of `patterns`, longest first (a shorter word that is a prefix would backtrack at the `/`
    /// anyway; this keeps the pattern plain to read).
    private static func alternatives(_ patterns: [String]) -> String {
        "(?:" + patterns.sorted { $0.count > $1.count }.joined(separator: "|") + ")"
    }

    private static func escaped(_ text: String) -> String {
        String(text.unicodeScalars.flatMap { scalar -> [Character] in
            "\\^$.|?*+()[]{}".unicodeScalars.contains(scalar) ? ["\\", Character(scalar)] : [Character(scalar)]
        })
    }

    private static func escapedForClass(_ scalar: Unicode.Scalar) -> String {
        "-]\\^[".unicodeScalars.contains(scalar) ? "\\\(scalar)" : "\(scalar)"
    }

    /// The digit strings the parser reads as a number in `range` (at most `ThumborGrammar/maximumDigits`
    /// digits, leading zeros allowed): for each length of the number without its leading zeros, the
    /// zeros that may pad it and the classic range-to-regex pieces of that length.
    static func integerPattern(_ range: ClosedRange<Int>) -> String {
        precondition(range.lowerBound >= 0)
        var pieces: [String] = []
        for length in 1...ThumborGrammar.maximumDigits {
            let low = max(range.lowerBound, length == 1 ? 0 : power(10, length - 1))
            let high = min(range.upperBound, power(10, length) - 1)
            guard low <= high else { continue }
            let padding = ThumborGrammar.maximumDigits - length
            let zeros = padding == 0 ? "" : "0{0,\(padding)}"
            pieces += sameLength(String(low), String(high)).map { zeros + $0 }
        }
        return "(?:" + pieces.joined(separator: "|") + ")"
    }

    /// Patterns for the numbers `low...high`, both written with the same number of digits.
    private static func sameLength(_ low: String, _ high: String) -> [String] {
        guard let first = low.first, let last = high.first else { return [] }
        if low.count == 1 { return [first == last ? String(first) : "[\(first)-\(last)]"] }
        let lowRest = String(low.dropFirst()), highRest = String(high.dropFirst())
        if first == last { return sameLength(lowRest, highRest).map { String(first) + $0 } }
        let any = "[0-9]{\(lowRest.count)}"
        var pieces: [String] = []
        var middleLow = first.wholeNumberValue!, middleHigh = last.wholeNumberValue!
        if lowRest.allSatisfy({ $0 == "0" }) {
            // `low`'s leading digit is a whole block: it joins the middle.
        } else {
            pieces += sameLength(lowRest, String(repeating: "9", count: lowRest.count)).map { String(first) + $0 }
            middleLow += 1
        }
        let highIsWhole = highRest.allSatisfy { $0 == "9" }
        if !highIsWhole { middleHigh -= 1 }
        if middleLow <= middleHigh {
            pieces.append((middleLow == middleHigh ? "\(middleLow)" : "[\(middleLow)-\(middleHigh)]") + any)
        }
        if !highIsWhole {
            pieces += sameLength(String(repeating: "0", count: highRest.count), highRest).map { String(last) + $0 }
        }
        return pieces
    }

    private static func power(_ base: Int, _ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { product, _ in product * base }
    }
}
