import WebImage

extension Image {
    /// Every frame's bitmap, upright, through `body` (which may change its size): durations, loop
    /// count, scale and format kept; nil when `body` is for any frame. Frames sharing one buffer
    /// share the result.
    func mappingUprightBitmaps(_ body: (Bitmap) -> Bitmap?) -> Image? {
        var done: [Int: Bitmap] = [:]
        var frames: [ImageFrame] = []
        frames.reserveCapacity(self.frames.count)
        for frame in self.frames {
            let identity = frame.bitmap.pixels.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
            if identity != 0, let shared = done[identity] {
                frames.append(ImageFrame(bitmap: shared, duration: frame.duration))
                continue
            }
            let upright = orientation == .up ? frame.bitmap : frame.bitmap.oriented(orientation)
            guard let made = body(upright) else { return nil }
            if identity != 0 { done[identity] = made }
            frames.append(ImageFrame(bitmap: made, duration: frame.duration))
        }
        return Image(frames: frames, loopCount: loopCount, scale: scale, orientation: .up, format: format,
                     originalData: nil, hasAlpha: nil, colorProfile: colorProfile)
    }
}
