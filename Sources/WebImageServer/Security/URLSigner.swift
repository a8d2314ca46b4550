import Crypto
import Foundation

/// thumbor's URL signatures: HMAC-SHA1 of the path after the signature, URL-safe base64 with its
/// padding — what libthumbor and every thumbor URL builder produce. Holds several keys at once so
/// a key can rotate: a URL signed by any of them is accepted, new URLs are signed with the first.
public struct URLSigner: Sendable {
    private let keys: [SymmetricKey]

    /// `keys` in order of preference; empty accepts nothing (only `unsafe/`, where allowed).
    public init(keys: [String]) {
        self.keys = keys.filter { !$0.isEmpty }.map { SymmetricKey(data: Data($0.utf8)) }
    }

    public var isEmpty: Bool { keys.isEmpty }

    /// The signature of `signedPart` under the first key.
    public func signature(for signedPart: String) -> String? {
        keys.first.map { Self.signature(for: signedPart, key: $0) }
    }

    /// Whether `signature` signs `signedPart` under any key — compared in constant time per key,
    /// so a forger learns nothing from how long a refusal took.
    public func isValid(_ signature: String, for signedPart: String) -> Bool {
        let given = Data(signature.utf8)
        var valid = false
        for key in keys {
            let expected = Data(Self.signature(for: signedPart, key: key).utf8)
            valid = Self.constantTimeEquals(expected, given) || valid
        }
        return valid
    }

    private static func signature(for message: String, key: SymmetricKey) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(message.utf8), using: key)
        return Data(mac).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    static func constantTimeEquals(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
