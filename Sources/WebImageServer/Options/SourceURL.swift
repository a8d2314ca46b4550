import Foundation

/// The source URL a thumbor path names, by thumbor's rules: no scheme means http, `http:/host` (a
/// proxy merged the slashes) means `http://host`, and any other scheme is refused outright.
enum SourceURL {
    static func parse(_ source: String) throws(ServerFailure) -> URL {
        var text = source
        for scheme in ["http:/", "https:/"] where text.lowercased().hasPrefix(scheme) && !text.lowercased().hasPrefix(scheme + "/") {
            text = scheme + "/" + text.dropFirst(scheme.count)
        }
        if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }),
           !(text[text.index(after: colon)...].first?.isNumber ?? false) {
            // A scheme of its own (file:, data:, gopher:): only http and https are fetched.
            let scheme = text[..<colon].lowercased()
            guard scheme == "http" || scheme == "https" else { throw .forbiddenSource }
        } else {
            text = "http://" + text
        }
        let allowed = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "#%[]"))
        guard let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed), let url = URL(string: encoded),
              url.host?.isEmpty == false else {
            throw .badRequest("the source URL is malformed")
        }
        return url
    }
}
