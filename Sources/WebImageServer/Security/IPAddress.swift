import Foundation

/// An IPv4 or IPv6 address, as the resolver returned it or as a literal in a URL. The server
/// decides on these, never on the host's spelling: `127.1`, `0x7f000001` and `2130706433` are
/// all 127.0.0.1 once resolved, and that is what is checked and then connected to.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6([UInt8])  // 16 bytes

    /// A numeric address in its standard text form (`inet_pton`: dotted quad or RFC 4291 text,
    /// brackets allowed); nil for anything else, host names and `inet_aton`'s odd forms included.
    public init?(_ text: String) {
        var literal = text
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, literal, &v6) == 1 else { return nil }
        self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
    }

    /// The address held in a resolver's `sockaddr`.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            self = .v4(UInt32(bigEndian: v4.s_addr))
        case AF_INET6:
            var v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
        default:
            return nil
        }
    }

    /// The text a connection is made to (no brackets).
    public var description: String {
        switch self {
        case .v4(let value):
            return [24, 16, 8, 0].map { String((value >> UInt32($0)) & 0xFF) }.joined(separator: ".")
        case .v6(let bytes):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The IPv4 address an IPv6 one routes to — IPv4-mapped (`::ffff:a.b.c.d`), NAT64
    /// (`64:ff9b::/96`, RFC 6052) and 6to4 (`2002:AABB:CCDD::/48`, RFC 3056) — so
    /// `[::ffff:127.0.0.1]` is judged as 127.0.0.1.
    var embeddedIPv4: UInt32? {
        guard case .v6(let b) = self else { return nil }
        func word(_ at: Int) -> UInt32 {
            UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
        }
        if b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xFF, b[11] == 0xFF { return word(12) }  // ::ffff:a.b.c.d
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4..<12].allSatisfy({ $0 == 0 }) { return word(12) }
        if b[0] == 0x20, b[1] == 0x02 { return word(2) }
        return nil
    }
}
