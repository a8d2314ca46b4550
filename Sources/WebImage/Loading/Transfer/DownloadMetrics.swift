import Foundation

/// What one download cost (SD exposes `NSURLSessionTaskMetrics`): enough to log a slow image or
/// sum up a prefetch.
public struct DownloadMetrics: Sendable, Hashable {
    /// The URL first requested.
    public var url: URL
    /// When the request was handed to the HTTP client (after waiting in the queue).
    public var startDate: Date
    /// Seconds the download waited in the downloader's queue before starting.
    public var queueDuration: TimeInterval
    /// Seconds from start to the final response head.
    public var timeToResponse: TimeInterval?
    /// Seconds from start to the last byte (or the failure).
    public var duration: TimeInterval
    /// Body bytes received (of the final response).
    public var receivedBytes: Int64
    /// The final status code, when a response arrived.
    public var statusCode: Int?
    /// Redirects followed.
    public var redirectCount: Int

    public init(url: URL, startDate: Date, queueDuration: TimeInterval = 0, timeToResponse: TimeInterval? = nil,
                duration: TimeInterval = 0, receivedBytes: Int64 = 0, statusCode: Int? = nil, redirectCount: Int = 0) {
        self.url = url
        self.startDate = startDate
        self.queueDuration = queueDuration
        self.timeToResponse = timeToResponse
        self.duration = duration
        self.receivedBytes = receivedBytes
        self.statusCode = statusCode
        self.redirectCount = redirectCount
    }
}
