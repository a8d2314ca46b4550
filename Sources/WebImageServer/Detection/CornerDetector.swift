/// Shi–Tomasi corners, as OpenCV's `goodFeaturesToTrack` finds them with thumbor's parameters:
/// the smaller eigenvalue of each pixel's gradient covariance over a 3×3 block (3×3 Sobel
/// derivatives, mirrored edges), values under `qualityLevel` × the strongest dropped, local maxima
/// of a 3×3 neighbourhood kept (not on the outermost pixels), strongest first, no two closer than
/// `minDistance`, at most `maxCorners`.
public struct CornerDetector: Sendable {
    public var maxCorners: Int
    public var qualityLevel: Float
    public var minDistance: Float

    /// thumbor's feature detector: `maxCorners=20, qualityLevel=0.04, minDistance=1.0`.
    public init(maxCorners: Int = 20, qualityLevel: Float = 0.04, minDistance: Float = 1) {
        self.maxCorners = maxCorners
        self.qualityLevel = qualityLevel
        self.minDistance = minDistance
    }

    /// The corners of `image`, strongest first, in its pixels. Throws once `deadline` has passed.
    public func corners(in image: GrayImage, deadline: ContinuousClock.Instant? = nil) throws(DetectionTimeout) -> [(x: Int, y: Int)] {
        let (w, h) = (image.width, image.height)
        guard w >= 3, h >= 3, maxCorners > 0 else { return [] }
        let eigen = try minimumEigenvalues(image, deadline: deadline)
        let strongest = eigen.max() ?? 0
        guard strongest > 0 else { return [] }
        let floor = strongest * qualityLevel
        var candidates: [(value: Float, index: Int)] = []
        for y in 1..<(h - 1) {
            try DetectionTimeout.check(deadline)
            for x in 1..<(w - 1) {
                let value = eigen[y * w + x]
                guard value > floor else { continue }
                var isMaximum = true
                neighbours: for ny in (y - 1)...(y + 1) {
                    for nx in (x - 1)...(x + 1) where eigen[ny * w + nx] > value && eigen[ny * w + nx] > floor {
                        isMaximum = false
                        break neighbours
                    }
                }
                if isMaximum { candidates.append((value, y * w + x)) }
            }
        }
        // OpenCV breaks ties by address, the later pixel first.
        candidates.sort { $0.value != $1.value ? $0.value > $1.value : $0.index > $1.index }
        var kept: [(x: Int, y: Int)] = []
        let minimum = minDistance * minDistance
        for candidate in candidates {
            let point = (x: candidate.index % w, y: candidate.index / w)
            if minDistance > 0, kept.contains(where: { Float(($0.x - point.x) * ($0.x - point.x) + ($0.y - point.y) * ($0.y - point.y)) < minimum }) {
                continue
            }
            kept.append(point)
            if kept.count == maxCorners { break }
        }
        return kept
    }

    /// OpenCV's `cornerMinEigenVal(blockSize: 3, ksize: 3)` with its derivative scale.
    private func minimumEigenvalues(_ image: GrayImage, deadline: ContinuousClock.Instant?) throws(DetectionTimeout) -> [Float] {
        let (w, h) = (image.width, image.height)
        func mirror(_ i: Int, _ n: Int) -> Int { i < 0 ? -i : i >= n ? 2 * n - 2 - i : i }
        let scale: Float = 1.0 / (4 * 3 * 255)
        var xx = [Float](repeating: 0, count: w * h), xy = xx, yy = xx
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                let up = mirror(y - 1, h) * w, row = y * w, down = mirror(y + 1, h) * w
                for x in 0..<w {
                    let l = mirror(x - 1, w), r = mirror(x + 1, w)
                    func v(_ rowStart: Int, _ column: Int) -> Float { Float(p[rowStart + column]) }
                    let dx = ((v(up, r) - v(up, l)) + 2 * (v(row, r) - v(row, l)) + (v(down, r) - v(down, l))) * scale
                    let dy = ((v(down, l) - v(up, l)) + 2 * (v(down, x) - v(up, x)) + (v(down, r) - v(up, r))) * scale
                    xx[row + x] = dx * dx
                    xy[row + x] = dx * dy
                    yy[row + x] = dy * dy
                }
            }
        }
        try DetectionTimeout.check(deadline)
        var eigen = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            let (r0, r1, r2) = (mirror(y - 1, h) * w, y * w, mirror(y + 1, h) * w)
            for x in 0..<w {
                let (c0, c1, c2) = (mirror(x - 1, w), x, mirror(x + 1, w))
                func box(_ m: [Float]) -> Float {
                    m[r0 + c0] + m[r0 + c1] + m[r0 + c2] + m[r1 + c0] + m[r1 + c1] + m[r1 + c2] + m[r2 + c0] + m[r2 + c1] + m[r2 + c2]
                }
                let a = box(xx) * 0.5, b = box(xy), c = box(yy) * 0.5
                eigen[y * w + x] = (a + c) - ((a - c) * (a - c) + b * b).squareRoot()
            }
        }
        return eigen
    }
}
