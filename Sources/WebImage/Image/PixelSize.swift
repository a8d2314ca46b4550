/// A size in pixels. Images are measured in pixels; points are pixels divided by ``Image/scale``.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public static let zero = PixelSize(width: 0, height: 0)

    public var pixelCount: Int { width * height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public var description: String { "\(width)x\(height)" }

    /// Parses `"WxH"` (also `"W"` for a square), as the CLI's `--thumbnail` takes it.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2,
              let w = Int(parts[0]), let h = Int(parts.count == 2 ? parts[1] : parts[0]),
              w > 0, h > 0
        else { return nil }
        self.init(width: w, height: h)
    }
}
