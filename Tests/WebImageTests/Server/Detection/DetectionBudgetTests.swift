import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

private let cascades = CascadeLibrary.standardDirectory
private let haveCascades = FileManager.default.fileExists(atPath: cascades.appendingPathComponent("haarcascade_eye.xml").path)

/// The astronaut (scikit-image) at `side` px: her face is at about a third of the width, near the top.
private func astronaut(side: Int) throws -> Image {
    let image = try ImageCodersManager.shared.decode(try Fixtures.data("detection-astronaut-200.jpg"))
    return try #require(ResizingTransformer(size: PixelSize(width: side, height: side), scaleMode: .fill).transform(image, forKey: ""))
}

/// A cascade file of one stage of one stump whose right child is `child`, and one feature rectangle.
private func cascadeXML(child: String, rect: String = "0 0 1 1 1.") -> [UInt8] {
    Array("""
    <opencv_storage><cascade><featureType>HAAR</featureType><stageType>BOOST</stageType><width>4</width><height>4</height>
    <features><_><rects><_>\(rect)</_></rects></_></features>
    <stages><_><stageThreshold>0</stageThreshold><weakClassifiers><_>
    <internalNodes>0 \(child) 0 0.5</internalNodes><leafValues>1 2</leafValues></_></weakClassifiers></_></stages>
    </cascade></opencv_storage>
    """.utf8)
}

@Suite("Detection: budgets, caching and where points apply")
struct DetectionBudgetTests {
    @Test("red_eye runs once a URL: a repeat adds no step")
    func redEyeOnce() throws {
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/300x200/smart/filters:red_eye():red_eye():red_eye()/a.jpg"))
        let steps = processor.steps(decoded: PixelSize(width: 600, height: 400), oriented: false, source: PixelSize(width: 600, height: 400))
        #expect(steps.filter { $0.name == "red_eye" }.count == 1)
    }

    @Test("red_eye's planned work is its detection's time budget, once, whatever the frame count")
    func redEyeCost() throws {
        let size = PixelSize(width: 300, height: 200)
        let cost = RedEyeTransformer.cost(for: size, timeBudget: .seconds(1))
        let pixels = 300 * 200
        let one = cost.pixelPasses(for: size, frames: 1), hundred = cost.pixelPasses(for: size, frames: 100)
        // A second of detection at the work cap's rate, plus the per-frame copy.
        #expect(one >= RedEyeTransformer.passesPerSecond && one < RedEyeTransformer.passesPerSecond + 3 * pixels)
        #expect(hundred - one == 99 * cost.passes * pixels)
        // The same second whatever the image's size.
        let large = RedEyeTransformer.cost(for: PixelSize(width: 3000, height: 2000), timeBudget: .seconds(1))
        #expect(large.pixelPasses(for: PixelSize(width: 3000, height: 2000), frames: 1) < RedEyeTransformer.passesPerSecond + 3 * 6_000_000)
        // The plan's step carries it, so a cap below a second of work refuses the variant before any work.
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/300x200/smart/filters:red_eye()/a.jpg"))
        let step = try #require(processor.steps(decoded: size, oriented: false, source: size).first { $0.name == "red_eye" })
        #expect(step.cost.pixelPasses(for: size, frames: 1) >= RedEyeTransformer.passesPerSecond)
    }

    @Test("red_eye finds the eyes on the first frame and fixes every frame in those boxes", .enabled(if: haveCascades))
    func redEyeFirstFrame() async throws {
        let first = try astronaut(side: 600)
        let faces = try #require(CascadeLibrary.shared.cascade(named: "haarcascade_frontalface_alt.xml"))
        let eyeCascade = try #require(CascadeLibrary.shared.cascade(named: "haarcascade_eye.xml"))
        // Seconds of detection in a debug build: on a thread of its own, not the specs' shared pool.
        let eyes = try await onOwnThread {
            RedEyeTransformer.eyes(in: first.bitmap, faces: faces, eyes: eyeCascade, deadline: .now + .seconds(TestTiming.seconds(30)))
        }
        let eye = try #require(eyes.first)
        // The second frame has no face: grey, with a red square in the middle of the first frame's first eye.
        var pixels = [UInt8](repeating: 100, count: 600 * 600 * 4)
        let (cx, cy) = (eye.x + eye.width / 2, eye.y + eye.height / 2)
        for y in (cy - 2)...(cy + 2) { for x in (cx - 2)...(cx + 2) { let p = (y * 600 + x) * 4; pixels[p] = 220; pixels[p + 1] = 30; pixels[p + 2] = 50 } }
        let second = ImageFrame(bitmap: Bitmap(width: 600, height: 600, pixels: pixels), duration: 0.1)
        let animated = Image(frames: [ImageFrame(bitmap: first.bitmap, duration: 0.1), second])
        var patient = SmartDetector.Configuration()
        patient.timeBudget = .seconds(TestTiming.seconds(30))
        let detector = SmartDetector(configuration: patient)
        let transformed = try await onOwnThread { RedEyeTransformer(detector: detector).transform(animated, forKey: "") }
        let fixed = try #require(transformed)
        let p = (cy * 600 + cx) * 4
        #expect(Array(fixed.frames[1].bitmap.pixels[p..<p + 3]) == [40, 40, 40])
        #expect(Array(fixed.frames[1].bitmap.pixels[0..<3]) == [100, 100, 100])
    }

