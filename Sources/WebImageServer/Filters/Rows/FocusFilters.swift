import WebImage

extension FilterTable {
    /// Filters about where the picture's subject is: focal points and what detection finds.
    static let focusRows: [FilterRow] = [
    ]
}
