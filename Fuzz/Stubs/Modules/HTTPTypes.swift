// swift-http-types' status codes as ServerFailure names them: the fuzzer compares failures, it sends no response.
public struct HTTPResponse: Sendable {
    public struct Status: Sendable, Hashable {
        public var code: Int
        public init(code: Int) { self.code = code }
        public static let badRequest = Status(code: 400)
        public static let unauthorized = Status(code: 401)
        public static let forbidden = Status(code: 403)
        public static let notFound = Status(code: 404)
        public static let uriTooLong = Status(code: 414)
        public static let contentTooLarge = Status(code: 413)
        public static let unsupportedMediaType = Status(code: 415)
        public static let tooManyRequests = Status(code: 429)
        public static let badGateway = Status(code: 502)
        public static let serviceUnavailable = Status(code: 503)
        public static let gatewayTimeout = Status(code: 504)
    }
}
