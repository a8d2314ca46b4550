/// The one spelling of a source host: what the fetch connects by (``SourceResolver``) and what the
/// cache keys and purges name (`SourceURL`), so `PUBLIC.test`, `public.test.` and `public.test`
/// are one source everywhere.
enum SourceHost {
    /// Lower case, without the brackets of an IPv6 literal or trailing root dots (`localhost.`).
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// The normalized host as a URL spells it: an IPv6 literal in brackets.
    static func urlSpelling(_ host: String) -> String {
        let host = normalized(host)
        return host.contains(":") ? "[\(host)]" : host
    }
}
