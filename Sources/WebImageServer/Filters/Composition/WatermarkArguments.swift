import WebImage

/// `watermark(url,x,y,alpha[,w_ratio,h_ratio])`'s arguments by thumbor's grammar: x and y are
/// `-?\d+p?` (pixels, or a percentage of the image with `p`; a leading `-` counts from the right or
/// bottom, so `-0` is flush with it), `center` or `repeat`; alpha is `\d+` (the percentage of
/// opacity taken away); the ratios are `-?\d+` percent of the image's width and height that bound
/// the watermark's, or `none`.
struct WatermarkArguments: Sendable, Hashable {
    enum Position: Sendable, Hashable {
        /// Pixels from the left/top, or from the right/bottom.
        case pixels(Int, fromEnd: Bool)
        /// A percentage of the image's side, from the left/top or the right/bottom.
        case percent(Int, fromEnd: Bool)
        case center
        case repeating

        init?(_ text: String) {
            switch text {
            case "center": self = .center
            case "repeat": self = .repeating
            default:
                var body = Substring(text)
                let fromEnd = body.first == "-"
                if fromEnd { body = body.dropFirst() }
                let percent = body.last == "p"
                if percent { body = body.dropLast() }
                guard !body.isEmpty, body.count <= FilterArgument.maximumDigits,
                      body.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(body) else { return nil }
                self = percent ? .percent(value, fromEnd: fromEnd) : .pixels(value, fromEnd: fromEnd)
            }
        }
    }

    var url: String
    var x: Position
    var y: Position
    var alpha: Int
    /// Percent of the image's width (height) the watermark may take; nil for `none` (or 0, which
    /// thumbor reads as none).
    var widthRatio: Int?
    var heightRatio: Int?

    /// nil when the values do not match thumbor's grammar (the filter is then ignored, as thumbor ignores it).
    init?(_ values: [FilterValue]) {
        guard values.count >= 4, let url = values[0].string.flatMap(Self.unquoted),
              let x = values[1].string.flatMap(Position.init), let y = values[2].string.flatMap(Position.init),
              let alpha = values[3].integer, alpha >= 0 else { return nil }
        func ratio(_ index: Int) -> Int?? {
            guard index < values.count, let text = values[index].string, text != "none" else { return .some(nil) }
            guard let value = FilterArgument.number.parse(text)?.integer else { return nil }
            // A negative bound makes a negative size, which thumbor cannot draw: the filter is not applied.
            return value >= 0 ? .some(value == 0 ? nil : value) : nil
        }
        guard let widthRatio = ratio(4), let heightRatio = ratio(5) else { return nil }
        (self.url, self.x, self.y, self.alpha, self.widthRatio, self.heightRatio) = (url, x, y, alpha, widthRatio, heightRatio)
    }

    /// `BaseFilter.String`: one pair of single quotes around the text is taken off.
    static func unquoted(_ text: String) -> String? {
        let body = text.count >= 3 && text.hasPrefix("'") && text.hasSuffix("'") ? String(text.dropFirst().dropLast()) : text
        return body.isEmpty ? nil : body
    }

    /// thumbor's `calc_watermark_size`: the watermark scaled to fit the ratios' box (one ratio
    /// alone bounds one side and keeps the aspect), rounded as Python rounds; nil without ratios.
    /// Sides are capped (far past any image) so no conversion can trap; what shows is clipped anyway.
    func scaledSize(of mark: PixelSize, on image: PixelSize) -> PixelSize? {
        guard widthRatio != nil || heightRatio != nil, !mark.isEmpty else { return nil }
        let (markWidth, markHeight) = (Double(mark.width), Double(mark.height))
        var maxWidth = widthRatio.map { Double(image.width) * (Double($0) / 100) }
        var maxHeight = heightRatio.map { Double(image.height) * (Double($0) / 100) }
        if maxWidth == nil, let maxHeight { maxWidth = markWidth * maxHeight / markHeight }
        if maxHeight == nil, let maxWidth { maxHeight = markHeight * maxWidth / markWidth }
        guard let boxWidth = maxWidth, let boxHeight = maxHeight else { return nil }
        let (width, height): (Double, Double) = markWidth / boxWidth >= markHeight / boxHeight
            ? (boxWidth, markHeight * boxWidth / markWidth)
            : (markWidth * boxHeight / markHeight, boxHeight)
        func side(_ value: Double) -> Int {
            let rounded = value.rounded(.toNearestOrEven)
            return rounded.isFinite ? Int(min(max(rounded, 1), Self.maximumSide)) : 1
        }
        return PixelSize(width: side(width), height: side(height))
    }

    /// Far past any image a server makes; a watermark scaled beyond it shows the same.
    static let maximumSide = 1e12
}
