import HTTPTypes
import WebImage

/// A request's failure as the client sees it: a status and one plain sentence. Never a stack
/// trace, a path on this machine, an internal address or a library's message — those go to the log.
/// Thrown through Hummingbird's middleware as an `HTTPResponseError` (ServerFailure+Response.swift).
public struct ServerFailure: Error, Equatable {
    public var status: HTTPResponse.Status
    /// The sentence the client reads after the status line.
    public var message: String
    /// Seconds for `Retry-After` (busy, draining).
    public var retryAfter: Int?

    static func badRequest(_ message: String) -> Self { Self(status: .badRequest, message: message) }
    static let forbiddenSignature = Self(status: .forbidden, message: "bad or missing URL signature")
    static let forbiddenUnsafe = Self(status: .forbidden, message: "unsafe URLs are not allowed on this server")
    static let forbiddenSource = Self(status: .forbidden, message: "the source URL is not allowed")
    static let notFound = Self(status: .notFound, message: "the source image was not found")
    static let badGateway = Self(status: .badGateway, message: "the source could not be fetched")
    static let gatewayTimeout = Self(status: .gatewayTimeout, message: "the source did not answer in time")
    static let pathTooLong = Self(status: .uriTooLong, message: "the request path is longer than this server accepts")
    static let tooLarge = Self(status: .contentTooLarge, message: "the image is larger than this server accepts")
    static let overMemoryBudget = Self(status: .contentTooLarge, message: "making this image would need more memory than this server gives one request; ask for a smaller size or fewer filters")
    static let overWorkBudget = Self(status: .contentTooLarge, message: "the filters would take longer than this server gives one request on an image this size; ask for a smaller size or fewer filters")
    static let notAnImage = Self(status: .unsupportedMediaType, message: "the source is not an image this server can read")
    static let busy = Self(status: .tooManyRequests, message: "too many requests in progress, try again shortly", retryAfter: 1)
    static let unavailable = Self(status: .serviceUnavailable, message: "the server is shutting down", retryAfter: 5)
    static let timeout = Self(status: .gatewayTimeout, message: "the image took too long to make")
    static let purgeDisabled = Self(status: .notFound, message: "purge is not enabled on this server")
    static let unauthorized = Self(status: .unauthorized, message: "a valid bearer token is required")
    static let badCallback = Self(status: .badRequest, message: "callback must be a JavaScript identifier (letters, digits, _, $ and dots, at most 64 characters)")

    /// What a source load's typed error means for the client.
    init(_ error: WebImageError) {
        switch error {
        case .refusedByHopPolicy:
            self = .forbiddenSource
        case .invalidURL:
            self = .badRequest("the source URL is malformed")
        case .invalidDownloadStatusCode(let status) where status == 404 || status == 410:
            self = .notFound
        case .overDecodeLimit(let error):
            // The source check (a JPEG XL is checked by decoding it) may need more than a request may hold.
            self = Self(decoding: error)
        case .badImageData, .invalidDownloadContentType:
            self = .notAnImage
        case .transport(.timedOut):
            self = .gatewayTimeout
        case .transport(.responseTooLarge):
            self = .tooLarge
        case .cancelled:
            self = .unavailable
        default:
            self = .badGateway
        }
    }

    /// What a decode's error means for the client: over a limit, or not an image this server reads.
    init(decoding error: any Error) {
        switch error as? ImageCoderError {
        case .tooLarge?, .tooManyScans?: self = .tooLarge
        case .decodeBudgetExceeded?, .outOfMemory?: self = .overMemoryBudget
        default: self = .notAnImage
        }
    }

    public init(status: HTTPResponse.Status, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }
}
