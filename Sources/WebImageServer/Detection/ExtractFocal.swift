extension ThumborPath {
    /// How deep `extract_focal()` looks through thumbor URLs nested in one another (thumbor's `MAX_LEVEL`).
    static let extractFocalLevels = 10

    /// thumbor's `extract_focal()`, resolved before the source is loaded: when the source is
    /// itself a thumbor URL (`host/unsafe/LxT:RxB/…/image`, nested up to ten deep) with a crop
    /// box, the path's source becomes that URL's image, and the filter records the box
    /// (`extract_focal(LxT:RxB)`) — a focal point on the original image instead of a crop of a
    /// crop. Any other path, or a source that is not such a URL, is returned as it is. The new
    /// source is loaded like any other (every address check applies).
    public func resolvingExtractFocal() -> ThumborPath {
        guard let index = filters.firstIndex(where: { $0.name == "extract_focal" && $0.arguments.isEmpty }),
              let (image, box) = Self.extractFocal(from: source) else { return self }
        var resolved = self
        resolved.source = image
        resolved.filters[index].arguments = ["\(box.left)x\(box.top):\(box.right)x\(box.bottom)"]
        return resolved
    }

    /// The innermost image and the first crop box found, reading `source` as thumbor URLs.
    static func extractFocal(from source: String) -> (image: String, box: CropBox)? {
        var url = source
        for _ in 0..<extractFocalLevels {
            // thumbor's `^(https?://)?.*?/`: the scheme and host go.
            var rest = Substring(url)
            if rest.hasPrefix("http://") { rest = rest.dropFirst(7) } else if rest.hasPrefix("https://") { rest = rest.dropFirst(8) }
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            guard let nested = try? ThumborPath(parsing: String(rest[rest.index(after: slash)...]), decodingSource: false) else { return nil }
            if let box = nested.crop, box.left >= 0, box.top >= 0, box.right >= 0, box.bottom >= 0 { return (nested.source, box) }
            url = nested.source
        }
        return nil
    }
}
