import Foundation
import WebImage

/// The source URL a thumbor path names, by thumbor's rules: no scheme means http, `http:/host` (a
/// proxy merged the slashes) means `http://host`, and any other scheme is refused outright. A plain
/// host is spelled as the fetch spells it (`Origin.urlSpelling(ofHost:)`), and the scheme in lower case, so every
/// spelling of a source has one cache key and one purge.
enum SourceURL {
    static func parse(_ source: String) throws(ServerFailure) -> URL {
        var text = source
        for scheme in Origin.Scheme.allCases.map({ $0.rawValue + ":/" })
        where text.lowercased().hasPrefix(scheme) && !text.lowercased().hasPrefix(scheme + "/") {
            text = scheme + "/" + text.dropFirst(scheme.count)
        }
        if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }),
           !(text[text.index(after: colon)...].first?.isNumber ?? false) {
            // A scheme of its own (file:, data:, gopher:): only http and https are fetched.
            guard Origin.Scheme(named: text[..<colon]) != nil else { throw .forbiddenSource }
        } else {
            text = "http://" + text
        }
        let allowed = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "#%[]"))
        guard let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed), let url = URL(string: encoded),
              url.host?.isEmpty == false else {
            throw .badRequest("the source URL is malformed")
        }
        // Only a plain host is respelt; any other is refused before a fetch and never cached.
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let host = components.percentEncodedHost, SourceResolver.isPlainHost(host) else { return url }
        let spelling = Origin.urlSpelling(ofHost: host)
        let scheme = components.scheme?.lowercased()
        guard spelling != host || scheme != components.scheme else { return url }
        guard spelling != "", spelling != "[]" else { throw .badRequest("the source URL is malformed") }
        components.scheme = scheme
        components.percentEncodedHost = spelling
        guard let respelt = components.url else { throw .badRequest("the source URL is malformed") }
        return respelt
    }
}
