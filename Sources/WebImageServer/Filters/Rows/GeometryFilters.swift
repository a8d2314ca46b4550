import WebImage

extension FilterTable {
    /// Filters the geometry (ThumborGeometry) reads: the variant's region and size.
    static let geometryRows: [FilterRow] = [
        FilterRow("upscale", kind: .geometry, summary: "let fit-in enlarge a smaller source", action: .geometry),
        FilterRow("no_upscale", kind: .geometry, summary: "never enlarge the source", action: .geometry),
    ]
}
