import Hummingbird

/// Counts every image request by status and times it, into the server's Prometheus registry
/// (`GET /metrics`), refusals by later middleware included.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.answered(status: response.status.code, after: .now - started)
            return response
        } catch let error as any HTTPResponseError {
            metrics.answered(status: error.status.code, after: .now - started)
            throw error
        } catch {
            metrics.answered(status: HTTPResponse.Status.internalServerError.code, after: .now - started)
            throw error
        }
    }
}
