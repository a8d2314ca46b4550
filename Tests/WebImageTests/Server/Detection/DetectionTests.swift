import Foundation
import Synchronization
import Testing
@testable import WebImage
@testable import WebImageServer

private let cascades = CascadeLibrary.standardDirectory
private let haveCascades = FileManager.default.fileExists(atPath: cascades.appendingPathComponent("haarcascade_frontalface_alt.xml").path)

/// The astronaut (scikit-image), 200 px: OpenCV finds her face at (66, 24) 41×41.
private func astronaut() throws -> Image {
    try ImageCodersManager.shared.decode(try Fixtures.data("detection-astronaut-200.jpg"))
}

/// `image` pasted at `(x, y)` on a grey canvas.
private func canvas(_ image: Image, width: Int, height: Int, x: Int, y: Int) -> Image {
    var pixels = [UInt8](repeating: 128, count: width * height * 4)
    let bitmap = image.bitmap
    for row in 0..<bitmap.height where y + row < height {
        for column in 0..<bitmap.width where x + column < width {
            for c in 0..<4 { pixels[((y + row) * width + x + column) * 4 + c] = bitmap.pixels[row * bitmap.bytesPerRow + column * 4 + c] }
        }
    }
    return Image(frames: [ImageFrame(bitmap: Bitmap(width: width, height: height, pixels: pixels))])
}

@Suite("Detection", .onOwnThreads)
struct DetectionTests {
    @Test("the face cascade file parses: 22 stages on a 20×20 window", .enabled(if: haveCascades))
    func parsesCascade() throws {
        let cascade = try Cascade(contentsOf: cascades.appendingPathComponent("haarcascade_frontalface_alt.xml"))
        #expect(cascade.windowSize == (20, 20))
        #expect(cascade.stages.count == 22)
        #expect(cascade.stages[0].trees.count == 3)
        #expect(cascade.features.count > 1000)
        #expect(cascade.features.allSatisfy { (1...3).contains($0.count) })
    }

    @Test("malformed cascade text is an error, never a trap")
    func malformedCascade() {
        #expect(throws: CascadeError.self) { try Cascade(xml: Array("<opencv_storage><cascade>".utf8)) }
        #expect(throws: CascadeError.self) { try Cascade(xml: Array("<a></b>".utf8)) }
        #expect(throws: CascadeError.self) { try Cascade(xml: Array("<cascade><featureType>LBP</featureType></cascade>".utf8)) }
    }

    @Test("the astronaut's face is found where OpenCV finds it", .enabled(if: haveCascades))
    func findsFace() throws {
        let gray = GrayImage(try astronaut(), longestSide: 800)
        let cascade = try #require(CascadeLibrary.shared.cascade(named: "haarcascade_frontalface_alt.xml"))
        let hits = try CascadeDetector(cascade: cascade).detect(in: gray, scaleFactor: 1.2, minNeighbors: 4, minSize: (20, 20))
        #expect(hits.count == 1)
        let face = try #require(hits.first)
        #expect(abs(face.x - 66) <= 4 && abs(face.y - 24) <= 4 && abs(face.width - 41) <= 6)
    }

    @Test("corners of a checkerboard are found at its crossings")
    func checkerboardCorners() throws {
        // 48×48, squares of 16: the inner crossings are at 16 and 32 on each axis.
        var pixels = [UInt8](repeating: 0, count: 48 * 48)
        for y in 0..<48 { for x in 0..<48 where (x / 16 + y / 16) % 2 == 0 { pixels[y * 48 + x] = 255 } }
        let corners = try CornerDetector().corners(in: GrayImage(width: 48, height: 48, pixels: pixels))
        let crossings = [(16, 16), (16, 32), (32, 16), (32, 32)]
        #expect(!corners.isEmpty && corners.count <= 20)
        for corner in corners {
            #expect(crossings.contains { abs($0.0 - corner.x) <= 1 && abs($0.1 - corner.y) <= 1 }, "\(corner)")
        }
        for crossing in crossings {
            #expect(corners.contains { abs(crossing.0 - $0.x) <= 1 && abs(crossing.1 - $0.y) <= 1 }, "\(crossing)")
        }
    }

    @Test("smart keeps a face placed off-centre in the crop", .enabled(if: haveCascades))
    func smartCropKeepsFace() throws {
        // The face sits at x 446...487 of 600; a centred 150-wide crop would be 225...375.
        let source = canvas(try astronaut(), width: 600, height: 300, x: 380, y: 50)
        let detector = SmartDetector()
        let points = try detector.detect(in: source).map { $0.scaled(x: 600, y: 300) }
        #expect(points.count == 1 && points.first?.origin == .faceDetection)
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/150x300/smart/a.jpg"))
        let region = processor.geometry(forSource: PixelSize(width: 600, height: 300), focalPoints: points).region
        #expect(region.x <= 446 && region.x + region.width >= 487, "\(region)")
        let centred = processor.geometry(forSource: PixelSize(width: 600, height: 300)).region
        #expect(centred.x == 225)
    }

