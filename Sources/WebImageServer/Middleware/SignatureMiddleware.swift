import Hummingbird

/// Refuses, before any route work, a request whose path is not a signed (or allowed `unsafe/`)
/// thumbor path: 403 for a bad signature, 400 for a malformed path, 414 for a long one. What
/// passes is remembered by the pipeline, so its own parse-and-authorise step is a lookup.
struct SignatureMiddleware<Context: RequestContext>: RouterMiddleware {
    let pipeline: VariantPipeline

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        _ = try pipeline.request(for: request.thumborPath, accept: request.headers[.accept])
        return try await next(request, context)
    }
}

/// Refuses a source request of an image server (this one, or another of the fleet): a loop (508).
struct SourceLoopMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !SourceRequestMark.isMarked(request.headers[values: SourceRequestMark.field]) else { throw ServerFailure.loopDetected }
        return try await next(request, context)
    }
}
