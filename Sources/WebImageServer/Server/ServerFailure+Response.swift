import Hummingbird

/// Thrown through Hummingbird's middleware, so the access log and the metrics see its status, and
/// the router writes it (``Answer/init(failure:)``).
extension ServerFailure: HTTPResponseError {
    /// The failure as a response: `STATUS REASON: message`, plain text, never cached.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Answer(failure: self).response
    }
}
