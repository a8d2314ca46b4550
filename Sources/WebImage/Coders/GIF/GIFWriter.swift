import CGIF
import Foundation

/// giflib's sequential writer (`EGif*`) collecting the file in memory. giflib reports write
/// errors by return codes (it never longjmps), so no C shim is involved.
///
/// It writes exactly what it is given — frame rectangles, colour tables, control extensions —
/// so tests can also use it to build GIFs with particular structures.
final class GIFWriter {
    /// One image descriptor with its data.
    struct Frame {
        var left = 0
        var top = 0
        var width: Int
        var height: Int
        /// `width × height` palette indices, rows top to bottom.
        var indices: [UInt8]
        /// A local colour table (≤ 256 entries; alpha ignored); `nil` uses the global table.
        var colorMap: [RGBA]?
        /// Written as a Graphics Control Extension before the frame; `nil` writes none.
        var control: GIFGraphicsControl?
        /// Stores rows in the four-pass interlaced order.
        var interlaced = false
    }

    private let sink = GIFByteSink()
    private var gif: UnsafeMutablePointer<GifFileType>?

    /// Starts a GIF89a file with a logical screen of `width × height`.
    init(width: Int, height: Int, globalColorMap: [RGBA]?) throws {
        guard GIFWriter.fitsField(width), GIFWriter.fitsField(height), width > 0, height > 0 else {
            throw ImageCoderError.encodingFailed(.gif, reason: "GIF sides are 1...65535 pixels, not \(width)x\(height)")
        }
        var error: Int32 = 0
        guard let gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), gifWrite, &error) else {
            throw GIFWriter.failure(code: error)
        }
        self.gif = gif
        EGifSetGifVersion(gif, true)
        try GIFWriter.withColorMap(globalColorMap) { map in
            try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map))
        }
    }

    deinit {
        if let gif { EGifCloseFile(gif, nil) }
    }

    /// The NETSCAPE2.0 application extension: play `count` times, 0 = forever.
    func writeLoopCount(_ count: Int) throws {
        let gif = try open()
        let value = max(0, min(65535, count))
        try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE))
        try check(EGifPutExtensionBlock(gif, 11, Array("NETSCAPE2.0".utf8)))
        try check(EGifPutExtensionBlock(gif, 3, [1, UInt8(value & 0xFF), UInt8(value >> 8)]))
        try check(EGifPutExtensionTrailer(gif))
    }

    func write(_ frame: Frame) throws {
        let gif = try open()
        guard frame.width > 0, frame.height > 0, frame.indices.count == frame.width * frame.height,
              GIFWriter.fitsField(frame.left), GIFWriter.fitsField(frame.top),
              GIFWriter.fitsField(frame.width), GIFWriter.fitsField(frame.height)
        else { throw ImageCoderError.encodingFailed(.gif, reason: "frame rectangle does not match its pixels") }
        if let control = frame.control {
            let packed = UInt8(control.disposal.code << 2) | (control.transparentIndex == nil ? 0 : 1)
            let delay = max(0, min(65535, control.delay))
            let bytes: [UInt8] = [
                packed, UInt8(delay & 0xFF), UInt8(delay >> 8), UInt8(truncatingIfNeeded: control.transparentIndex ?? 0),
            ]
            try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, bytes))
        }
        try GIFWriter.withColorMap(frame.colorMap) { map in
            try check(EGifPutImageDesc(
                gif, Int32(frame.left), Int32(frame.top), Int32(frame.width), Int32(frame.height), frame.interlaced, map))
        }
        // EGifPutLine masks the row in place, so each row goes through a scratch copy.
        var row = [UInt8](repeating: 0, count: frame.width)
        for y in GIFCanvas.rowOrder(height: frame.height, interlaced: frame.interlaced) {
            let start = y * frame.width
            row.replaceSubrange(0..<frame.width, with: frame.indices[start..<(start + frame.width)])
            try row.withUnsafeMutableBufferPointer { try check(EGifPutLine(gif, $0.baseAddress, Int32(frame.width))) }
        }
    }

    /// Writes the trailer and returns the file.
    func finish() throws -> Data {
        let gif = try open()
        self.gif = nil
        var error: Int32 = 0
        guard EGifCloseFile(gif, &error) == GIF_OK else { throw GIFWriter.failure(code: error) }
        return sink.data
    }

    private func open() throws -> UnsafeMutablePointer<GifFileType> {
        guard let gif else { throw ImageCoderError.encodingFailed(.gif, reason: "the file is already finished") }
        return gif
    }

    private func check(_ status: Int32) throws {
        guard status == GIF_OK else { throw GIFWriter.failure(code: gif?.pointee.Error ?? 0) }
    }

    private static func fitsField(_ value: Int) -> Bool { (0...65535).contains(value) }

    private static func failure(code: Int32) -> ImageCoderError {
        .encodingFailed(.gif, reason: GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)")
    }

    /// A giflib colour map for `colors`, padded to the power of two GIF tables must have.
    private static func withColorMap<T>(_ colors: [RGBA]?, _ body: (UnsafeMutablePointer<ColorMapObject>?) throws -> T) throws -> T {
        guard let colors else { return try body(nil) }
        guard colors.count <= 256 else {
            throw ImageCoderError.encodingFailed(.gif, reason: "a GIF colour table holds at most 256 colours")
        }
        var size = 2
        while size < colors.count { size *= 2 }
        var entries = colors.map { GifColorType(Red: $0.r, Green: $0.g, Blue: $0.b) }
        entries += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - entries.count)
        guard let map = GifMakeMapObject(Int32(size), entries) else { throw ImageCoderError.outOfMemory }
        defer { GifFreeMapObject(map) }
        return try body(map)
    }
}

/// The bytes a ``GIFWriter`` has produced, appended by giflib's output callback.
final class GIFByteSink {
    var data = Data()
}

private func gifWrite(_ gif: UnsafeMutablePointer<GifFileType>?, _ bytes: UnsafePointer<GifByteType>?, _ count: Int32) -> Int32 {
    guard let gif, let bytes, count > 0, let user = gif.pointee.UserData else { return 0 }
    Unmanaged<GIFByteSink>.fromOpaque(user).takeUnretainedValue().data.append(bytes, count: Int(count))
    return count
}
