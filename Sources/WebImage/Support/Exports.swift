// DownloadRequest, DownloadResponse and DownloaderConfig speak swift-http-types (`HTTPFields`,
// `HTTPRequest.Method`, `HTTPResponse.Status`, `HTTPField.Name`); re-exported so `import WebImage`
// is enough to build or read one, as Hummingbird re-exports it for its apps.
@_exported import HTTPTypes
