/// The words and bounds of thumbor's path grammar, in one place: ``ThumborPath`` parses with them
/// and ``SourceRoutePattern`` builds nginx's routing regex from them, so the two cannot drift.
enum ThumborGrammar {
    static let unsafe = "unsafe"
    static let debug = "debug"
    static let meta = "meta"
    static let trim = "trim"
    static let smart = "smart"
    static let filtersPrefix = "filters:"
    /// A side of the size taken from the source (`origx100`).
    static let original = "orig"
    /// An HMAC-SHA1 in URL-safe base64 is 28 characters; thumbor's pattern takes 27 and more.
    static let minimumSignatureLength = 27
    /// The URL-safe base64 alphabet (with padding) a signature is written in.
    static let signatureScalars: [ClosedRange<Unicode.Scalar>] = ["a"..."z", "A"..."Z", "0"..."9", "-"..."-", "_"..."_", "="..."="]
    /// Digits in one number of a crop, size or trim tolerance: bounded so no size overflows later arithmetic.
    static let maximumDigits = 6
    /// `trim`'s colour tolerance: the largest distance in RGB space is √(3 × 255²) ≈ 442.
    static let trimTolerance = 0...442

    static func isSignatureScalar(_ scalar: Unicode.Scalar) -> Bool {
        signatureScalars.contains { $0.contains(scalar) }
    }
}
