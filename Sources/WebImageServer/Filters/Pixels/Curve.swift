/// One point of a `curve` argument: input `x` maps to output `y`.
public struct CurvePoint: Sendable, Hashable {
    public var x: UInt8
    public var y: UInt8

    public init(x: UInt8, y: UInt8) {
        self.x = x
        self.y = y
    }

    /// The most points one list may have: one per input value.
    static let maximumCount = 256

    /// `[(x,y),(x,y),…]` (thumbor's `\[(?:\(\d+,\d+\),?)*\]` read by `ast.literal_eval`): 1 to 256
    /// points of 0–255, commas between them and an optional one after the last; nil otherwise.
    /// Refused before anything is kept: an empty list (which the C code reads past), a value over 255
    /// (which it would wrap), more than 256 points.
    static func parseList(_ text: String) -> [CurvePoint]? {
        var bytes = Substring(text).utf8[...]
        guard bytes.popFirst() == UInt8(ascii: "["), bytes.popLast() == UInt8(ascii: "]") else { return nil }
        var points: [CurvePoint] = []
        while !bytes.isEmpty {
            guard points.count < maximumCount, bytes.popFirst() == UInt8(ascii: "("),
                  let x = number(&bytes), bytes.popFirst() == UInt8(ascii: ","),
                  let y = number(&bytes), bytes.popFirst() == UInt8(ascii: ")")
            else { return nil }
            points.append(CurvePoint(x: x, y: y))
            if bytes.first == UInt8(ascii: ",") { bytes.removeFirst() } else if !bytes.isEmpty { return nil }
        }
        return points.isEmpty ? nil : points
    }

    /// One to three digits, at most 255, taken from the front of `bytes`.
    private static func number(_ bytes: inout Substring.UTF8View.SubSequence) -> UInt8? {
        var value = 0
        var digits = 0
        while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            guard digits < 3 else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            bytes.removeFirst()
        }
        return digits > 0 && value <= 255 ? UInt8(value) : nil
    }
}

/// thumbor's `curve(all,r,g,b)` (`ext/filters/_curve.c`): each list of points is a natural cubic
/// spline through them, sampled at 0…255 into a table; a channel goes through its own table, then
/// through the one for all channels.
enum Curve {
    static func tables(all: [CurvePoint], red: [CurvePoint], green: [CurvePoint], blue: [CurvePoint]) -> ChannelTables {
        let (a, r, g, b) = (table(all), table(red), table(green), table(blue))
        return ChannelTables(red: r.map { a[Int($0)] }, green: g.map { a[Int($0)] }, blue: b.map { a[Int($0)] })
    }

    /// The spline through `points` as 256 outputs, as the C code makes it: the first point's `y`
    /// below the first `x`, the last point's `y` from the last `x` on, and between consecutive
    /// points (in the order given; a pair whose `x` does not rise adds nothing) the spline rounded.
    static func table(_ points: [CurvePoint]) -> [UInt8] {
        guard let first = points.first, let last = points.last else { return (0..<256).map { UInt8($0) } }
        let secondDerivatives = secondDerivatives(points)
        var table = [UInt8](repeating: first.y, count: 256)
        for i in 0..<(points.count - 1) {
            let (current, next) = (points[i], points[i + 1])
            guard current.x < next.x else { continue }
            let h = Double(next.x) - Double(current.x)
            for x in current.x..<next.x {
                let t = (Double(x) - Double(current.x)) / h
                let a = 1 - t
                let b = t
                let y = a * Double(current.y) + b * Double(next.y)
                    + (h * h / 6) * ((a * a * a - a) * secondDerivatives[i] + (b * b * b - b) * secondDerivatives[i + 1])
                table[Int(x)] = truncatedChannel(y.rounded(.toNearestOrAwayFromZero))
            }
        }
        for x in Int(last.x)..<256 { table[x] = last.y }
        return table
    }

    /// The spline's second derivative at each point: the C code's tridiagonal solve, a forward then
    /// a backward sweep, in doubles (repeated `x`s divide by zero there too; the NaNs they make
    /// become 0s in the table, as in the C code on x86).
    static func secondDerivatives(_ points: [CurvePoint]) -> [Double] {
        let n = points.count
        let x = points.map { Double($0.x) }
        let y = points.map { Double($0.y) }
        var lower = [Double](repeating: 0, count: n)
        var diagonal = [Double](repeating: 0, count: n)
        var upper = [Double](repeating: 0, count: n)
        var result = [Double](repeating: 0, count: n)
        diagonal[0] = 1
        if n > 2 {
            for i in 1..<(n - 1) {
                lower[i] = (x[i] - x[i - 1]) / 6
                diagonal[i] = (x[i + 1] - x[i - 1]) / 3
                upper[i] = (x[i + 1] - x[i]) / 6
                result[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])
            }
        }
        diagonal[n - 1] = 1
        for i in stride(from: 1, to: n, by: 1) {
            let k = lower[i] / diagonal[i - 1]
            diagonal[i] -= k * upper[i - 1]
            lower[i] = 0
            result[i] -= k * result[i - 1]
        }
        for i in stride(from: n - 2, through: 0, by: -1) {
            let k = upper[i] / diagonal[i + 1]
            diagonal[i] -= k * lower[i + 1]
            upper[i] = 0
            result[i] -= k * result[i + 1]
        }
        return (0..<n).map { result[$0] / diagonal[$0] }
    }
}
