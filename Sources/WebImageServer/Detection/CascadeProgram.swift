/// A ``Cascade`` flattened for evaluation: its trees' nodes and leaves in single arrays, each
/// feature as up to three weighted rectangles. Offsets into the integral image are worked out per
/// scale, since they depend on its row length.
struct CascadeProgram {
    let windowWidth: Int
    let windowHeight: Int
    /// Per stage: its threshold and its trees' range in ``treeNodeStart``.
    let stageThresholds: [Float]
    let stageTreeEnd: [Int]
    /// Per tree: where its nodes and its leaves begin.
    let treeNodeStart: [Int]
    let treeLeafStart: [Int]
    let nodes: [Cascade.Node]
    let leaves: [Float]
    /// Per feature, three rectangles (the unused ones of weight 0).
    let rectangles: [Cascade.Rectangle]

    init(_ cascade: Cascade) {
        windowWidth = cascade.windowWidth
        windowHeight = cascade.windowHeight
        var thresholds: [Float] = [], treeEnd: [Int] = [], nodeStart: [Int] = [], leafStart: [Int] = []
        var nodes: [Cascade.Node] = [], leaves: [Float] = []
        for stage in cascade.stages {
            thresholds.append(stage.threshold)
            for tree in stage.trees {
                nodeStart.append(nodes.count)
                leafStart.append(leaves.count)
                nodes += tree.nodes
                leaves += tree.leaves
            }
            treeEnd.append(nodeStart.count)
        }
        stageThresholds = thresholds
        stageTreeEnd = treeEnd
        treeNodeStart = nodeStart
        treeLeafStart = leafStart
        self.nodes = nodes
        self.leaves = leaves
        rectangles = cascade.features.flatMap { feature in
            feature + Array(repeating: Cascade.Rectangle(x: 0, y: 0, width: 0, height: 0, weight: 0), count: 3 - feature.count)
        }
    }

    /// Calls `hit` with every window position of `image` (top-left, in its pixels) that passes
    /// every stage, trying positions `step` pixels apart.
    func scan(_ image: GrayImage, step: Int, deadline: ContinuousClock.Instant?, hit: (Int, Int) -> Void) throws(DetectionTimeout) {
        let integral = IntegralImages(image)
        let stride = integral.stride
        // Four corner offsets per rectangle, relative to the window's top-left in the integrals.
        var offsets = [Int](repeating: 0, count: rectangles.count * 4)
        for (index, r) in rectangles.enumerated() {
            offsets[index * 4] = r.y * stride + r.x
            offsets[index * 4 + 1] = r.y * stride + r.x + r.width
            offsets[index * 4 + 2] = (r.y + r.height) * stride + r.x
            offsets[index * 4 + 3] = (r.y + r.height) * stride + r.x + r.width
        }
        // OpenCV normalises by the window less a one-pixel border.
        let norm = (tl: stride + 1, tr: stride + windowWidth - 1, bl: (windowHeight - 1) * stride + 1,
                    br: (windowHeight - 1) * stride + windowWidth - 1)
        let area = Double((windowWidth - 2) * (windowHeight - 2))
        let lastX = image.width - windowWidth, lastY = image.height - windowHeight
        guard lastX >= 0, lastY >= 0 else { return }
        try integral.sum.withUnsafeBufferPointer { (sum) throws(DetectionTimeout) in
            try integral.squares.withUnsafeBufferPointer { (squares) throws(DetectionTimeout) in
                try offsets.withUnsafeBufferPointer { (offsets) throws(DetectionTimeout) in
                    try rectangles.withUnsafeBufferPointer { (rects) throws(DetectionTimeout) in
                        try nodes.withUnsafeBufferPointer { (nodes) throws(DetectionTimeout) in
                            try leaves.withUnsafeBufferPointer { (leaves) throws(DetectionTimeout) in
                                var y = 0
                                while y <= lastY {
                                    try DetectionTimeout.check(deadline)
                                    var x = 0
                                    while x <= lastX {
                                        let origin = y * stride + x
                                        let valueSum = Int(sum[origin + norm.tl]) - Int(sum[origin + norm.tr]) - Int(sum[origin + norm.bl]) + Int(sum[origin + norm.br])
                                        let squareSum = squares[origin + norm.tl] &- squares[origin + norm.tr] &- squares[origin + norm.bl] &+ squares[origin + norm.br]
                                        let spread = area * Double(squareSum) - Double(valueSum) * Double(valueSum)
                                        // A flat window cannot hold the object (OpenCV rejects it before any stage).
                                        if spread > 0, area / spread.squareRoot() < 0.1,
                                           passes(origin, normaliser: Float(1 / spread.squareRoot()), sum, offsets, rects, nodes, leaves) {
                                            hit(x, y)
                                        }
                                        x += step
                                    }
                                    y += step
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private func passes(
        _ origin: Int, normaliser: Float, _ sum: UnsafeBufferPointer<Int32>, _ offsets: UnsafeBufferPointer<Int>,
        _ rects: UnsafeBufferPointer<Cascade.Rectangle>, _ nodes: UnsafeBufferPointer<Cascade.Node>, _ leaves: UnsafeBufferPointer<Float>
    ) -> Bool {
        var tree = 0
        for (stage, end) in stageTreeEnd.enumerated() {
            var total: Float = 0
            while tree < end {
                let root = treeNodeStart[tree]
                var index: Int32 = 0
                repeat {
                    let node = nodes[root + Int(index)]
                    let feature = Int(node.feature) * 3
                    var value: Float = 0
                    for r in feature..<(feature + 3) where rects[r].weight != 0 {
                        let o = r * 4
                        let area = sum[origin + offsets[o]] &- sum[origin + offsets[o + 1]] &- sum[origin + offsets[o + 2]] &+ sum[origin + offsets[o + 3]]
                        value += rects[r].weight * Float(area)
                    }
                    index = value * normaliser < node.threshold ? node.left : node.right
                } while index > 0
                total += leaves[treeLeafStart[tree] - Int(index)]
                tree += 1
            }
            if total < stageThresholds[stage] { return false }
        }
        return true
    }
}

/// The summed-area table of an image and of its squares, one row and column of zeros first.
/// The squares wrap at 32 bits: a window's sum of them is a difference that fits, so modular
/// arithmetic gives it exactly (as OpenCV's own 32-bit tables do), at 4 bytes a pixel.
struct IntegralImages {
    let stride: Int
    var sum: [Int32]
    var squares: [UInt32]

    init(_ image: GrayImage) {
        stride = image.width + 1
        let count = stride * (image.height + 1)
        var sum = [Int32](repeating: 0, count: count)
        var squares = [UInt32](repeating: 0, count: count)
        let (w, h, stride) = (image.width, image.height, stride)
        image.pixels.withUnsafeBufferPointer { pixels in
            sum.withUnsafeMutableBufferPointer { sum in
                squares.withUnsafeMutableBufferPointer { squares in
                    for y in 0..<h {
                        var rowSum: Int32 = 0
                        var rowSquares: UInt32 = 0
                        for x in 0..<w {
                            let value = pixels[y * w + x]
                            rowSum &+= Int32(value)
                            rowSquares &+= UInt32(value) * UInt32(value)
                            sum[(y + 1) * stride + x + 1] = sum[y * stride + x + 1] &+ rowSum
                            squares[(y + 1) * stride + x + 1] = squares[y * stride + x + 1] &+ rowSquares
                        }
                    }
                }
            }
        }
        self.sum = sum
        self.squares = squares
    }
}
