/// Runs a ``Cascade`` over an image as OpenCV's `CascadeClassifier::detectMultiScale` does: the
/// image shrunk by powers of `scaleFactor` under a fixed window, an integral image and a squared
/// one per scale (the window's standard deviation normalises every feature), the window slid in
/// steps of 2 pixels (1 once the image is at half size or less), every window that passes all
/// stages kept, and the hits grouped (`RectangleGrouping`) with `minNeighbors`.
public struct CascadeDetector: Sendable {
    public let cascade: Cascade

    public init(cascade: Cascade) {
        self.cascade = cascade
    }

    /// A detected object in the image's pixels.
    public struct Hit: Sendable, Hashable {
        public var x, y, width, height: Int
    }

    /// The objects in `image` no smaller than `minSize` (and no larger than `maxSize`, when given).
    /// Throws ``DetectionTimeout`` once `deadline` has passed (checked every row of every scale).
    public func detect(
        in image: GrayImage, scaleFactor: Double = 1.1, minNeighbors: Int = 3,
        minSize: (width: Int, height: Int) = (0, 0), maxSize: (width: Int, height: Int)? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) throws(DetectionTimeout) -> [Hit] {
        let (winW, winH) = (cascade.windowWidth, cascade.windowHeight)
        guard scaleFactor > 1, image.width >= winW, image.height >= winH else { return [] }
        let maxSize = maxSize ?? (image.width, image.height)
        var scales: [Float] = []
        var factor = 1.0
        while true {
            let window = (Int((Double(winW) * factor).rounded(.toNearestOrEven)), Int((Double(winH) * factor).rounded(.toNearestOrEven)))
            if window.0 > maxSize.width || window.1 > maxSize.height || window.0 > image.width || window.1 > image.height { break }
            if window.0 >= minSize.width, window.1 >= minSize.height { scales.append(Float(factor)) }
            factor *= scaleFactor
        }
        let program = CascadeProgram(cascade)
        var hits: [Hit] = []
        for scale in scales {
            let width = Int((Float(image.width) / scale).rounded(.toNearestOrEven))
            let height = Int((Float(image.height) / scale).rounded(.toNearestOrEven))
            guard width >= winW, height >= winH else { break }
            let scaled = image.resized(width: width, height: height)
            let window = Hit(x: 0, y: 0, width: Int((Float(winW) * scale).rounded(.toNearestOrEven)),
                             height: Int((Float(winH) * scale).rounded(.toNearestOrEven)))
            try program.scan(scaled, step: scale >= 2 ? 1 : 2, deadline: deadline) { x, y in
                hits.append(Hit(x: Int((Float(x) * scale).rounded(.toNearestOrEven)), y: Int((Float(y) * scale).rounded(.toNearestOrEven)),
                                width: window.width, height: window.height))
            }
        }
        return try RectangleGrouping.group(hits, threshold: minNeighbors, eps: 0.2, deadline: deadline)
    }
}

/// Detection ran past its time budget.
public struct DetectionTimeout: Error, Sendable, Equatable {
    public init() {}

    static func check(_ deadline: ContinuousClock.Instant?) throws(DetectionTimeout) {
        if let deadline, ContinuousClock.now >= deadline { throw DetectionTimeout() }
    }
}