    @Test("focal() moves the crop onto its box, and the pixels follow")
    func focalMovesCrop() throws {
        // Left half blue, right half red; the focal box is on the right.
        var pixels = [UInt8](repeating: 255, count: 600 * 300 * 4)
        for i in 0..<(600 * 300) { let x = i % 600; pixels[i * 4] = x < 300 ? 0 : 255; pixels[i * 4 + 1] = 0; pixels[i * 4 + 2] = x < 300 ? 255 : 0 }
        let image = Image(frames: [ImageFrame(bitmap: Bitmap(width: 600, height: 300, pixels: pixels))])
        let focal = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/100x100/filters:focal(500x50:560x110)/a.jpg"))
        #expect(focal.geometry(forSource: PixelSize(width: 600, height: 300)).region.x == 300)
        let plain = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/100x100/a.jpg"))
        #expect(plain.geometry(forSource: PixelSize(width: 600, height: 300)).region.x == 150)
        let variant = try #require(try focal.process(image))
        #expect(Array(variant.bitmap.pixels[0..<3]) == [255, 0, 0])
        let points = focal.focalPoints(sourceSize: PixelSize(width: 600, height: 300))
        #expect(points == [FocalPoint(x: 530, y: 80, width: 60, height: 60, weight: 3600, origin: .explicit)])
    }

    @Test("without focal points, meta's point is the alignment's")
    func alignmentPoint() throws {
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/100x100/left/bottom/a.jpg"))
        #expect(processor.focalPoints(sourceSize: PixelSize(width: 600, height: 300)) == [FocalPoint(x: 0, y: 300)])
    }

    @Test("extract_focal() loads the nested URL's image and takes its crop box as the focal point")
    func extractFocal() throws {
        let path = try ThumborPath(parsing: "unsafe/300x200/filters:extract_focal()/thumbor.example/unsafe/100x150:300x200/https://example.com/img.jpg")
            .resolvingExtractFocal()
        #expect(path.source == "https://example.com/img.jpg")
        let points = ThumborProcessor(path: path).focalPoints(sourceSize: PixelSize(width: 1000, height: 1000))
        #expect(points == [FocalPoint(x: 200, y: 175, width: 200, height: 50, weight: 10_000, origin: .extraction)])
        let plain = try ThumborPath(parsing: "unsafe/filters:extract_focal()/example.com/a.jpg")
        #expect(plain.resolvingExtractFocal() == plain)
    }

    @Test("a detection past its time budget answers nothing and the crop falls back to the alignment")
    func timeBudget() async throws {
        var configuration = SmartDetector.Configuration()
        configuration.timeBudget = .zero
        let detector = SmartDetector(configuration: configuration)
        let source = canvas(try astronaut(), width: 600, height: 300, x: 380, y: 50)
        #expect(throws: DetectionTimeout.self) { try detector.detect(in: source, deadline: .now) }
        let points = await detector.focalPoints(in: source, sourceKey: "s", sourceSize: PixelSize(width: 600, height: 300))
        #expect(points.isEmpty)
        #expect(detector.cache.count == 0)
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/150x300/smart/a.jpg"))
        #expect(processor.geometry(forSource: PixelSize(width: 600, height: 300), focalPoints: points).region.x == 225)
    }

    @Test("without the cascade folder, features still give focal points")
    func missingCascades() throws {
        var configuration = SmartDetector.Configuration()
        configuration.cascadeDirectory = URL(fileURLWithPath: "/nonexistent/haarcascades")
        let detector = SmartDetector(configuration: configuration, library: CascadeLibrary())
        let points = try detector.detect(in: try astronaut())
        #expect(!points.isEmpty && points.count <= 20)
        #expect(points.allSatisfy { $0.origin == .alignment && $0.weight == 1 })
    }

    @Test("concurrent variants of one source detect once")
    func detectsOnce() async {
        let cache = DetectionCache(capacity: 8)
        let runs = DetectionCounter()
        await withTaskGroup(of: [FocalPoint]?.self) { group in
            for _ in 0..<10 {
                group.addTask { await cache.points(for: "source") { runs.increment(); return [FocalPoint(x: 0.5, y: 0.5)] } }
            }
            for await points in group { #expect(points == [FocalPoint(x: 0.5, y: 0.5)]) }
        }
        #expect(runs.value == 1)
    }

    @Test("red_eye greys the largest red patch of an eye's box")
    func redEyePatch() {
        // 10×10 grey with a red 4×4 square at (3, 3).
        var pixels = [UInt8](repeating: 100, count: 10 * 10 * 4)
        for y in 3..<7 { for x in 3..<7 { let p = (y * 10 + x) * 4; pixels[p] = 220; pixels[p + 1] = 30; pixels[p + 2] = 50 } }
        RedEyeTransformer.removeRed(in: &pixels, stride: 40, size: (10, 10), x: 0, y: 0, width: 10, height: 10)
        #expect(Array(pixels[(4 * 10 + 4) * 4..<(4 * 10 + 4) * 4 + 3]) == [40, 40, 40])
        #expect(Array(pixels[0..<3]) == [100, 100, 100])
    }
}

private final class DetectionCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
