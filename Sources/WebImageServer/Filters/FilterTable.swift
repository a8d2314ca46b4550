import WebImage

/// Every thumbor filter the server knows, one ``FilterRow`` each. A filter not here is ignored
/// with a log line, as thumbor ignores filters it does not know.
public enum FilterTable {
    /// Every row; each group keeps its rows in its own file (Rows/).
    public static let rows: [FilterRow] = encoderRows + geometryRows + focusRows + pixelRows + compositionRows

    private static let byName: [String: FilterRow] = Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// The row for a filter name, or nil for a filter the server does not know.
    public static func row(named name: String) -> FilterRow? { byName[name] }

    static let formats: [String: ImageFormat] = ["jpeg": .jpeg, "jpg": .jpeg, "png": .png, "webp": .webp, "gif": .gif, "avif": .avif]
}
