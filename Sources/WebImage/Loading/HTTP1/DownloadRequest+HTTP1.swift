import NIOHTTP1

extension DownloadRequest {
    /// The HTTP/1.1 request head the lean client writes: origin-form target, the request's fields
    /// and `Host`.
    var http1Head: HTTPRequestHead {
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        var headers = HTTPHeaders(headerFields)
        if !headers.contains(name: "host"), let host = url.host {
            let name = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host  // an IPv6 literal keeps its brackets
            headers.add(name: "Host", value: url.port.map { "\(name):\($0)" } ?? name)
        }
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method.rawValue), uri: path, headers: headers)
    }
}