    @Test("red_eye reads the cascades of its pipeline's detector; a detector changes nothing process-wide")
    func redEyeUsesItsDetector() throws {
        var elsewhere = SmartDetector.Configuration()
        elsewhere.cascadeDirectory = URL(fileURLWithPath: "/nonexistent/cascades")
        let detector = SmartDetector(configuration: elsewhere)
        let path = try ThumborPath(parsing: "unsafe/300x200/smart/filters:red_eye()/a.jpg")
        let size = PixelSize(width: 300, height: 200)
        let step = try #require(ThumborProcessor(path: path, smartDetector: detector).steps(decoded: size, oriented: false, source: size).first { $0.name == "red_eye" })
        #expect((step.transformer as? RedEyeTransformer)?.directory == elsewhere.cascadeDirectory)
        let standard = try #require(ThumborProcessor(path: path).steps(decoded: size, oriented: false, source: size).first { $0.name == "red_eye" })
        #expect((standard.transformer as? RedEyeTransformer)?.directory == CascadeLibrary.standardDirectory)
    }

    @Test("a thumbnail-sized decode's detection is not kept for the source; a full-size one is")
    func smallDecodeNotCached() async throws {
        // A detection past its budget is never kept: the budget must outlast a slow (sanitised) run.
        var patient = SmartDetector.Configuration()
        patient.timeBudget = .seconds(TestTiming.seconds(30))
        let detector = SmartDetector(configuration: patient)
        let source = PixelSize(width: 600, height: 300)
        let small = Image(frames: [ImageFrame(bitmap: Bitmap(width: 20, height: 10, pixels: [UInt8](repeating: 90, count: 20 * 10 * 4)))])
        _ = await detector.focalPoints(in: small, sourceKey: "s", sourceSize: source)
        #expect(detector.cache.count == 0)
        let full = Image(frames: [ImageFrame(bitmap: Bitmap(width: 600, height: 300, pixels: [UInt8](repeating: 90, count: 600 * 300 * 4)))])
        _ = await detector.focalPoints(in: full, sourceKey: "s", sourceSize: source)
        #expect(detector.cache.count == 1)
        // A copy as large as the configured side stands for a larger source.
        #expect(detector.isRepresentative(GrayImage(width: 800, height: 400, pixels: [UInt8](repeating: 0, count: 320_000)), of: PixelSize(width: 4000, height: 2000)))
        #expect(!detector.isRepresentative(GrayImage(width: 400, height: 200, pixels: [UInt8](repeating: 0, count: 80_000)), of: PixelSize(width: 4000, height: 2000)))
    }

    @Test("meta/'s crop is the one the focal points placed")
    func metaCropFollowsPoints() throws {
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/meta/150x300/smart/a.jpg"))
        let source = PixelSize(width: 600, height: 300)
        let face = FocalPoint.square(left: 446, top: 60, width: 41, height: 41, origin: .faceDetection)
        let placed = processor.geometry(forSource: source, focalPoints: [face]).region
        #expect(placed.x != 225)
        #expect(processor.metaOperations(forSource: source, focalPoints: [face]).first == .crop(placed))
        let variant = Image(frames: [ImageFrame(bitmap: Bitmap(width: 150, height: 300, pixels: [UInt8](repeating: 90, count: 150 * 300 * 4)))])
        let document = processor.metaDocument(of: variant, source: source, frames: 1, detected: [face])
        #expect(document.thumbor.operations.first == .crop(placed))
        #expect(document.thumbor.focal_points.first?.origin == FocalPoint.Origin.faceDetection.rawValue)
    }

    @Test("with trim, focal() points move with the trimmed border as detected ones do")
    func trimMovesFocal() throws {
        // 40 white columns (trimmed), then 1000×300 whose red is a quarter of its x past the border.
        let (width, height) = (1040, 300)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height { for x in 40..<width { let p = (y * width + x) * 4; pixels[p] = UInt8((x - 40) / 4); pixels[p + 1] = 0; pixels[p + 2] = 0 } }
        let image = Image(frames: [ImageFrame(bitmap: Bitmap(width: width, height: height, pixels: pixels))])
        // The focal box 440...500 of the source is 400...460 of the trimmed image: centre 430, crop from 280.
        let processor = ThumborProcessor(path: try ThumborPath(parsing: "unsafe/trim/100x100/filters:focal(440x50:500x110)/a.jpg"))
        let variant = try #require(try processor.process(image))
        #expect(variant.pixelSize == PixelSize(width: 100, height: 100))
        #expect(abs(Int(variant.bitmap.pixels[0]) - 280 / 4) <= 1, "\(variant.bitmap.pixels[0])")
    }

    @Test("a cascade whose child index is Int32.min, or whose rectangle's sums overflow, is malformed, never a trap")
    func hostileCascadeNumbers() throws {
        #expect(throws: Never.self) { try Cascade(xml: cascadeXML(child: "-1")) }
        #expect(throws: CascadeError.malformed("a tree node pointing outside its tree")) { try Cascade(xml: cascadeXML(child: "-2147483648")) }
        #expect(throws: CascadeError.malformed("a tree node pointing outside its tree")) { try Cascade(xml: cascadeXML(child: "-3")) }
        let huge = "4611686018427387904"
        #expect(throws: CascadeError.self) { try Cascade(xml: cascadeXML(child: "-1", rect: "\(huge) 0 \(huge) 1 1.")) }
    }
}
