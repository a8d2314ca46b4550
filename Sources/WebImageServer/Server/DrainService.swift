import Logging
import ServiceLifecycle

/// Readiness that means something on graceful shutdown (SIGTERM, Ctrl-C): `/readyz` answers 503 at
/// once so a load balancer stops sending, image requests are still served for `grace`, then new image
/// requests get 503 (nginx retries them on the next instance) while the ones running finish.
///
/// Put it *after* the HTTP application in one `ServiceGroup`: a group shuts its services down in
/// reverse order, waiting for each, so the HTTP server starts to quiesce (stops accepting, finishes
/// what runs) only when this service returns, after the grace. A grace of zero refuses new work at once.
public struct ImageServerDrainService: Service {
    let server: ImageServer
    let grace: Duration

    public init(server: ImageServer, grace: Duration = .zero) {
        self.server = server
        self.grace = grace
    }

    public func run() async throws {
        try? await gracefulShutdown()
        server.admission.markUnready()
        if grace > .zero { try? await Task.sleep(for: grace) }
        server.admission.drain()
    }
}

extension ImageServerDrainService {
    /// Runs `application` (a Hummingbird `Application`) with this service after it in one group that
    /// shuts down gracefully on SIGTERM and SIGINT: readiness off, the grace, then the application quiesces.
    public func run(beside application: some Service, logger: Logger) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [application, self], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
