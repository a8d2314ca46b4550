import WebImage

/// thumbor's `grayscale()`: Rec. 601 luma in every channel, alpha kept, as Pillow's `convert("LA")`
/// computes it (16-bit fixed-point weights, rounded), so the bytes match thumbor's.
struct GrayscaleTransformer: ImageTransformer {
    var transformerKey: String { "GrayscaleTransformer" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        image.rewritingPixels { pixels, _, _ in
            var index = 0
            while index < pixels.count {
                let luma = (19595 * Int(pixels[index]) + 38470 * Int(pixels[index + 1]) + 7471 * Int(pixels[index + 2]) + 0x8000) >> 16
                pixels[index] = UInt8(luma)
                pixels[index + 1] = UInt8(luma)
                pixels[index + 2] = UInt8(luma)
                index += 4
            }
        }
    }
}
