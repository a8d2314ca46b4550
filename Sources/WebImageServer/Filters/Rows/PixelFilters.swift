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
    ] + colorRows

    /// thumbor's colour filters (`ext/filters/_*.c`), with its arithmetic; each reads the pixels
    /// as straight RGBA, as thumbor's PIL engine does, and keeps alpha unless it says otherwise.
    static let colorRows: [FilterRow] = [
        FilterRow("brightness", [.number], kind: .pixels, cost: .copy, summary: "add amount % of 255 to every channel (−100…100)",
                  action: .pixels { input in
                      guard let amount = input.values[0].integer, amount != 0 else { return nil }
                      return (ChannelLookupTransformer(filter: "brightness(\(amount))", tables: ColorAdjustments.brightness(amount)), input.size)
                  }),
        FilterRow("contrast", [.number], kind: .pixels, cost: .copy, summary: "scale channels about 128 by ((amount+100)²/100) %",
                  action: .pixels { input in
                      guard let amount = input.values[0].integer, amount != 0 else { return nil }
                      return (ChannelLookupTransformer(filter: "contrast(\(amount))", tables: ColorAdjustments.contrast(amount)), input.size)
                  }),
        FilterRow("rgb", [.number, .number, .number], kind: .pixels, cost: .copy, summary: "brightness per channel: r,g,b in %",
                  action: .pixels { input in
                      guard let r = input.values[0].integer, let g = input.values[1].integer, let b = input.values[2].integer,
                            (r, g, b) != (0, 0, 0) else { return nil }
                      let tables = ColorAdjustments.rgb(red: r, green: g, blue: b)
                      return (ChannelLookupTransformer(filter: "rgb(\(r),\(g),\(b))", tables: tables), input.size)
                  }),
        FilterRow("colorize", [.positiveNumber, .positiveNumber, .positiveNumber, .string], kind: .pixels, cost: .copy,
                  summary: "blend each channel toward rrggbb by r%,g%,b%",
                  action: .pixels { input in
                      let values = input.values
                      guard let r = values[0].integer, let g = values[1].integer, let b = values[2].integer,
                            let text = values[3].string, let fill = ColorAdjustments.RGB(hex: unquoted(text)) else { return nil }
                      let tables = ColorAdjustments.colorize(percentages: (r, g, b), fill: fill)
                      return (ChannelLookupTransformer(filter: "colorize(\(r),\(g),\(b),\(fill))", tables: tables), input.size)
                  }),
        FilterRow("curve", [.curve, .curve, .curve, .curve], kind: .pixels, cost: .copy,
                  summary: "spline curves [(x,y),…] for all channels, then red, green, blue",
                  action: .pixels { input in
                      let lists = input.values.compactMap { value -> [CurvePoint]? in if case .curve(let points) = value { points } else { nil } }
                      guard lists.count == 4 else { return nil }
                      let tables = Curve.tables(all: lists[0], red: lists[1], green: lists[2], blue: lists[3])
                      return (ChannelLookupTransformer(filter: "curve(\(lists))", tables: tables), input.size)
                  }),
        FilterRow("equalize", kind: .pixels, cost: FilterCost(makesBitmap: true, passes: 2),
                  summary: "histogram equalisation of each channel",
                  action: .pixels { input in (EqualizeTransformer(), input.size) }),
        // No seed is seed 1 (thumbor's is the process's random state), so one URL always makes the same bytes.
        FilterRow("noise", [.positiveNumber, .positiveNumber], required: 1, kind: .pixels, cost: .copy,
                  summary: "add random −amount/2…amount/2 to each pixel; optional seed",
                  action: .pixels { input in
                      guard let amount = input.values[0].integer, amount > 0 else { return nil }
                      let seed = input.values.count > 1 ? input.values[1].integer ?? 0 : 0
                      return (NoiseTransformer(amount: amount, seed: UInt32(clamping: seed)), input.size)
                  }),
        FilterRow("saturation", [.decimal], kind: .pixels, cost: .copy, summary: "scale saturation: 0 grey, 1 unchanged, 2 double",
                  action: .pixels { input in
                      guard let change = input.values[0].number, change != 1 else { return nil }
                      return (SaturationTransformer(change: Float(change)), input.size)
                  }),
        // Three float planes (a channel and its two low passes); five levels of three passes, per channel.
        FilterRow("sharpen", [.decimal, .decimal, .boolean], kind: .pixels, cost: sharpenCost(luminanceOnly: false),
                  costFor: { input in sharpenCost(luminanceOnly: input.values[2].boolean ?? false) },
                  summary: "wavelet sharpen: amount, radius, luminance only",
                  action: .pixels { input in
                      let values = input.values
                      guard let amount = values[0].number, let radius = values[1].number, let luminance = values[2].boolean,
                            amount != 0 else { return nil }
                      return (SharpenTransformer(amount: amount, radius: radius, luminanceOnly: luminance), input.size)
                  }),
        FilterRow("convolution", [.kernel, .positiveNumber, .boolean], required: 2, kind: .pixels,
                  cost: convolutionCost(terms: ConvolutionKernel.maximumTerms, rows: 1, height: 1),
                  costFor: { input in
                      guard case .kernel(let terms) = input.values[0], let columns = input.values[1].integer, columns > 0 else {
                          return convolutionCost(terms: ConvolutionKernel.maximumTerms, rows: 1, height: 1)
                      }
                      return convolutionCost(terms: terms.count, rows: terms.count / columns, height: input.size.height)
                  },
                  summary: "convolve with a kernel: terms a;b;… (odd count, at most 25 × 25), columns, normalise (default true)",
                  action: .pixels { input in
                      let values = input.values
                      guard case .kernel(let terms) = values[0], let columns = values[1].integer,
                            let kernel = ConvolutionKernel(terms: terms, columns: columns,
                                                           normalized: values.count > 2 ? values[2].boolean ?? true : true)
                      else { return nil }
                      return (ConvolutionTransformer(kernel: kernel), input.size)
                  }),
        FilterRow("background_color", [.string], kind: .pixels, cost: .copy,
                  summary: "lay the image over a colour (name, rgb, rrggbb or transparent)",
                  action: .pixels { input in
                      guard let color = input.values[0].string.flatMap({ ThumborColor.parse($0) }) else { return nil }
                      return (BackgroundColorTransformer(color: color), input.size)
                  }),
    ]

    static func sharpenCost(luminanceOnly: Bool) -> FilterCost {
        FilterCost(scratchBytesPerPixel: 12, makesBitmap: true, passes: 2 + SharpenTransformer.levels * 3 * (luminanceOnly ? 1 : 3))
    }

    /// A pass per kernel term, over a copy of the source (4 bytes a pixel) and its rows in the
    /// kernel's window as doubles (32 bytes a pixel of `min(rows, height)` rows; their edge
    /// padding, at most 32 bytes a term, is left out).
    static func convolutionCost(terms: Int, rows: Int, height: Int) -> FilterCost {
        let windowRows = max(1, min(rows, height))
        let height = max(1, height)
        return FilterCost(scratchBytesPerPixel: 4 + (32 * windowRows + height - 1) / height, makesBitmap: true, passes: 1 + terms)
    }

    /// thumbor's `BaseFilter.String` drops one pair of single quotes around the text.
    static func unquoted(_ text: String) -> String {
        text.count > 2 && text.hasPrefix("'") && text.hasSuffix("'") ? String(text.dropFirst().dropLast()) : text
    }
}
