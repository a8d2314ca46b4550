import Foundation
import Testing
import WebImage
import WebImageServer

/// Tools/harness/bench-detection's Swift half: runs only when WEBIMAGE_BENCH_DETECTION names a folder
/// of images, and prints one JSON line per image (faces, corners, milliseconds per detection).
@Suite("DetectionBenchmark")
struct DetectionBenchmark {
    static let folder = ProcessInfo.processInfo.environment["WEBIMAGE_BENCH_DETECTION"]

    @Test("time detection on the benchmark's images", .enabled(if: folder != nil))
    func run() throws {
        let folder = URL(fileURLWithPath: try #require(Self.folder))
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
        let library = CascadeLibrary.shared
        let cascade = try #require(library.cascade(named: "haarcascade_frontalface_alt.xml"))
        for name in names {
            let image = try ImageCodersManager.shared.decode(Data(contentsOf: folder.appendingPathComponent(name)))
            for side in [0, 1000, 800, 600] {
                let gray = GrayImage(image, longestSide: side == 0 ? max(image.width, image.height) : side)
                let scale = Double(max(image.width, image.height)) / Double(max(gray.width, gray.height))
                let minimum = max(20, min(gray.width, gray.height) / 15)
                var faces: [CascadeDetector.Hit] = []
                var corners: [(x: Int, y: Int)] = []
                let runs = 3
                let start = ContinuousClock.now
                for _ in 0..<runs {
                    let grayRun = GrayImage(image, longestSide: side == 0 ? max(image.width, image.height) : side)
                    faces = try CascadeDetector(cascade: cascade).detect(in: grayRun, scaleFactor: 1.2, minNeighbors: 4, minSize: (minimum, minimum))
                }
                let faceTime = (ContinuousClock.now - start) / runs
                let cornerStart = ContinuousClock.now
                for _ in 0..<runs { corners = try CornerDetector().corners(in: gray) }
                let cornerTime = (ContinuousClock.now - cornerStart) / runs
                func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
                let boxes = faces.map { "[\(Int(Double($0.x) * scale)),\(Int(Double($0.y) * scale)),\(Int(Double($0.width) * scale)),\(Int(Double($0.height) * scale))]" }
                print("BENCH {\"image\":\"\(name)\",\"side\":\(side),\"faces_ms\":\(ms(faceTime)),\"corners_ms\":\(ms(cornerTime)),\"faces\":[\(boxes.joined(separator: ","))],\"corners\":\(corners.count)}")
            }
        }
    }
}
