@testable import WebImage

extension Bitmap {
    /// Largest and mean absolute difference per channel value (0–255), alpha included, over the
    /// bytes both bitmaps have.
    func difference(from other: Bitmap) -> (max: Int, mean: Double) {
        var largest = 0
        var total = 0
        for (x, y) in zip(pixels, other.pixels) {
            let d = abs(Int(x) - Int(y))
            largest = Swift.max(largest, d)
            total += d
        }
        return (largest, Double(total) / Double(Swift.max(1, Swift.min(pixels.count, other.pixels.count))))
    }
}
