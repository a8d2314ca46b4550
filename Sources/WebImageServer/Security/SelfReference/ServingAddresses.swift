import Foundation
import NIOCore
import Synchronization

/// Where this server listens, so a source that resolves there — the server asking itself, and
/// through nested paths asking again — is refused. A wildcard listener (`0.0.0.0`, `::`) is reached
/// by every local address: loopback and each interface's address (getifaddrs, read at each check
/// since interfaces change), on the listening port.
public final class ServingAddresses: Sendable {
    private struct Listener: Sendable, Hashable {
        var address: IPAddress
        var port: Int
    }

    private let listeners = Mutex<[Listener]>([])

    public init() {}

    /// Adds a listening socket's address (Hummingbird's `onServerRunning` channel's `localAddress`).
    public func add(_ address: SocketAddress) {
        guard let port = address.port, let text = address.ipAddress, let ip = IPAddress(text) else { return }
        add(ip, port: port)
    }

    func add(_ address: IPAddress, port: Int) {
        let listener = Listener(address: address.unmapped, port: port)
        listeners.withLock { if !$0.contains(listener) { $0.append(listener) } }
    }

    /// Whether a connection to `address`:`port` would reach this server.
    func contains(_ address: IPAddress, port: Int) -> Bool {
        let address = address.unmapped
        let listening = listeners.withLock { $0 }.filter { $0.port == port }
        guard !listening.isEmpty else { return false }
        if listening.contains(where: { $0.address == address }) { return true }
        guard listening.contains(where: { $0.address.isUnspecified }) else { return false }
        // Connecting to 0.0.0.0 or :: reaches the local host too.
        if address.isUnspecified || Self.loopback.contains(where: { $0.contains(address) }) { return true }
        return Self.interfaceAddresses().contains(address)
    }

    private static let loopback = [AddressRange("127.0.0.0/8"), AddressRange("::1/128")]

    /// Every address on this host's interfaces.
    static func interfaceAddresses() -> Set<IPAddress> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: Set<IPAddress> = []
        var entry = list
        while let current = entry {
            if let sockaddr = current.pointee.ifa_addr, let address = IPAddress(UnsafePointer(sockaddr)) {
                addresses.insert(address.unmapped)
            }
            entry = current.pointee.ifa_next
        }
        return addresses
    }
}

extension IPAddress {
    /// An IPv4-mapped IPv6 address as the IPv4 address it is on a dual-stack socket.
    var unmapped: IPAddress {
        if case .v6(let b) = self, b[0..<10].allSatisfy({ $0 == 0 }), b[10] == 0xFF, b[11] == 0xFF {
            return .v4(UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15]))
        }
        return self
    }

    var isUnspecified: Bool {
        switch self {
        case .v4(let value): value == 0
        case .v6(let bytes): bytes.allSatisfy { $0 == 0 }
        }
    }
}
