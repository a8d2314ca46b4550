/// OpenCV's `groupRectangles`: hits that overlap within `eps` of their size join one class; a
/// class with `threshold` hits or fewer is dropped; each kept class answers the mean of its hits;
/// and a class lying inside a stronger one is dropped too. A detector fires several times around
/// a real object and rarely around anything else, so this is what turns raw hits into objects.
enum RectangleGrouping {
    static func group(_ hits: [CascadeDetector.Hit], threshold: Int, eps: Double, deadline: ContinuousClock.Instant? = nil) throws(DetectionTimeout) -> [CascadeDetector.Hit] {
        guard threshold > 0, !hits.isEmpty else { return hits }
        // Classes: the connected parts of the "similar" relation (union-find).
        var parent = Array(hits.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in hits.indices {
            try DetectionTimeout.check(deadline)
            for j in (i + 1)..<hits.count where similar(hits[i], hits[j], eps: eps) {
                let (a, b) = (root(i), root(j))
                if a != b { parent[b] = a }
            }
        }
        var classOf: [Int: Int] = [:]
        var sums: [(x: Int, y: Int, width: Int, height: Int, count: Int)] = []
        for i in hits.indices {
            let r = root(i)
            let label: Int
            if let known = classOf[r] {
                label = known
            } else {
                label = sums.count
                classOf[r] = label
                sums.append((0, 0, 0, 0, 0))
            }
            sums[label].x += hits[i].x
            sums[label].y += hits[i].y
            sums[label].width += hits[i].width
            sums[label].height += hits[i].height
            sums[label].count += 1
        }
        let means = sums.map { s -> (hit: CascadeDetector.Hit, count: Int) in
            let scale = 1 / Float(s.count)
            func mean(_ v: Int) -> Int { Int((Float(v) * scale).rounded(.toNearestOrEven)) }
            return (CascadeDetector.Hit(x: mean(s.x), y: mean(s.y), width: mean(s.width), height: mean(s.height)), s.count)
        }
        var kept: [CascadeDetector.Hit] = []
        for (i, (r1, n1)) in means.enumerated() where n1 > threshold {
            let inside = means.enumerated().contains { j, other in
                let (r2, n2) = other
                guard i != j, n2 > threshold else { return false }
                let dx = Int((Double(r2.width) * eps).rounded(.toNearestOrEven)), dy = Int((Double(r2.height) * eps).rounded(.toNearestOrEven))
                return r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx
                    && r1.y + r1.height <= r2.y + r2.height + dy && (n2 > max(3, n1) || n1 < 3)
            }
            if !inside { kept.append(r1) }
        }
        return kept
    }

    /// OpenCV's `SimilarRects`: every edge within `eps` of the mean of the smaller sides.
    static func similar(_ a: CascadeDetector.Hit, _ b: CascadeDetector.Hit, eps: Double) -> Bool {
        let delta = eps * Double(min(a.width, b.width) + min(a.height, b.height)) * 0.5
        return Double(abs(a.x - b.x)) <= delta && Double(abs(a.y - b.y)) <= delta
            && Double(abs(a.x + a.width - b.x - b.width)) <= delta && Double(abs(a.y + a.height - b.y - b.height)) <= delta
    }
}
