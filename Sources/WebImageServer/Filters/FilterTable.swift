import WebImage

/// Every thumbor filter the server knows, one ``FilterRow`` each. A filter not here is ignored
/// with a log line, as thumbor ignores filters it does not know.
public enum FilterTable {
    public static let rows: [FilterRow] = [
        FilterRow("format", [.string], kind: .encoder, summary: "write as jpeg, png, webp, gif or avif",
                  action: .output { output, values in
                      guard let format = values[0].string.flatMap({ formats[$0.lowercased()] }) else { return false }
                      output.format = format
                      return true
                  }),
        FilterRow("quality", [.positiveNumber], kind: .encoder, summary: "encoder quality, 0–100",
                  action: .output { output, values in
                      guard let quality = values[0].integer, (0...100).contains(quality) else { return false }
                      output.quality = quality
                      return true
                  }),
        FilterRow("max_bytes", [.positiveNumber], kind: .encoder, summary: "lower the quality until the variant fits in this many bytes (JPEG, WebP)",
                  action: .output { output, values in
                      guard let limit = values[0].integer, limit > 0 else { return false }
                      output.maxBytes = limit
                      return true
                  }),
        FilterRow("strip_icc", kind: .encoder, summary: "no ICC profile in the output (always true: colours are converted to sRGB)", action: .holds),
        FilterRow("strip_exif", kind: .encoder, summary: "no EXIF in the output (always true: pixels leave upright)", action: .holds),
        FilterRow("upscale", kind: .geometry, summary: "let fit-in enlarge a smaller source", action: .geometry),
        FilterRow("no_upscale", kind: .geometry, summary: "never enlarge the source", action: .geometry),
        FilterRow("grayscale", kind: .pixels, cost: .copy, summary: "Rec. 601 luma in every channel",
                  action: .pixels { _, size in (GrayscaleTransformer(), size) }),
        // thumbor caps the radius at 150. Blur works on a premultiplied float plane: 16 bytes a pixel.
        FilterRow("blur", [.decimal, .decimal], required: 1, kind: .pixels,
                  cost: FilterCost(scratchBytesPerPixel: 16, makesBitmap: true, passes: 8),
                  summary: "Gaussian blur: radius (capped at 150), optional sigma",
                  action: .pixels { values, size in
                      guard let radius = values[0].number, radius > 0 else { return nil }
                      let sigma = values.count > 1 ? values[1].number ?? radius : radius
                      guard sigma > 0 else { return nil }
                      return (BlurTransformer(radius: min(sigma, 150)), size)
                  }),
        FilterRow("rotate", [.number], kind: .pixels, cost: .copy,
                  summary: "rotate counter-clockwise by a multiple of 90 degrees",
                  action: .pixels { values, size in
                      guard let quarterTurns = values[0].integer.flatMap(ThumborProcessor.quarterTurns(degrees:)), quarterTurns > 0
                      else { return nil }
                      let angle = Double(quarterTurns) * .pi / 2
                      return (RotationTransformer(angle: angle, fitSize: true), Bitmap.rotatedSize(size, angle: angle, fitSize: true))
                  }),
        FilterRow("round_corner", [.radii, .positiveNumber, .positiveNumber, .positiveNumber, .boolean], required: 4,
                  kind: .pixels, cost: .copy, summary: "round the corners: a[|b],r,g,b[,transparent]",
                  action: .pixels { values, size in
                      guard case .radii(let horizontal, _) = values[0], horizontal > 0 else { return nil }
                      return (RoundCornerTransformer(cornerRadius: Double(horizontal)), size)
                  }),
        FilterRow("fill", [.string, .boolean], required: 1, kind: .pixels, cost: .copy,
                  summary: "flatten transparency onto a colour (name, rgb or rrggbb)",
                  action: .pixels { values, size in
                      guard let color = values[0].string.flatMap { ThumborColor.parse($0) }, color.a > 0 else { return nil }
                      return (FillTransformer(color: color), size)
                  }),
    ]

    private static let byName: [String: FilterRow] = Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// The row for a filter name, or nil for a filter the server does not know.
    public static func row(named name: String) -> FilterRow? { byName[name] }

    static let formats: [String: ImageFormat] = ["jpeg": .jpeg, "jpg": .jpeg, "png": .png, "webp": .webp, "gif": .gif, "avif": .avif]
}
