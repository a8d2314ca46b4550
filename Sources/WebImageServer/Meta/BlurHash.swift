import Foundation
import WebImage

/// Wolt's BlurHash of a bitmap: the average colour and the lowest cosine components of its linear
/// light, quantised into a short base-83 string a page decodes into a placeholder before the image
/// arrives. The reference algorithm (woltapp/blurhash's encoder), alpha ignored.
public enum BlurHash {
    /// Components per axis of ``encode(_:componentsX:componentsY:)`` by default: 4 across, 3 down.
    public static let defaultComponents = (x: 4, y: 3)

    /// The hash of `bitmap` with `componentsX` × `componentsY` components (each 1–9); nil for an
    /// empty bitmap or a component count outside 1–9.
    public static func encode(_ bitmap: Bitmap, componentsX: Int = defaultComponents.x, componentsY: Int = defaultComponents.y) -> String? {
        let (width, height) = (bitmap.width, bitmap.height)
        guard width > 0, height > 0, (1...9).contains(componentsX), (1...9).contains(componentsY) else { return nil }
        // Each pixel's cosines are products of one per column and one per row: tabled once.
        let cosX = (0..<componentsX).map { i in (0..<width).map { x in cos(Double.pi * Double(i) * Double(x) / Double(width)) } }
        let cosY = (0..<componentsY).map { j in (0..<height).map { y in cos(Double.pi * Double(j) * Double(y) / Double(height)) } }
        var factors = [[Double]](repeating: [0, 0, 0], count: componentsX * componentsY)
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let row = y * bitmap.bytesPerRow
                for x in 0..<width {
                    let offset = row + x * Bitmap.bytesPerPixel
                    let r = linear[Int(pixels[offset])], g = linear[Int(pixels[offset + 1])], b = linear[Int(pixels[offset + 2])]
                    for j in 0..<componentsY {
                        let cy = cosY[j][y]
                        for i in 0..<componentsX {
                            let basis = cosX[i][x] * cy
                            let k = j * componentsX + i
                            factors[k][0] += basis * r
                            factors[k][1] += basis * g
                            factors[k][2] += basis * b
                        }
                    }
                }
            }
        }
        let pixelCount = Double(width * height)
        for k in factors.indices {
            let normalisation = k == 0 ? 1.0 : 2.0
            factors[k] = factors[k].map { $0 * normalisation / pixelCount }
        }
        var hash = base83((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let maximum: Double
        if let largest = ac.flatMap({ $0 }).map(abs).max() {
            let quantised = max(0, min(82, Int((largest * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += base83(quantised, length: 1)
        } else {
            maximum = 1
            hash += base83(0, length: 1)
        }
        let dc = factors[0]
        hash += base83((sRGB(dc[0]) << 16) + (sRGB(dc[1]) << 8) + sRGB(dc[2]), length: 4)
        for component in ac {
            let q = component.map { value in
                max(0, min(18, Int((signedSquareRoot(value / maximum) * 9 + 9.5).rounded(.down))))
            }
            hash += base83(q[0] * 19 * 19 + q[1] * 19 + q[2], length: 2)
        }
        return hash
    }

    /// sRGB byte → linear light, tabled.
    private static let linear: [Double] = (0...255).map { byte in
        let value = Double(byte) / 255
        return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// Linear light → sRGB byte, as the reference rounds it.
    private static func sRGB(_ value: Double) -> Int {
        let v = max(0, min(1, value))
        return v <= 0.0031308 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }

    private static func signedSquareRoot(_ value: Double) -> Double {
        value < 0 ? -(-value).squareRoot() : value.squareRoot()
    }

    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    private static func base83(_ value: Int, length: Int) -> String {
        var text = ""
        for position in 1...length {
            var divisor = 1
            for _ in 0..<(length - position) { divisor *= 83 }
            text.append(digits[(value / divisor) % 83])
        }
        return text
    }
}
