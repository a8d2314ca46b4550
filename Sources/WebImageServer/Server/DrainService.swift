import ServiceLifecycle

/// Put beside the HTTP server in its service group: on graceful shutdown (SIGTERM, Ctrl-C) the
/// image server stops taking work at once — `/readyz` answers 503 so a load balancer moves on, new
/// image requests get 503 — while the HTTP server finishes the requests already running.
public struct ImageServerDrainService: Service {
    let server: ImageServer

    public init(server: ImageServer) { self.server = server }

    public func run() async throws {
        try? await gracefulShutdown()
        server.admission.drain()
    }
}
