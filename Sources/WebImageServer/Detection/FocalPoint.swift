/// A point the crop should keep, as thumbor's `FocalPoint`: a centre, the size of what was found
/// there, a weight (a square's weight is its area, so a big face pulls harder than a small one;
/// a corner weighs 1) and where it came from. The crop centres on the weighted mean of them all.
public struct FocalPoint: Sendable, Hashable, Codable {
    /// Where a point came from, spelt as thumbor's `origin` in `meta/` JSON.
    public enum Origin: String, Sendable, Hashable, Codable {
        /// A corner found by the feature detector (thumbor gives these the default origin).
        case alignment
        case faceDetection = "Face Detection"
        /// `focal(LxT:RxB)`.
        case explicit = "Explicit"
        /// `extract_focal()`: the crop box of the thumbor URL that was the source.
        case extraction = "Original Extraction"
    }

    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var weight: Double
    public var origin: Origin

    public init(x: Double, y: Double, width: Double = 1, height: Double = 1, weight: Double = 1, origin: Origin = .alignment) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.weight = weight
        self.origin = origin
    }

    /// thumbor's `FocalPoint.from_square`: the square's centre (integer halves, as thumbor's
    /// `//`), weighted by its area.
    public static func square(left: Double, top: Double, width: Double, height: Double, origin: Origin) -> FocalPoint {
        FocalPoint(x: (left + (width / 2).rounded(.down)).rounded(.towardZero), y: (top + (height / 2).rounded(.down)).rounded(.towardZero),
                   width: width, height: height, weight: width * height, origin: origin)
    }

    /// Whether the weight is the area (a square), so it scales with the picture.
    var weighsByArea: Bool { origin != .alignment }

    /// This point on a picture scaled by `sx` × `sy` (a square's weight scales with its area).
    public func scaled(x sx: Double, y sy: Double) -> FocalPoint {
        FocalPoint(x: x * sx, y: y * sy, width: width * sx, height: height * sy,
                   weight: weighsByArea ? weight * sx * sy : weight, origin: origin)
    }

    /// This point moved by (`dx`, `dy`).
    public func offset(dx: Double, dy: Double) -> FocalPoint {
        var moved = self
        moved.x += dx
        moved.y += dy
        return moved
    }

    /// thumbor's `get_center_of_mass`: the weighted mean, floored; nil for no weight at all.
    static func centreOfMass(_ points: [FocalPoint]) -> (x: Double, y: Double)? {
        let total = points.reduce(0) { $0 + $1.weight }
        guard total > 0, total.isFinite else { return nil }
        let x = points.reduce(0) { $0 + $1.x * $1.weight }, y = points.reduce(0) { $0 + $1.y * $1.weight }
        return ((x / total).rounded(.down), (y / total).rounded(.down))
    }
}
