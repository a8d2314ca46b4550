import WebImage

/// thumbor's `grayscale()`: Rec. 601 luma in every channel, alpha kept.
struct GrayscaleTransformer: ImageTransformer {
    var transformerKey: String { "GrayscaleTransformer" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        image.transformingPixels { pixels in
            var index = 0
            while index < pixels.count {
                let luma = (299 * Int(pixels[index]) + 587 * Int(pixels[index + 1]) + 114 * Int(pixels[index + 2]) + 500) / 1000
                pixels[index] = UInt8(luma)
                pixels[index + 1] = UInt8(luma)
                pixels[index + 2] = UInt8(luma)
                index += 4
            }
        }
    }
}

/// thumbor's `fill(color)`: transparent areas take the colour (the image is flattened onto it).
struct FillTransformer: ImageTransformer {
    let color: RGBA
    var transformerKey: String { "FillTransformer(\(color))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        let frames = image.frames.map { ImageFrame(bitmap: $0.bitmap.flattened(over: color), duration: $0.duration) }
        return Image(frames: frames, loopCount: image.loopCount, scale: image.scale, orientation: image.orientation,
                     format: image.format, originalData: nil, hasAlpha: false, colorProfile: image.colorProfile)
    }
}
