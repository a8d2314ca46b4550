import WebImage

extension FilterTable {
    /// Filters that change pixels after the resize, in the order given.
    static let pixelRows: [FilterRow] = [
        FilterRow("grayscale", kind: .pixels, cost: .copy, summary: "Rec. 601 luma in every channel",
                  action: .pixels { input in (GrayscaleTransformer(), input.size) }),
        // thumbor caps the radius at 150. Blur works on a premultiplied float plane: 16 bytes a pixel.
        FilterRow("blur", [.decimal, .decimal], required: 1, kind: .pixels,
                  cost: FilterCost(scratchBytesPerPixel: 16, makesBitmap: true, passes: 8),
                  summary: "Gaussian blur: radius (capped at 150), optional sigma",
                  action: .pixels { input in
                      let (values, size) = (input.values, input.size)
                      guard let radius = values[0].number, radius > 0 else { return nil }
                      let sigma = values.count > 1 ? values[1].number ?? radius : radius
                      guard sigma > 0 else { return nil }
                      return (BlurTransformer(radius: min(sigma, 150)), size)
                  }),
        FilterRow("rotate", [.number], kind: .pixels, cost: .copy,
                  summary: "rotate counter-clockwise by a multiple of 90 degrees",
                  action: .pixels { input in
                      let (values, size) = (input.values, input.size)
                      guard let quarterTurns = values[0].integer.flatMap(ThumborProcessor.quarterTurns(degrees:)), quarterTurns > 0
                      else { return nil }
                      let angle = Double(quarterTurns) * .pi / 2
                      return (RotationTransformer(angle: angle, fitSize: true), Bitmap.rotatedSize(size, angle: angle, fitSize: true))
                  }),
        FilterRow("round_corner", [.radii, .positiveNumber, .positiveNumber, .positiveNumber, .boolean], required: 4,
                  kind: .pixels, cost: .copy, summary: "round the corners: a[|b],r,g,b[,transparent]",
                  action: .pixels { input in
                      let (values, size) = (input.values, input.size)
                      guard case .radii(let horizontal, _) = values[0], horizontal > 0 else { return nil }
                      return (RoundCornerTransformer(cornerRadius: Double(horizontal)), size)
                  }),
    ]
}
