import WebImage

extension FilterTable {
    /// Filters that add to the picture: padding, frames and watermarks.
    static let compositionRows: [FilterRow] = [
        FilterRow("fill", [.string, .boolean], required: 1, kind: .pixels, cost: .copy,
                  summary: "flatten transparency onto a colour (name, rgb or rrggbb)",
                  action: .pixels { input in
                      let (values, size) = (input.values, input.size)
                      guard let color = values[0].string.flatMap { ThumborColor.parse($0) }, color.a > 0 else { return nil }
                      return (FillTransformer(color: color), size)
                  }),
    ]
}
