/// How the stored pixels must be turned to display upright, from EXIF tag 0x0112.
///
/// WebImage never rotates pixels on decode (`--raw-rgba` is the stored orientation); a
/// transformer or the binding applies it when it draws.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    case up = 1
    case upMirrored = 2
    case down = 3
    case downMirrored = 4
    case leftMirrored = 5
    case right = 6
    case rightMirrored = 7
    case left = 8

    /// The orientation for an EXIF value; anything outside 1...8 reads as `.up`, as viewers do.
    public init(exifValue: Int) {
        self = ImageOrientation(rawValue: exifValue) ?? .up
    }

    public var exifValue: Int { rawValue }

    /// Whether displaying swaps width and height (rotated a quarter turn).
    public var swapsDimensions: Bool {
        switch self {
        case .leftMirrored, .right, .rightMirrored, .left: true
        default: false
        }
    }
}
