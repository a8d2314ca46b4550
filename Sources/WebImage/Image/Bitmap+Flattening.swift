extension Bitmap {
    /// The bitmap composited over an opaque `background`: every pixel becomes opaque. For formats
    /// without alpha (JPEG), so transparent areas do not show whatever colour they happen to store.
    public func flattened(over background: RGBA) -> Bitmap {
        var result = self
        result.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let a = Int(p[i + 3])
                if a != 255 {
                    p[i] = UInt8((Int(p[i]) * a + Int(background.r) * (255 - a) + 127) / 255)
                    p[i + 1] = UInt8((Int(p[i + 1]) * a + Int(background.g) * (255 - a) + 127) / 255)
                    p[i + 2] = UInt8((Int(p[i + 2]) * a + Int(background.b) * (255 - a) + 127) / 255)
                    p[i + 3] = 255
                }
                i += 4
            }
        }
        return result
    }
}
