import WebImage

extension ThumborProcessor {
    /// The focal points of this variant as thumbor's `meta/` lists them (`focal_points`: x, y,
    /// width, height, z = weight, origin) and as its crop uses them: the `focal()` and
    /// `extract_focal()` points, then `detected` (from ``SmartDetector``, in the source's pixels),
    /// moved into the crop box's pixels (points outside it dropped); when none is left, the
    /// alignment's point (thumbor's `FocalPoint.from_alignment`).
    public func focalPoints(detected: [FocalPoint] = [], sourceSize: PixelSize) -> [FocalPoint] {
        let points = subjectPoints(detected: detected, sourceSize: sourceSize)
        guard points.isEmpty else { return points }
        let region = cropRegion(in: sourceSize)
        let fx: Double = switch path.horizontalAlign { case .left: 0; case .center: 0.5; case .right: 1 }
        let fy: Double = switch path.verticalAlign { case .top: 0; case .middle: 0.5; case .bottom: 1 }
        return [FocalPoint(x: (Double(region.width) * fx).rounded(.towardZero), y: (Double(region.height) * fy).rounded(.towardZero))]
    }

    /// The given and detected points in the crop box's pixels, without the alignment's fallback.
    func subjectPoints(detected: [FocalPoint], sourceSize: PixelSize) -> [FocalPoint] {
        let given = path.filters.compactMap(Self.givenPoint(_:))
        guard !given.isEmpty || !detected.isEmpty else { return [] }
        guard path.crop != nil else { return given + detected }
        let region = cropRegion(in: sourceSize)
        // thumbor's adjust_focal_points: the box's edges count as inside.
        return (given + detected).compactMap { point in
            guard point.x >= Double(region.x), point.x <= Double(region.x + region.width),
                  point.y >= Double(region.y), point.y <= Double(region.y + region.height) else { return nil }
            return point.offset(dx: -Double(region.x), dy: -Double(region.y))
        }
    }

    /// This processor without its `focal()`/`extract_focal()` points, and those points and
    /// `detected` (both in the untrimmed source's pixels) moved by the trim `rect`: what the
    /// trimmed image's geometry reads.
    func trimmedFocus(by rect: PixelRect, detected: [FocalPoint]) -> (ThumborProcessor, [FocalPoint]) {
        var without = path
        without.filters.removeAll { Self.givenPoint($0) != nil }
        let processor = ThumborProcessor(path: without, logger: logger, smartDetector: smartDetector)
        let points = path.filters.compactMap(Self.givenPoint(_:)) + detected
        return (processor, points.map { $0.offset(dx: -Double(rect.x), dy: -Double(rect.y)) })
    }

    /// The crop box clamped to the source (the whole source without one, or when it is empty).
    private func cropRegion(in source: PixelSize) -> PixelRect {
        ThumborGeometry(source: source, path: ThumborPath.cropOnly(path), upscale: false, noUpscale: false).region
    }

    /// `focal(LxT:RxB)` (thumbor's `(\d+)x(\d+):(\d+)x(\d+)`, matched at the start) or the box an
    /// `extract_focal()` was resolved to (``ThumborPath/resolvingExtractFocal()``); a box with no
    /// width or no height adds nothing, as thumbor's.
    static func givenPoint(_ filter: ThumborFilter) -> FocalPoint? {
        let origin: FocalPoint.Origin
        switch filter.name {
        case "focal": origin = .explicit
        case "extract_focal": origin = .extraction
        default: return nil
        }
        guard filter.arguments.count == 1, let box = focalBox(filter.arguments[0]) else { return nil }
        let (width, height) = (box.right - box.left, box.bottom - box.top)
        guard width != 0, height != 0 else { return nil }
        return .square(left: Double(box.left), top: Double(box.top), width: Double(width), height: Double(height), origin: origin)
    }

    static func focalBox(_ text: String) -> ThumborPath.CropBox? {
        var numbers: [Int] = []
        var rest = Substring(text)
        for separator in ["x", ":", "x", ""] {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= FilterArgument.maximumDigits, let value = Int(digits) else { return nil }
            numbers.append(value)
            rest = rest.dropFirst(digits.count)
            if !separator.isEmpty {
                guard rest.hasPrefix(separator) else { return nil }
                rest = rest.dropFirst()
            }
        }
        return ThumborPath.CropBox(left: numbers[0], top: numbers[1], right: numbers[2], bottom: numbers[3])
    }
}

extension ThumborPath {
    /// A path with only `path`'s crop box, full size: its geometry's region is the clamped box.
    static func cropOnly(_ path: ThumborPath) -> ThumborPath {
        var only = path
        only.fitIn = nil
        only.width = .pixels(0)
        only.height = .pixels(0)
        only.filters = []
        return only
    }
}
