import Foundation
import WebImage

/// thumbor's `red_eye()`: in every face (the face cascade, as `smart` finds them), eyes are
/// found with `haarcascade_eye.xml` (scale factor 1.2, 3 neighbours, at least 20×20); in each eye
/// the pixels much redder than their green and blue (red > 2 × (green + blue) / 2 and red > 60),
/// the largest connected patch of them grown by a pixel, become the grey of that mean. It runs on
/// the variant (thumbor reuses the source's face boxes on the resized image). The eyes are found
/// once, on the first frame, within one time budget for the whole request, and every frame is
/// fixed in those boxes. Without the cascade files, or past the budget, the image is left as it is.
struct RedEyeTransformer: ImageTransformer {
    /// Per frame: the copy and the scan of the eyes' boxes; scratch: the grey copy (1), its
    /// integral tables (8), a scaled copy (1), the mask (1).
    static let cost = FilterCost(scratchBytesPerPixel: 11, makesBitmap: true, passes: 2)
    /// The server's filter work per second, as ``ImageServerConfiguration/maxRequestWork`` counts it.
    static let passesPerSecond = 2_000_000_000

    /// The cascades' library and directory and the time budget: the pipeline's own detector's.
    let library: CascadeLibrary
    let directory: URL
    let faceCascade: String
    let timeBudget: Duration

    init(detector: SmartDetector?) {
        let configuration = detector?.configuration ?? SmartDetector.Configuration()
        library = detector?.library ?? CascadeLibrary.shared
        directory = configuration.cascadeDirectory
        faceCascade = configuration.faceCascade
        timeBudget = configuration.timeBudget
    }

    /// ``cost`` and the detection on an image of `size`: the whole time budget, in passes over
    /// one frame of it (counted once, whatever the frame count).
    static func cost(for size: PixelSize, timeBudget: Duration) -> FilterCost {
        let pixels = max(1, size.width.multipliedReportingOverflow(by: size.height).overflow ? Int.max : size.width * size.height)
        let work = max(0, min(Double(Int.max / 2), timeBudget / .seconds(1) * Double(passesPerSecond)))
        var cost = cost
        cost.passesOnce = (Int(work) + pixels - 1) / pixels
        return cost
    }

    var transformerKey: String { "RedEyeTransformer" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        guard let first = image.frames.first,
              let faces = library.cascade(named: faceCascade, in: directory),
              let eyes = library.cascade(named: "haarcascade_eye.xml", in: directory) else { return image }
        let boxes = Self.eyes(in: first.bitmap, faces: faces, eyes: eyes, deadline: .now + timeBudget)
        guard !boxes.isEmpty else { return image }
        let frames = image.frames.map { frame -> ImageFrame in
            let bitmap = frame.bitmap
            var pixels = bitmap.pixels
            for eye in boxes {
                Self.removeRed(in: &pixels, stride: bitmap.bytesPerRow, size: (bitmap.width, bitmap.height), x: eye.x, y: eye.y, width: eye.width, height: eye.height)
            }
            return ImageFrame(bitmap: Bitmap(width: bitmap.width, height: bitmap.height, pixels: pixels), duration: frame.duration)
        }
        return Image(frames: frames, loopCount: image.loopCount, scale: image.scale, orientation: image.orientation,
                     format: image.format, originalData: nil, hasAlpha: image.hasAlpha, colorProfile: image.colorProfile)
    }

    /// The eyes' boxes of `bitmap`'s faces, in its pixels; none past `deadline`.
    static func eyes(in bitmap: Bitmap, faces: Cascade, eyes: Cascade, deadline: ContinuousClock.Instant) -> [CascadeDetector.Hit] {
        let whole = Image(frames: [ImageFrame(bitmap: bitmap, duration: 0)], loopCount: 0, scale: 1, orientation: .up,
                          format: .png, originalData: nil, hasAlpha: true, colorProfile: nil)
        let gray = GrayImage(whole, longestSide: max(bitmap.width, bitmap.height))
        guard let found = try? SmartDetector.faces(in: gray, cascade: faces, deadline: deadline) else { return [] }
        var boxes: [CascadeDetector.Hit] = []
        for face in found {
            // The face's box (the point is its centre, raised for the hair like thumbor's).
            let left = Int(face.x - face.width / 2), top = Int(face.y - face.height / 2)
            let region = gray.cropped(x: left, y: top, width: Int(face.width), height: Int(face.height))
            guard let hits = try? CascadeDetector(cascade: eyes).detect(in: region, scaleFactor: 1.2, minNeighbors: 3,
                                                                       minSize: (20, 20), deadline: deadline) else { return [] }
            boxes += hits.map { CascadeDetector.Hit(x: max(0, left) + $0.x, y: max(0, top) + $0.y, width: $0.width, height: $0.height) }
        }
        return boxes
    }

    /// The red patch of one eye's box greyed.
    static func removeRed(in pixels: inout [UInt8], stride: Int, size: (width: Int, height: Int), x: Int, y: Int, width: Int, height: Int) {
        let (w, h) = (min(width, size.width - x), min(height, size.height - y))
        guard w > 0, h > 0, x >= 0, y >= 0 else { return }
        var mask = [Bool](repeating: false, count: w * h), mean = [UInt8](repeating: 0, count: w * h)
        for row in 0..<h {
            for column in 0..<w {
                let p = (y + row) * stride + (x + column) * 4
                let (r, g, b) = (Int(pixels[p]), Int(pixels[p + 1]), Int(pixels[p + 2]))
                let m = min(255, g + b) / 2  // OpenCV's saturating add, then halved
                mean[row * w + column] = UInt8(m)
                mask[row * w + column] = Double(r) > 2 * Double(m) && r > 60
            }
        }
        let patch = largestPatch(mask, width: w, height: h)
        guard !patch.isEmpty else { return }
        var grown = [Bool](repeating: false, count: w * h)
        for index in patch {
            let (px, py) = (index % w, index / w)
            for ny in max(0, py - 1)...min(h - 1, py + 1) {
                for nx in max(0, px - 1)...min(w - 1, px + 1) { grown[ny * w + nx] = true }
            }
        }
        for index in grown.indices where grown[index] {
            let p = (y + index / w) * stride + (x + index % w) * 4
            let m = mean[index]
            pixels[p] = m
            pixels[p + 1] = m
            pixels[p + 2] = m
        }
    }

    /// The indices of the largest 8-connected patch of `mask`.
    static func largestPatch(_ mask: [Bool], width: Int, height: Int) -> [Int] {
        var seen = [Bool](repeating: false, count: mask.count)
        var best: [Int] = []
        for start in mask.indices where mask[start] && !seen[start] {
            var patch: [Int] = [], stack = [start]
            seen[start] = true
            while let index = stack.popLast() {
                patch.append(index)
                let (px, py) = (index % width, index / width)
                for ny in max(0, py - 1)...min(height - 1, py + 1) {
                    for nx in max(0, px - 1)...min(width - 1, px + 1) where mask[ny * width + nx] && !seen[ny * width + nx] {
                        seen[ny * width + nx] = true
                        stack.append(ny * width + nx)
                    }
                }
            }
            if patch.count > best.count { best = patch }
        }
        return best
    }
}
