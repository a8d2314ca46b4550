import CGIF
import Foundation

/// giflib's record-level reader (`DGif*`) over bytes in memory.
///
/// The low-level API rather than `DGifSlurp`: the slurp allocates every frame's raster at the
/// size its descriptor declares (a 65535×65535 frame is 4 GB) before we could check it, and keeps
/// all of them. Here the caller sees each frame's header first, then pulls rows one at a time
/// (or skips the compressed data). De-interlacing is therefore ours too — `DGifSlurp` does it in
/// giflib 5.x, `DGifGetLine` does not.
///
/// One owner at a time; the bytes must outlive the reader.
final class GIFReader {
    private let source: GIFByteSource
    var bytes: UnsafeRawBufferPointer { source.bytes }
    private let gif: UnsafeMutablePointer<GifFileType>
    private var pendingControl: GIFGraphicsControl?
    /// Frames whose descriptor has been read.
    private(set) var framesRead = 0
    /// From the first NETSCAPE2.0 / ANIMEXTS1.0 application extension seen so far.
    private(set) var loopCount: Int?

    init(bytes: UnsafeRawBufferPointer) throws {
        let source = GIFByteSource(bytes: bytes)
        var error: Int32 = 0
        guard let gif = DGifOpen(Unmanaged.passUnretained(source).toOpaque(), gifRead, &error) else {
            throw GIFReader.failure(code: error, ranOut: source.ranOut)
        }
        self.source = source
        self.gif = gif
    }

    /// A reader that continues from `position`, a record boundary another reader over the same
    /// bytes reported after `framesRead` frames (giflib keeps no state between records beyond
    /// the header it reads on opening).
    convenience init(bytes: UnsafeRawBufferPointer, resumingAt position: Int, framesRead: Int, loopCount: Int?) throws {
        try self.init(bytes: bytes)
        source.seek(to: position)
        self.framesRead = framesRead
        self.loopCount = loopCount
    }

    /// Where the next record starts, between frames.
    var position: Int { source.position }

    deinit { DGifCloseFile(gif, nil) }

    /// The logical screen size the header declares (may be 0×0 in broken files).
    var screenSize: PixelSize { PixelSize(width: Int(gif.pointee.SWidth), height: Int(gif.pointee.SHeight)) }

    /// Reads records up to the next image descriptor and returns its header, or `nil` at the end.
    /// The caller must then consume the frame's data with ``readRow(into:)`` or ``skipImageData()``.
    func nextFrame() throws -> GIFFrameHeader? {
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) == GIF_OK else {
                // A file that stops, or turns to junk, between records after complete frames is
                // shown as far as it goes, as browsers and ImageIO do (a missing trailer is common).
                if framesRead > 0 { return nil }
                throw failure()
            }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(gif) == GIF_OK else { throw failure() }
                framesRead += 1
                defer { pendingControl = nil }
                return header()
            case EXTENSION_RECORD_TYPE:
                try readExtension()
            case TERMINATE_RECORD_TYPE:
                if framesRead == 0 { throw failure(code: D_GIF_ERR_NO_IMAG_DSCR) }
                return nil
            default:
                throw failure()
            }
        }
    }

    /// Decodes the next row of the current frame into `row` (exactly the frame's width). Returns
    /// `false` when the LZW stream ended early (an end code before the last pixel, a common encoder
    /// slip browsers tolerate): the rest of the frame's data has then been skipped.
    func readRow(into row: UnsafeMutableBufferPointer<UInt8>) throws -> Bool {
        guard let base = row.baseAddress, row.count > 0 else { return true }
        if DGifGetLine(gif, base, Int32(row.count)) == GIF_OK { return true }
        if gif.pointee.Error == D_GIF_ERR_EOF_TOO_SOON && !source.ranOut {
            // giflib buffers whole sub-blocks, so the stream is at the next block's length byte.
            try skipRemainingBlocks()
            return false
        }
        throw failure()
    }

    /// Skips the current frame's compressed data without decoding it.
    func skipImageData() throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(gif, &codeSize, &block) == GIF_OK else { throw failure() }
        if block != nil { try skipRemainingBlocks() }
    }

    private func skipRemainingBlocks() throws {
        var block: UnsafeMutablePointer<GifByteType>?
        repeat {
            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw failure() }
        } while block != nil
    }

    private func header() -> GIFFrameHeader {
        let image = gif.pointee.Image
        let map = image.ColorMap ?? gif.pointee.SColorMap
        return GIFFrameHeader(
            left: Int(image.Left), top: Int(image.Top), width: Int(image.Width), height: Int(image.Height),
            interlaced: image.Interlace, colorMap: map.map(GIFReader.colors(of:)),
            control: pendingControl ?? GIFGraphicsControl())
    }

    private static func colors(of map: UnsafeMutablePointer<ColorMapObject>) -> [RGBA] {
        let count = max(0, min(256, Int(map.pointee.ColorCount)))
        guard let colors = map.pointee.Colors else { return [] }
        return (0..<count).map { RGBA(r: colors[$0].Red, g: colors[$0].Green, b: colors[$0].Blue) }
    }

    /// Graphics Control (for the next frame) and looping application extensions; others skipped.
    private func readExtension() throws {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure() }
        var isLoopExtension = false
        if let first = block {
            let bytes = UnsafeBufferPointer(start: first + 1, count: Int(first[0]))
            switch code {
            case GRAPHICS_EXT_FUNC_CODE:
                pendingControl = GIFGraphicsControl(extensionBytes: bytes)
            case APPLICATION_EXT_FUNC_CODE:
                let identifier = String(decoding: bytes, as: UTF8.self)
                isLoopExtension = identifier == "NETSCAPE2.0" || identifier == "ANIMEXTS1.0"
            default:
                break
            }
        }
        while block != nil {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure() }
            // Sub-block 1 of the looping extension: [1, count low, count high].
            if isLoopExtension, loopCount == nil, let data = block, data[0] >= 3, data[1] == 1 {
                loopCount = Int(data[2]) | Int(data[3]) << 8
            }
        }
    }

    private func failure(code: Int32? = nil) -> ImageCoderError {
        GIFReader.failure(code: code ?? gif.pointee.Error, ranOut: source.ranOut)
    }

    /// giflib's codes do not tell a cut-off file from a malformed one (both can be "read failed");
    /// whether it asked for bytes past the end does.
    static func failure(code: Int32, ranOut: Bool) -> ImageCoderError {
        if ranOut { return .truncated(.gif) }
        let reason = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return .corrupt(.gif, reason: reason)
    }
}

/// The bytes behind a ``GIFReader``, read through giflib's input callback.
final class GIFByteSource {
    let bytes: UnsafeRawBufferPointer
    private var offset = 0

    var position: Int { offset }
    func seek(to position: Int) { offset = min(max(0, position), bytes.count) }
    /// giflib asked for more bytes than were left.
    private(set) var ranOut = false

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let available = max(0, min(count, bytes.count - offset))
        if available < count { ranOut = true }
        if available > 0, let base = bytes.baseAddress {
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: available)
        }
        offset += available
        return available
    }
}

private func gifRead(_ gif: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafeMutablePointer<GifByteType>?, _ count: Int32) -> Int32 {
    guard let gif, let buffer, count > 0, let user = gif.pointee.UserData else { return 0 }
    let source = Unmanaged<GIFByteSource>.fromOpaque(user).takeUnretainedValue()
    return Int32(source.read(into: buffer, count: Int(count)))
}
