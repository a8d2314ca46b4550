extension String {
    /// Whether this URL scheme is `name` (given in lowercase), in any case. Loaders ask it of every
    /// URL; a scheme written in lowercase, the usual one, is answered without a lowercased copy.
    func isScheme(_ name: String) -> Bool {
        self == name || (utf8.count == name.utf8.count && lowercased() == name)
    }

    /// Whether this URL scheme is `http` or `https`, in any case.
    var isHTTPScheme: Bool { isScheme("http") || isScheme("https") }
}
