import Foundation

/// A request path in thumbor's syntax, taken apart:
/// `/HMAC|unsafe/[trim/][AxB:CxD/][fit-in/|adaptive-fit-in/|full-fit-in/][-]WxH/[HALIGN/][VALIGN/][smart/][filters:f(a):g(b)/]SOURCE`.
///
/// Each optional part is recognised only in its place, as thumbor's own pattern does, and what
/// follows the last recognised part is the source, slashes and all — so `300x200.jpg` as a file
/// name stays the source and never reads as a size.
public struct ThumborPath: Sendable, Hashable {
    /// How the request is authorised: thumbor's `unsafe/` or an HMAC signature.
    public enum Authorization: Sendable, Hashable {
        case unsafe
        case signature(String)
    }

    /// `trim` with its reference corner and colour tolerance.
    public struct Trim: Sendable, Hashable {
        public enum Corner: String, Sendable, CaseIterable { case topLeft = "top-left", bottomRight = "bottom-right" }
        public var corner: Corner = .topLeft
        public var tolerance: Int = 0
    }

    /// The manual crop `AxB:CxD`: left, top, right, bottom in source pixels.
    public struct CropBox: Sendable, Hashable {
        public var left, top, right, bottom: Int
    }

    public enum FitIn: String, Sendable, CaseIterable {
        case fitIn = "fit-in"
        case adaptive = "adaptive-fit-in"
        case full = "full-fit-in"
        case adaptiveFull = "adaptive-full-fit-in"
    }

    /// One side of the target size: pixels (0 = follow the other side's ratio) or the source's.
    public enum Dimension: Sendable, Hashable {
        case pixels(Int)
        case original
    }

    public enum HorizontalAlign: String, Sendable, CaseIterable { case left, center, right }
    public enum VerticalAlign: String, Sendable, CaseIterable { case top, middle, bottom }

    public var authorization: Authorization
    /// What the signature covers: the path after `HMAC/`, as received.
    public var signedPart: String
    public var debug = false
    public var meta = false
    public var trim: Trim?
    public var crop: CropBox?
    public var fitIn: FitIn?
    public var width: Dimension = .pixels(0)
    public var height: Dimension = .pixels(0)
    /// `-W`: mirror left to right.
    public var flipHorizontally = false
    /// `-H`: mirror top to bottom.
    public var flipVertically = false
    public var horizontalAlign: HorizontalAlign = .center
    public var verticalAlign: VerticalAlign = .middle
    public var smart = false
    public var filters: [ThumborFilter] = []
    /// The source as written in the path (percent-decoded, scheme not yet added).
    public var source: String

    /// Parses `path` (with or without its leading slash; the request's query string, if any,
    /// appended as `?query`, since it belongs to the source). `decodingSource` false takes the
    /// source as written: for a path that was percent-decoded once already.
    ///
    /// Delimiters are found among Unicode scalars, not Characters: a `/` followed by a combining
    /// mark is still a `/`, so a grapheme cluster can never hide a segment's end.
    public init(parsing path: String, decodingSource: Bool = true) throws(ThumborPathError) {
        var rest = path.unicodeScalars[...]
        if rest.first == "/" { rest = rest.dropFirst() }
        guard let first = Self.nextSegment(rest) else { throw .missingSource }
        if Self.equals(first, ThumborGrammar.unsafe) {
            authorization = .unsafe
        } else if first.count >= ThumborGrammar.minimumSignatureLength, first.allSatisfy(ThumborGrammar.isSignatureScalar) {
            authorization = .signature(String(Substring(first)))
        } else {
            throw .unsigned
        }
        Self.advance(&rest, past: first)
        signedPart = String(Substring(rest))
        source = ""

        if Self.take(ThumborGrammar.debug, from: &rest) { debug = true }
        if Self.take(ThumborGrammar.meta, from: &rest) { meta = true }
        if let segment = Self.nextSegment(rest), let trim = Self.trim(Substring(segment)) {
            self.trim = trim
            Self.advance(&rest, past: segment)
        }
        if let segment = Self.nextSegment(rest), let crop = Self.cropBox(Substring(segment)) {
            self.crop = crop
            Self.advance(&rest, past: segment)
        }
        if let segment = Self.nextSegment(rest), let fitIn = FitIn(rawValue: String(Substring(segment))) {
            self.fitIn = fitIn
            Self.advance(&rest, past: segment)
        }
        if let segment = Self.nextSegment(rest), let size = Self.size(Substring(segment)) {
            (width, flipHorizontally, height, flipVertically) = size
            Self.advance(&rest, past: segment)
        }
        if let segment = Self.nextSegment(rest), let align = HorizontalAlign(rawValue: String(Substring(segment))) {
            horizontalAlign = align
            Self.advance(&rest, past: segment)
        }
        if let segment = Self.nextSegment(rest), let align = VerticalAlign(rawValue: String(Substring(segment))) {
            verticalAlign = align
            Self.advance(&rest, past: segment)
        }
        if Self.take(ThumborGrammar.smart, from: &rest) { smart = true }
        if rest.starts(with: ThumborGrammar.filtersPrefix.unicodeScalars), let end = Self.filtersEnd(rest) {
            filters = try ThumborFilter.parseList(rest[rest.index(rest.startIndex, offsetBy: ThumborGrammar.filtersPrefix.unicodeScalars.count)..<end])
            rest = rest[rest.index(after: end)...]
        }
        let written = String(Substring(rest))
        let decoded = decodingSource ? written.removingPercentEncoding ?? written : written
        guard !decoded.isEmpty else { throw .missingSource }
        source = decoded
    }

