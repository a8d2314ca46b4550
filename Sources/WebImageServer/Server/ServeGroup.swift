import Logging
import ServiceLifecycle

extension ImageServerDrainService {
    /// Runs `applications` (the public listener, an admin one) with this service after them in one
    /// group that shuts down gracefully on SIGTERM and SIGINT. Services stop in reverse order: the
    /// drain first (readiness off, the grace), then the applications, the first one listed last —
    /// list the admin listener first so `/metrics` answers while the public one quiesces.
    public func run<Application: Service>(beside applications: [Application], logger: Logger) async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: applications.map { $0 as any Service } + [self], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
