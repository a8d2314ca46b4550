import NIOCore

extension ImageServer {
    /// Tells the server a socket it listens on (Hummingbird's `onServerRunning` channel's
    /// `localAddress`): sources that resolve to it are refused, so the server never asks itself.
    public func serving(on address: SocketAddress?) {
        if let address { servingAddresses.add(address) }
    }
}

extension ServerFailure {
    /// A request that carries the server's own source-request mark (``SourceRequestMark``).
    static let loopDetected = Self(status: .init(code: 508, reasonPhrase: "Loop Detected"),
                                   message: "image requests from an image server are not served")
}
