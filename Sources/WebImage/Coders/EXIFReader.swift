/// Reads the orientation tag (0x0112) from an EXIF block. Every offset is bounds-checked: EXIF
/// comes from the network, and a bad block just means "no orientation".
enum EXIFReader {
    /// `bytes` starts with the TIFF header, or with "Exif\0\0" before it (JPEG APP1).
    static func orientation(in bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        var tiff = bytes
        if tiff.count >= 6, Array(tiff[0..<6]) == Array("Exif\0\0".utf8) {
            tiff = UnsafeRawBufferPointer(rebasing: tiff[6...])
        }
        guard tiff.count >= 8 else { return .up }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return .up
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = Int(tiff[at]), b = Int(tiff[at + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let hi = u16(littleEndian ? at + 2 : at), let lo = u16(littleEndian ? at : at + 2) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return .up }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { break }
            if tag == 0x0112 {
                guard u16(at + 2) == 3, let value = u16(at + 8) else { return .up }  // SHORT
                return ImageOrientation(exifValue: value)
            }
        }
        return .up
    }
}
