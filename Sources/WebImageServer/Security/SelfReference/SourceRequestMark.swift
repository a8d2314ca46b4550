import HTTPTypes

/// The mark on every source request this server sends (`Via: 1.1 webimage`, RFC 9110 §7.6.3): an
/// image request that carries it came from an image server — this one through a proxy, or another
/// of the fleet — and is refused (508), so a source naming the server cannot chain requests.
/// nginx and CDNs pass `Via` on (appending their own entries), so the mark survives the proxies.
public enum SourceRequestMark {
    public static let field = HTTPField.Name("Via")!
    /// The received-by name the mark is recognised by.
    public static let pseudonym = "webimage"
    public static let value = "1.1 " + pseudonym

    /// Whether any `Via` entry (`1.1 webimage`, `HTTP/1.1 webimage (comment)`) names this server's pseudonym.
    public static func isMarked(_ values: [String]) -> Bool {
        values.lazy.flatMap { $0.split(separator: ",") }.contains { entry in
            let words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return words.count >= 2 && words[1].lowercased() == pseudonym
        }
    }
}