    /// The path without its authorisation, in one spelling per meaning — the result cache's key
    /// (two signatures of one request share an entry; `unsafe/` and signed do too).
    public var canonicalOptions: String {
        var parts: [String] = []
        if meta { parts.append("meta") }
        if let trim { parts.append("trim:\(trim.corner.rawValue):\(trim.tolerance)") }
        if let crop { parts.append("\(crop.left)x\(crop.top):\(crop.right)x\(crop.bottom)") }
        if let fitIn { parts.append(fitIn.rawValue) }
        parts.append("\(flipHorizontally ? "-" : "")\(Self.text(width))x\(flipVertically ? "-" : "")\(Self.text(height))")
        parts.append(horizontalAlign.rawValue)
        parts.append(verticalAlign.rawValue)
        if smart { parts.append("smart") }
        if !filters.isEmpty { parts.append("filters:" + filters.map(\.description).joined(separator: ":")) }
        return parts.joined(separator: "/")
    }

    /// This request in one spelling per meaning, `unsafe/` + ``canonicalOptions`` + the source
    /// percent-encoded as one segment (`%` and `/` escaped): it parses back to the same options and
    /// source, whatever the source looks like (`smart/x.jpg` is not read as the `smart` option).
    public var canonicalPath: String {
        var escapes = CharacterSet.urlPathAllowed
        escapes.remove(charactersIn: "/%")
        return "unsafe/" + canonicalOptions + "/" + (source.addingPercentEncoding(withAllowedCharacters: escapes) ?? source)
    }

    // MARK: Parts

    private typealias Scalars = Substring.UnicodeScalarView

    private static func nextSegment(_ rest: Scalars) -> Scalars? {
        guard let slash = rest.firstIndex(of: "/") else { return nil }  // the last segment is the source
        return rest[..<slash]
    }

    /// `rest` after `segment` (a prefix of it) and the `/` that ends it.
    private static func advance(_ rest: inout Scalars, past segment: Scalars) {
        rest = rest[rest.index(after: segment.endIndex)...]
    }

    private static func equals(_ scalars: Scalars, _ word: String) -> Bool {
        scalars.elementsEqual(word.unicodeScalars)
    }

    private static func take(_ word: String, from rest: inout Scalars) -> Bool {
        guard let segment = nextSegment(rest), equals(segment, word) else { return false }
        advance(&rest, past: segment)
        return true
    }

    private static func trim(_ segment: Substring) -> Trim? {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.first.map(String.init) == ThumborGrammar.trim, parts.count <= 3 else { return nil }
        var trim = Trim()
        for part in parts.dropFirst() {
            if let corner = Trim.Corner(rawValue: String(part)) {
                trim.corner = corner
            } else if let tolerance = integer(part, signed: false), ThumborGrammar.trimTolerance.contains(tolerance) {
                trim.tolerance = tolerance
            } else {
                return nil
            }
        }
        return trim
    }

    private static func cropBox(_ segment: Substring) -> CropBox? {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard corners.count == 2 else { return nil }
        // Every part a number, as thumbor's `-?\d+x-?\d+`: `1xax2` is no corner.
        let points = corners.map { $0.split(separator: "x", omittingEmptySubsequences: false).map { integer($0, signed: true) } }
        guard points.allSatisfy({ $0.count == 2 && !$0.contains(nil) }) else { return nil }
        return CropBox(left: points[0][0]!, top: points[0][1]!, right: points[1][0]!, bottom: points[1][1]!)
    }

    private static func size(_ segment: Substring) -> (Dimension, Bool, Dimension, Bool)? {
        let sides = segment.split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2 else { return nil }
        func side(_ text: Substring) -> (Dimension, Bool)? {
            let flip = text.hasPrefix("-")
            let value = flip ? text.dropFirst() : text
            if value.isEmpty { return (.pixels(0), flip) }
            if value == ThumborGrammar.original { return (.original, flip) }
            return integer(value, signed: false).map { (.pixels($0), flip) }
        }
        guard let width = side(sides[0]), let height = side(sides[1]) else { return nil }
        return (width.0, width.1, height.0, height.1)
    }

    /// Digits only (thumbor's `\d+`), bounded so no size overflows later arithmetic.
    private static func integer(_ text: Substring, signed: Bool) -> Int? {
        let digits = signed && text.hasPrefix("-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.count <= ThumborGrammar.maximumDigits, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// The `/` closing a `filters:` segment: the first `)/` (thumbor's lazy `.+?\)/`).
    private static func filtersEnd(_ rest: Scalars) -> Scalars.Index? {
        var index = rest.startIndex
        while let close = rest[index...].firstIndex(of: ")") {
            let next = rest.index(after: close)
            if next < rest.endIndex, rest[next] == "/" { return next }
            index = next
        }
        return nil
    }

    private static func text(_ dimension: Dimension) -> String {
        switch dimension {
        case .original: ThumborGrammar.original
        case .pixels(let value): String(value)
        }
    }
}

/// Why a path is not a thumbor request (the server answers 400, or 403 for ``unsigned``).
public enum ThumborPathError: Error, Sendable, Hashable, CustomStringConvertible {
    case unsigned
    case missingSource
    case badFilter(String)

    public var description: String {
        switch self {
        case .unsigned: "the path starts with neither a signature nor unsafe/"
        case .missingSource: "the path names no source image"
        case .badFilter(let text): "malformed filter: \(text)"
        }
    }
}
