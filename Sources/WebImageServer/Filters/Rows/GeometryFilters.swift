import WebImage

extension FilterTable {
    /// Filters that change the variant's region and size: read by the geometry (ThumborGeometry),
    /// or, as thumbor runs `proportion`, a resize after it.
    static let geometryRows: [FilterRow] = [
        FilterRow("upscale", kind: .geometry, summary: "let fit-in enlarge a smaller source", action: .geometry),
        FilterRow("no_upscale", kind: .geometry, summary: "never enlarge the source", action: .geometry),
        FilterRow("stretch", kind: .geometry, summary: "scale to the box without cropping (aspect not kept)", action: .geometry),
        // thumbor's post-transform resize: only a shrink (0 < p ≤ 1; anything else is ignored), so it never enlarges.
        // The resampler's own cost on the sizes it runs on (at most a box-shrunk copy and rows per pixel it makes).
        FilterRow("proportion", [.decimal], kind: .pixels, cost: FilterCost(scratchBytesPerPixel: 24, makesBitmap: true, passes: 2),
                  costFor: { input in
                      proportionSize(input.size, input.values[0].number).map { ThumborProcessor.resizeCost(from: input.size, to: $0) } ?? .none
                  },
                  summary: "scale the result by 0 < p ≤ 1",
                  action: .pixels { input in
                      guard let next = proportionSize(input.size, input.values[0].number) else { return nil }
                      return (ResizingTransformer(size: next, scaleMode: .fill), next)
                  }),
    ]

    /// thumbor's `proportion(p)`: both sides times p, truncated; nil (ignored) outside 0 < p ≤ 1 or
    /// when a side would fall under a pixel, and when nothing changes.
    static func proportionSize(_ size: PixelSize, _ proportion: Double?) -> PixelSize? {
        guard let proportion, proportion > 0, proportion <= 1 else { return nil }
        let width = Double(size.width) * proportion, height = Double(size.height) * proportion
        guard width >= 1, height >= 1 else { return nil }
        let next = PixelSize(width: Int(width), height: Int(height))
        return next == size ? nil : next
    }
}
