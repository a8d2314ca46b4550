extension Image {
    /// `body` applied once per distinct pixel buffer, durations kept; nil when `body` returns nil.
    /// Frames that shared a buffer (a GIF frame that changes nothing) share the result, so the
    /// mapped frames cost no more memory than these.
    package func mappingFrames(_ body: (Bitmap) -> Bitmap?) -> [ImageFrame]? {
        var done: [UnsafeRawPointer?: Bitmap] = [:]
        var frames: [ImageFrame] = []
        frames.reserveCapacity(self.frames.count)
        for frame in self.frames {
            let identity = frame.bitmap.pixels.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            let bitmap: Bitmap
            if frame.bitmap.pixels.count > 0, let shared = done[identity] {
                bitmap = shared
            } else {
                guard let made = body(frame.bitmap) else { return nil }
                bitmap = made
                done[identity] = made
            }
            frames.append(ImageFrame(bitmap: bitmap, duration: frame.duration))
        }
        return frames
    }
}
