import Hummingbird
import Logging

/// One log line per image request: status, bytes, milliseconds and the path without its query (a
/// source's query may carry a token). Outermost, so a request refused by any later middleware
/// (a bad signature's 403) is logged too.
public struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status, bytes: response.body.contentLength ?? 0, since: started)
            return response
        } catch let failure as ServerFailure {
            log(request, status: failure.status, bytes: Answer(failure: failure).body.readableBytes, since: started)
            throw failure
        } catch let error as any HTTPResponseError {
            log(request, status: error.status, bytes: 0, since: started)
            throw error
        } catch {
            log(request, status: .internalServerError, bytes: 0, since: started)
            throw error
        }
    }

    private func log(_ request: Request, status: HTTPResponse.Status, bytes: Int, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.notice("request", metadata: [
            "status": "\(status.code)", "bytes": "\(bytes)",
            "ms": "\((milliseconds * 10).rounded() / 10)", "path": "\(request.uri.path)",
        ])
    }
}
