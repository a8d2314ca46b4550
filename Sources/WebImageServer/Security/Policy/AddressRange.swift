/// A CIDR block (`10.0.0.0/8`, `fc00::/7`): the unit the address policy's tables are written in.
struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    let network: IPAddress
    let prefixLength: Int

    /// `text` is `ADDRESS/BITS`; a table row that does not parse is a programming error.
    init(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let network = IPAddress(String(parts[0])), let bits = Int(parts[1]),
              bits >= 0, bits <= network.bitCount else {
            preconditionFailure("not a CIDR block: \(text)")
        }
        self.network = network
        prefixLength = bits
    }

    func contains(_ address: IPAddress) -> Bool {
        switch (network, address) {
        case (.v4(let net), .v4(let value)):
            let mask: UInt32 = prefixLength == 0 ? 0 : ~UInt32(0) << UInt32(32 - prefixLength)
            return value & mask == net & mask
        case (.v6(let net), .v6(let bytes)):
            var remaining = prefixLength
            for index in 0..<16 where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if net[index] & mask != bytes[index] & mask { return false }
                remaining -= bits
            }
            return true
        default:
            return false
        }
    }

    var description: String { "\(network)/\(prefixLength)" }
}

extension IPAddress {
    var bitCount: Int {
        if case .v4 = self { return 32 }
        return 128
    }
}
