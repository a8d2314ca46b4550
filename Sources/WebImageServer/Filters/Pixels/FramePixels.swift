import WebImage

extension Image {
    /// This image with `body` run on a copy of every frame's straight RGBA8 bytes (rows of
    /// `width × 4`, no padding); durations, loop count, scale and format kept. `hasAlpha` nil keeps
    /// the source's: thumbor's pixel filters work on the mode the image has, RGB or RGBA.
    func rewritingPixels(
        hasAlpha: Bool? = nil, _ body: (_ pixels: UnsafeMutableBufferPointer<UInt8>, _ width: Int, _ height: Int) -> Void
    ) -> Image {
        // Frames sharing one buffer (a GIF frame that changes nothing) are rewritten once and keep sharing.
        let frames = mappingFrames { bitmap in
            var pixels = bitmap.pixels
            pixels.withUnsafeMutableBufferPointer { body($0, bitmap.width, bitmap.height) }
            return Bitmap(width: bitmap.width, height: bitmap.height, pixels: pixels)
        } ?? self.frames
        return Image(frames: frames, loopCount: loopCount, scale: scale, orientation: orientation, format: format,
                     originalData: nil, hasAlpha: hasAlpha ?? self.hasAlpha, colorProfile: colorProfile)
    }
}

/// thumbor's `ADJUST_COLOR` on an integer: clamped to 0…255.
@inline(__always)
func clampedChannel(_ value: Int) -> UInt8 {
    UInt8(truncatingIfNeeded: value > 255 ? 255 : (value < 0 ? 0 : value))
}

/// A C cast of a clamped float to `unsigned char`, as thumbor's filters store their results:
/// above 255 is 255, below 0 is 0, else truncated; NaN is 0 (what x86's conversion makes of it).
@inline(__always)
func truncatedChannel(_ value: Double) -> UInt8 {
    guard value == value else { return 0 }
    return value > 255 ? 255 : (value < 0 ? 0 : UInt8(value))
}
