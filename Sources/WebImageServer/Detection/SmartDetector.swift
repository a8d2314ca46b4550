import Foundation
import WebImage

/// thumbor's `smart` detection: faces first (a Haar cascade, thumbor's
/// `haarcascade_frontalface_alt.xml` with its parameters), and only when none is found the
/// strongest corners. It runs on a grey copy whose longer side is at most
/// ``Configuration/longestSide`` (thumbor's minimum face size is a fraction of the image, so the
/// result barely depends on the size; the scratch then stays small and fixed), within
/// ``Configuration/timeBudget`` — past it, detection gives up and the crop falls back to the
/// alignment, as thumbor's `IGNORE_SMART_ERRORS`. A source's points are kept by `DetectionCache`.
public final class SmartDetector: Sendable {
    public struct Configuration: Sendable {
        /// Where the cascade files are; without them faces are skipped and corners still run.
        public var cascadeDirectory: URL = CascadeLibrary.standardDirectory
        /// thumbor's `FACE_DETECTOR_CASCADE_FILE`.
        public var faceCascade = "haarcascade_frontalface_alt.xml"
        /// The detection copy's longer side.
        public var longestSide = 800
        /// How long one detection may run.
        public var timeBudget: Duration = .seconds(1)
        /// Sources whose points are remembered.
        public var cacheEntries = 4096

        public init() {}
    }

    public let configuration: Configuration
    let cache: DetectionCache
    let library: CascadeLibrary

    public init(configuration: Configuration = Configuration(), library: CascadeLibrary = .shared) {
        self.configuration = configuration
        self.library = library
        cache = DetectionCache(capacity: configuration.cacheEntries)
    }

    /// The cascade `name` in this detector's own directory (never a process-wide one).
    func cascade(named name: String) -> Cascade? {
        library.cascade(named: name, in: configuration.cascadeDirectory)
    }

    /// The focal points of `image` (a decode, possibly scaled, of the source `sourceKey` whose
    /// upright size is `sourceSize`), in the source's pixels: from the cache, or detected once
    /// for every caller that asks meanwhile (on the processing queue). Empty when nothing was
    /// found or detection ran out of time. A decode smaller than the detection copy a full decode
    /// would give (`isRepresentative(_:of:)`) is detected on without caching: a thumbnail's
    /// misses must not decide every later variant of the source.
    public func focalPoints(in image: Image, sourceKey: String, sourceSize: PixelSize) async -> [FocalPoint] {
        if let cached = cache.cached(sourceKey) { return Self.scaled(cached, to: sourceSize) }
        let longestSide = configuration.longestSide
        // Only the small grey copy goes to the detection, which may outlive this caller: never the decode.
        let gray = await ImageWorkQueue.processing.run { GrayImage(image, longestSide: longestSide) }
        let detect: @Sendable () async -> [FocalPoint]? = { [self] in
            await ImageWorkQueue.processing.run { [self] in try? normalised(gray, deadline: .now + configuration.timeBudget) }
        }
        let found = isRepresentative(gray, of: sourceSize) ? await cache.points(for: sourceKey, detect: detect) : await detect()
        return Self.scaled(found ?? [], to: sourceSize)
    }

    /// Whether a detection copy is as large as the one a full decode of a source of `sourceSize`
    /// would give, so its points may stand for the source.
    func isRepresentative(_ gray: GrayImage, of sourceSize: PixelSize) -> Bool {
        max(gray.width, gray.height) >= min(configuration.longestSide, max(sourceSize.width, sourceSize.height))
    }

    private static func scaled(_ points: [FocalPoint], to size: PixelSize) -> [FocalPoint] {
        points.map { $0.scaled(x: Double(size.width), y: Double(size.height)) }
    }

    /// Detection itself, on the calling thread: focal points in coordinates normalised to the
    /// image's upright size (0...1 on each axis). Throws ``DetectionTimeout`` past `deadline`.
    public func detect(in image: Image, deadline: ContinuousClock.Instant? = nil) throws(DetectionTimeout) -> [FocalPoint] {
        try normalised(GrayImage(image, longestSide: configuration.longestSide), deadline: deadline)
    }

    /// Faces, else corners, in coordinates normalised to `gray`'s size.
    func normalised(_ gray: GrayImage, deadline: ContinuousClock.Instant?) throws(DetectionTimeout) -> [FocalPoint] {
        guard gray.width > 0, gray.height > 0 else { return [] }
        let points = try detect(in: gray, deadline: deadline)
        return points.map { $0.scaled(x: 1 / Double(gray.width), y: 1 / Double(gray.height)) }
    }

    /// Faces, else corners, in `gray`'s pixels.
    func detect(in gray: GrayImage, deadline: ContinuousClock.Instant?) throws(DetectionTimeout) -> [FocalPoint] {
        if let cascade = cascade(named: configuration.faceCascade) {
            let faces = try Self.faces(in: gray, cascade: cascade, deadline: deadline)
            if !faces.isEmpty { return faces }
        }
        return try CornerDetector().corners(in: gray, deadline: deadline).map { FocalPoint(x: Double($0.x), y: Double($0.y)) }
    }

    /// thumbor's face detector: `detectMultiScale(scaleFactor 1.2, minNeighbors 4, minSize the
    /// larger of 20 and a fifteenth of the shorter side)`, each face raised by 12 % of its height
    /// for the hair (unless that leaves the image).
    static func faces(in gray: GrayImage, cascade: Cascade, deadline: ContinuousClock.Instant?) throws(DetectionTimeout) -> [FocalPoint] {
        let minimum = max(20, min(gray.width, gray.height) / 15)
        let hits = try CascadeDetector(cascade: cascade).detect(in: gray, scaleFactor: 1.2, minNeighbors: 4,
                                                               minSize: (minimum, minimum), deadline: deadline)
        return hits.map { hit in
            let raise = Double(hit.y) - Double(hit.height) * 0.12 < 0 ? 0 : -Double(hit.height) * 0.12
            return FocalPoint.square(left: Double(hit.x), top: Double(hit.y) + raise, width: Double(hit.width),
                                     height: Double(hit.height), origin: .faceDetection)
        }
    }
}
