import Foundation

extension URL {
    /// Whether the URL's scheme is `name` (given in lowercase), in any case. Read off
    /// `absoluteString`, which starts with the scheme: `scheme` builds a new `String` on every
    /// call, and the loaders ask it several times for every URL of a prefetch.
    func hasScheme(_ name: StaticString) -> Bool {
        var text = absoluteString
        return text.withUTF8 { bytes in
            Self.schemeLength(in: bytes).map { ASCII.equalsIgnoringCase(bytes[..<$0], name) } ?? false
        }
    }

    /// Whether the URL's scheme is `http` or `https`, in any case (``Origin/Scheme``).
    var hasHTTPScheme: Bool { Origin.Scheme(of: self) != nil }

    /// Whether the URL has a scheme at all (`scheme != nil`, without the `String`).
    var hasAnyScheme: Bool {
        var text = absoluteString
        return text.withUTF8 { Self.schemeLength(in: $0) != nil }
    }

    /// The length of the scheme `bytes` start with (RFC 3986: a letter, then letters, digits, `+`,
    /// `-` or `.`, then `:`); nil when they have none.
    static func schemeLength(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): continue
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if index == 0 { return nil }
            case UInt8(ascii: ":"): return index == 0 ? nil : index
            default: return nil
            }
        }
        return nil
    }
}
