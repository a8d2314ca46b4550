/// The filter table as people read it: the serve command's help and the README's table are both
/// made from ``FilterTable/rows`` here, so neither can drift from what the server does.
extension FilterTable {
    /// Every filter thumbor 7.8 ships (`thumbor/filters/*.py`); each has a row.
    public static let thumborFilterNames: [String] = [
        "autojpg", "background_color", "blur", "brightness", "colorize", "contrast", "convolution", "curve",
        "equalize", "extract_focal", "fill", "focal", "format", "frame", "grayscale", "max_age", "max_bytes",
        "no_upscale", "noise", "proportion", "quality", "red_eye", "rgb", "rotate", "round_corner", "saturation",
        "sharpen", "stretch", "strip_exif", "strip_icc", "upscale", "watermark",
    ]

    /// Every filter's usage, for `webimage serve --help` (``markdownTable`` says what each does).
    public static var helpText: String {
        rows.map(\.usage).joined(separator: ", ")
    }

    /// The README's table: every filter, ✔ or why it is left out, and what it does.
    public static var markdownTable: String {
        var lines = ["| filter | thumbor 7.8 | WebImage |", "|---|---|---|"]
        for row in rows {
            let thumbor = thumborFilterNames.contains(row.name) ? "✔" : "—"
            let ours = if case .leftOut(let reason) = row.action { "left out: \(reason)" } else { "✔ \(row.summary)" }
            lines.append("| `\(cell(row.usage))` | \(thumbor) | \(cell(ours)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// A table cell's text: a bare `|` would end the cell.
    static func cell(_ text: String) -> String {
        text.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}

extension FilterRow {
    /// `name(a,b[,c])` with each argument's grammar as its placeholder.
    public var usage: String {
        guard !arguments.isEmpty else { return name + "()" }
        var text = arguments.prefix(requiredArguments).map(\.placeholder).joined(separator: ",")
        let optional = arguments.dropFirst(requiredArguments)
        for argument in optional { text += (text.isEmpty ? "[" : "[,") + argument.placeholder }
        text += String(repeating: "]", count: optional.count)
        return name + "(" + text + ")"
    }

    /// What it does, or why it is left out.
    public var description: String {
        if case .leftOut(let reason) = action { return "left out: " + reason }
        return summary
    }
}

extension FilterArgument {
    /// How the help text names a value of this grammar.
    var placeholder: String {
        switch self {
        case .number: "n"
        case .positiveNumber: "n≥0"
        case .decimal: "x"
        case .boolean: "bool"
        case .string: "text"
        case .radii: "a[|b]"
        case .kernel: "a;b;…"
        case .curve: "[(x,y),…]"
        }
    }
}
