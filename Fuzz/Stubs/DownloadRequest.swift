import HTTPTypes

// The parser's Mutex helper names DownloadRequest for its method only; the real type pulls in half the loader.
struct DownloadRequest {
    var method: HTTPRequest.Method
}
