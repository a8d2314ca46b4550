import WebImage

/// thumbor's `background_color(color)` (`filters/background_color.py`, composited by
/// `ext/filters/_composite.c`): the image laid over a canvas of the colour, alpha combined as
/// `1 − (1 − a_image)(1 − a_canvas)`, in doubles, truncated. An opaque colour makes every pixel
/// opaque; `transparent` leaves colours as they are and clears fully transparent pixels to black.
struct BackgroundColorTransformer: ImageTransformer {
    let color: RGBA

    var transformerKey: String { "BackgroundColor(\(color))" }

    func transform(_ image: Image, forKey key: String) -> Image? {
        // An image without alpha is opaque in thumbor's RGBA too: the canvas never shows.
        guard image.hasAlpha else { return image }
        let canvas = color
        return image.rewritingPixels(hasAlpha: canvas.a == 255 ? false : nil) { pixels, _, _ in
            let canvasClear = Double(255 - Int(canvas.a))
            let canvasColor = (Double(canvas.r), Double(canvas.g), Double(canvas.b))
            var i = 0
            while i + 3 < pixels.count {
                let clear = Double(255 - Int(pixels[i + 3]))
                let both = (clear / 255) * (canvasClear / 255)
                var scale = 1 - both
                scale = scale <= 1e-12 ? 1 : 1 / scale
                func channel(_ top: UInt8, _ bottom: Double) -> UInt8 {
                    truncatedChannel(scale * ((1 - clear / 255) * Double(top) + (1 - canvasClear / 255) * bottom * (clear / 255)))
                }
                pixels[i] = channel(pixels[i], canvasColor.0)
                pixels[i + 1] = channel(pixels[i + 1], canvasColor.1)
                pixels[i + 2] = channel(pixels[i + 2], canvasColor.2)
                pixels[i + 3] = truncatedChannel(255 - 255 * both)
                i += 4
            }
        }
    }
}
