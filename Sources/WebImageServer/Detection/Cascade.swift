import Foundation

/// A boosted cascade of Haar-feature classifiers read from one of OpenCV's cascade files (the new
/// `<cascade>` format of `/usr/share/opencv4/haarcascades`): a window size, stages of weak
/// classifiers (decision trees over features; most files use one-split stumps) and the features
/// they compare — up to three weighted rectangles each, in window coordinates.
public struct Cascade: Sendable {
    /// A decision-tree node: `feature`'s normalised value below `threshold` goes `left`, else
    /// `right`; a child ≤ 0 is leaf number `-child` of its tree.
    struct Node: Sendable {
        var left: Int32
        var right: Int32
        var feature: Int32
        var threshold: Float
    }

    /// One weak classifier: its nodes and their `nodes.count + 1` leaf values.
    struct Tree: Sendable {
        var nodes: [Node]
        var leaves: [Float]
    }

    struct Stage: Sendable {
        var threshold: Float
        var trees: [Tree]
    }

    /// A weighted rectangle of a feature, in window pixels.
    struct Rectangle: Sendable {
        var x, y, width, height: Int
        var weight: Float
    }

    let windowWidth: Int
    let windowHeight: Int
    let stages: [Stage]
    let features: [[Rectangle]]

    /// The window the classifiers were trained on (OpenCV's `getOriginalWindowSize`).
    public var windowSize: (width: Int, height: Int) { (windowWidth, windowHeight) }

    /// Reads a cascade file; throws when it is missing, malformed, or of a kind this evaluator
    /// does not run (LBP or HOG features, categorical splits, tilted Haar features).
    public init(contentsOf url: URL) throws(CascadeError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(url.path) }
        try self.init(xml: [UInt8](data))
    }

    init(xml: [UInt8]) throws(CascadeError) {
        let document = try CascadeXMLElement.parse(xml)
        guard let cascade = document.name == "cascade" ? document : document.child("cascade") else {
            throw .unsupported("no <cascade> element (an old-format file)")
        }
        guard cascade.child("featureType")?.text.trimmingSpaces == "HAAR" else { throw .unsupported("only HAAR features") }
        if let stageType = cascade.child("stageType")?.text.trimmingSpaces, stageType != "BOOST" { throw .unsupported("stage type \(stageType)") }
        if let categories = cascade.child("featureParams")?.child("maxCatCount")?.text.trimmingSpaces, categories != "0" {
            throw .unsupported("categorical features")
        }
        guard let width = cascade.child("width").flatMap({ Int($0.text.trimmingSpaces) }),
              let height = cascade.child("height").flatMap({ Int($0.text.trimmingSpaces) }),
              (1...1000).contains(width), (1...1000).contains(height) else { throw .malformed("window size") }

        var features: [[Rectangle]] = []
        for feature in cascade.child("features")?.children ?? [] {
            if let tilted = feature.child("tilted")?.text.trimmingSpaces, tilted != "0" { throw .unsupported("tilted Haar features") }
            var rectangles: [Rectangle] = []
            for rect in feature.child("rects")?.children ?? [] {
                guard let values = rect.text.numbers, values.count == 5,
                      let x = Int(exactly: values[0]), let y = Int(exactly: values[1]),
                      let w = Int(exactly: values[2]), let h = Int(exactly: values[3]),
                      x >= 0, y >= 0, w > 0, h > 0, x <= width, y <= height, w <= width - x, h <= height - y
                else { throw .malformed("a feature rectangle outside the window") }
                rectangles.append(Rectangle(x: x, y: y, width: w, height: h, weight: Float(values[4])))
            }
            guard (1...3).contains(rectangles.count) else { throw .malformed("a feature of \(rectangles.count) rectangles") }
            features.append(rectangles)
        }

        var stages: [Stage] = []
        for stage in cascade.child("stages")?.children ?? [] {
            guard let threshold = stage.child("stageThreshold")?.text.numbers?.first else { throw .malformed("stage threshold") }
            var trees: [Tree] = []
            for weak in stage.child("weakClassifiers")?.children ?? [] {
                guard let split = weak.child("internalNodes")?.text.numbers, !split.isEmpty, split.count % 4 == 0,
                      let leaves = weak.child("leafValues")?.text.numbers, leaves.count == split.count / 4 + 1
                else { throw .malformed("a weak classifier") }
                var nodes: [Node] = []
                for start in stride(from: 0, to: split.count, by: 4) {
                    guard let left = Int32(exactly: split[start]), let right = Int32(exactly: split[start + 1]),
                          let feature = Int32(exactly: split[start + 2]), features.indices.contains(Int(feature))
                    else { throw .malformed("a tree node") }
                    nodes.append(Node(left: left, right: right, feature: feature, threshold: Float(split[start + 3])))
                }
                // Every child must be a later node or a leaf of this tree: evaluation then always ends.
                // Compared without negating: a parsed child may be Int32.min, whose negation traps.
                guard let nodeCount = Int32(exactly: nodes.count) else { throw .malformed("a tree too large") }
                for (index, node) in nodes.enumerated() {
                    for child in [node.left, node.right] where child > 0 ? (child <= Int32(index) || child >= nodeCount) : child < -nodeCount {
                        throw .malformed("a tree node pointing outside its tree")
                    }
                }
                trees.append(Tree(nodes: nodes, leaves: leaves.map(Float.init)))
            }
            guard !trees.isEmpty else { throw .malformed("an empty stage") }
            stages.append(Stage(threshold: Float(threshold), trees: trees))
        }
        guard !stages.isEmpty else { throw .malformed("no stages") }
        windowWidth = width
        windowHeight = height
        self.stages = stages
        self.features = features
    }
}

/// Why a cascade file cannot be used.
public enum CascadeError: Error, Sendable, Equatable {
    case unreadable(String)
    case malformed(String)
    case unsupported(String)
}
