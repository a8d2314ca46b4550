import WebImage

extension FilterTable {
    /// Filters that add to the picture: padding, frames and watermarks. `watermark` and `frame`
    /// draw an image loaded as a source (``ThumborProcessor/overlaySources``).
    static let compositionRows: [FilterRow] = [
        // A background of the box; `blur` also shrinks, blurs and stretches the image (scratch besides the box).
        FilterRow("fill", [.string, .boolean], required: 1, kind: .pixels,
                  cost: fillBlurCost,
                  costFor: { input in input.values.first?.string == "blur" ? fillBlurCost : .copy },
                  summary: "pad to the request's box: a colour, auto (the mean colour), blur or transparent; fill_transparent merges",
                  action: .pixels { input in
                      guard let background = input.values[0].string.flatMap(FillTransformer.background(named:)) else { return nil }
                      let fillTransparent = input.values.count > 1 ? input.values[1].boolean ?? false : false
                      let box = FillTransformer.box(for: input.path, image: input.size)
                      return (FillTransformer(background: background, box: box, fillTransparent: fillTransparent), box)
                  }),
        // The image copied and merged into; the scaled watermark's visible part (at most the image) and the resampler's rows.
        FilterRow("watermark", [.string, .string, .string, .positiveNumber, .string, .string], required: 4, kind: .pixels,
                  cost: FilterCost(scratchBytesPerPixel: 8, makesBitmap: true, passes: 3),
                  summary: "merge an image over this one: url,x,y,alpha[,w_ratio,h_ratio] (x/y: pixels, negative from the far edge, Np percent, center, repeat)",
                  action: .pixels { input in
                      guard let arguments = WatermarkArguments(input.values) else { return nil }
                      return (WatermarkTransformer(arguments: arguments, mark: input.overlays[arguments.url]?.bitmap), input.size)
                  }),
        // The image padded by the nine-patch's content padding (known once it is decoded), every pixel drawn once.
        FilterRow("frame", [.string], kind: .pixels, cost: FilterCost(makesBitmap: true, passes: 4),
                  summary: "frame the image with a nine-patch image (url)",
                  action: .pixels { input in
                      guard let url = input.values[0].string.flatMap(WatermarkArguments.unquoted) else { return nil }
                      let frame = FrameTransformer(ninePatch: input.overlays[url].map { NinePatch(bitmap: $0.bitmap) }, url: url,
                                                   plannedPatch: input.overlaySizes[url])
                      return (frame, frame.size(for: input.size))
                  }),
    ]

    private static let fillBlurCost = FilterCost(scratchBytesPerPixel: 8, makesBitmap: true, passes: 3)

    /// The URL of the image `filter` draws (`watermark`, `frame`) as written, when its arguments parse.
    static func overlaySource(of filter: ThumborFilter) -> String? {
        guard let row = row(named: filter.name), let values = row.values(of: filter) else { return nil }
        switch filter.name {
        case "watermark": return WatermarkArguments(values)?.url
        case "frame": return values[0].string.flatMap(WatermarkArguments.unquoted)
        default: return nil
        }
    }
}

extension FillTransformer {
    /// `fill`'s first argument (thumbor's `[\w]+`): `auto`, `blur`, `transparent`, or a colour.
    static func background(named text: String) -> Background? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
        switch text.lowercased() {
        case "auto": return .mean
        case "blur": return .blur
        default: return ThumborColor.parse(text).map(Background.color)
        }
    }
}

extension ThumborProcessor {
    /// The most distinct images one request's filters may draw (more is a 400): each is a download and a decode.
    public static let maxOverlaySources = 4

    /// The images the filters draw (`watermark`, `frame`): their URLs as written, in order, each
    /// once — only filters whose arguments parse, so an ignored filter loads nothing. The server
    /// loads them as sources, with every check and limit the main source has.
    public var overlaySources: [String] {
        var seen = Set<String>()
        return path.filters.compactMap(FilterTable.overlaySource(of:)).filter { seen.insert($0).inserted }
    }
}
