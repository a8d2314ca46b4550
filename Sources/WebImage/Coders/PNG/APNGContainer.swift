/// The structure of an animated PNG, parsed in Swift because Debian's libpng has no APNG patch:
/// libpng skips `acTL`/`fcTL`/`fdAT` as unknown ancillary chunks, so it only ever sees the
/// default image.
struct APNGContainer {
    var width: Int
    var height: Int
    /// The IHDR chunk's 13 data bytes (each frame's stream copies all but the size).
    var header: Range<Int>
    /// Whole chunks between IHDR and the first IDAT (PLTE, tRNS, gAMA, iCCP...) that each frame's
    /// stream repeats so its colours decode the same; APNG's own chunks are left out.
    var prelude: [Range<Int>]
    /// 0 = forever (`num_plays`).
    var loopCount: Int
    /// At least one; no more than `acTL` declares.
    var frames: [APNGFrame]

    var canvasSize: PixelSize { PixelSize(width: width, height: height) }

    /// The animation in `bytes`, or `nil` when they are not an animated PNG: not a PNG, no `acTL`
    /// before the image data, an invalid `acTL` (bad length or CRC, zero frames), or no frame.
    /// Anything wrong before the image data also gives `nil`, so the still decoder reports it
    /// with libpng's words. Past that point damage is an error: ``ImageCoderError/truncated(_:)``
    /// when the data ends before IEND, ``ImageCoderError/corrupt(_:reason:)`` otherwise.
    ///
    /// With `options`, a canvas over their pixel limit is ``ImageCoderError/tooLarge(width:height:limit:)``
    /// as soon as the animation is known, before any frame is looked at.
    static func parse(_ bytes: UnsafeRawBufferPointer, checking options: ImageDecodeOptions? = nil) throws -> APNGContainer? {
        guard var reader = APNGChunkReader(bytes: bytes) else { return nil }

        // Up to the first IDAT: the header, the animation control, and what every frame shares.
        guard let ihdr = try? reader.next(), ihdr.type == APNGChunkType.IHDR, ihdr.data.count == 13,
              reader.crcIsValid(ihdr)
        else { return nil }
        var animation: (frames: Int, plays: Int)?
        var animationIsValid = true
        var defaultFrameControl: APNGChunk?
        var prelude: [Range<Int>] = []
        var chunk: APNGChunk
        while true {
            guard let next = try? reader.next() else { return nil }
            chunk = next
            if chunk.type == APNGChunkType.IDAT { break }
            switch chunk.type {
            case APNGChunkType.IEND:
                return nil
            case APNGChunkType.acTL where animation == nil:
                guard chunk.data.count == 8, reader.crcIsValid(chunk) else {
                    animationIsValid = false
                    continue
                }
                animation = (Int(reader.uint32(at: chunk.data.lowerBound)), Int(reader.uint32(at: chunk.data.lowerBound + 4)))
            case APNGChunkType.fcTL:
                guard defaultFrameControl == nil else {
                    throw ImageCoderError.corrupt(.png, reason: "two fcTL chunks before the image data")
                }
                defaultFrameControl = chunk
            case APNGChunkType.fdAT, APNGChunkType.acTL:
                break
            default:
                prelude.append(chunk.range)
            }
        }
        guard animationIsValid, let animation, animation.frames > 0, animation.frames <= Int(Int32.max) else {
            return nil
        }
        let width = Int(reader.uint32(at: ihdr.data.lowerBound))
        let height = Int(reader.uint32(at: ihdr.data.lowerBound + 4))
        guard width > 0, height > 0 else { return nil }
        try options?.checkPixelLimit(width: width, height: height)

        var parser = FrameParser(reader: reader, canvas: PixelSize(width: width, height: height))
        // The default image is the first frame only when its fcTL comes before IDAT.
        if let defaultFrameControl {
            try parser.begin(defaultFrameControl, isDefaultImage: true)
        }
        while chunk.type == APNGChunkType.IDAT {
            try parser.addImageData(chunk)
            guard let next = try parser.reader.next() else { throw ImageCoderError.truncated(.png) }
            chunk = next
        }
        while chunk.type != APNGChunkType.IEND {
            switch chunk.type {
            case APNGChunkType.fcTL: try parser.begin(chunk, isDefaultImage: false)
            case APNGChunkType.fdAT: try parser.addFrameData(chunk)
            case APNGChunkType.IDAT: throw ImageCoderError.corrupt(.png, reason: "IDAT after the animation frames began")
            default: break
            }
            guard let next = try parser.reader.next() else { throw ImageCoderError.truncated(.png) }
            chunk = next
        }
        let frames = try parser.finish().prefix(animation.frames)
        guard !frames.isEmpty else { return nil }
        return APNGContainer(
            width: width, height: height, header: ihdr.data, prelude: prelude, loopCount: animation.plays,
            frames: Array(frames))
    }
}

/// Collects frames from fcTL/IDAT/fdAT chunks, checking sequence numbers, CRCs and rectangles.
private struct FrameParser {
    var reader: APNGChunkReader
    let canvas: PixelSize
    var frames: [APNGFrame] = []
    var current: APNGFrame?
    var currentIsDefaultImage = false
    var sequence = 0

    init(reader: APNGChunkReader, canvas: PixelSize) {
        self.reader = reader
        self.canvas = canvas
    }

    mutating func begin(_ chunk: APNGChunk, isDefaultImage: Bool) throws {
        guard chunk.data.count == 26 else { throw ImageCoderError.corrupt(.png, reason: "fcTL chunk of the wrong length") }
        try checkCRC(chunk, "fcTL")
        let base = chunk.data.lowerBound
        try checkSequence(at: base)
        try closeFrame()
        let width = Int(reader.uint32(at: base + 4)), height = Int(reader.uint32(at: base + 8))
        let x = Int(reader.uint32(at: base + 12)), y = Int(reader.uint32(at: base + 16))
        guard width > 0, height > 0, x + width <= canvas.width, y + height <= canvas.height else {
            throw ImageCoderError.corrupt(
                .png, reason: "APNG frame \(frames.count + 1) (\(width)x\(height) at \(x),\(y)) is outside the \(canvas) canvas")
        }
        if isDefaultImage, x != 0 || y != 0 || width != canvas.width || height != canvas.height {
            throw ImageCoderError.corrupt(.png, reason: "the default image's fcTL does not cover the canvas")
        }
        guard let dispose = APNGDispose(rawValue: reader.bytes[base + 24]),
              let blend = APNGBlend(rawValue: reader.bytes[base + 25])
        else { throw ImageCoderError.corrupt(.png, reason: "unknown APNG dispose or blend operation") }
        current = APNGFrame(
            x: x, y: y, width: width, height: height, delayNumerator: Int(reader.uint16(at: base + 20)),
            delayDenominator: Int(reader.uint16(at: base + 22)), dispose: dispose, blend: blend)
        currentIsDefaultImage = isDefaultImage
    }

    /// IDAT belongs to the animation only when an fcTL preceded it.
    mutating func addImageData(_ chunk: APNGChunk) throws {
        guard currentIsDefaultImage else { return }
        try checkCRC(chunk, "IDAT")
        current?.data.append(chunk.data)
    }

    mutating func addFrameData(_ chunk: APNGChunk) throws {
        guard chunk.data.count >= 4 else { throw ImageCoderError.corrupt(.png, reason: "fdAT chunk too short") }
        try checkCRC(chunk, "fdAT")
        try checkSequence(at: chunk.data.lowerBound)
        guard current != nil, !currentIsDefaultImage else {
            throw ImageCoderError.corrupt(.png, reason: "fdAT chunk without its fcTL")
        }
        current?.data.append((chunk.data.lowerBound + 4)..<chunk.data.upperBound)
    }

    mutating func finish() throws -> [APNGFrame] {
        try closeFrame()
        return frames
    }

    private mutating func closeFrame() throws {
        guard let frame = current else { return }
        guard !frame.data.isEmpty else {
            throw ImageCoderError.corrupt(.png, reason: "APNG frame \(frames.count + 1) has no image data")
        }
        frames.append(frame)
        current = nil
    }

    /// fcTL and fdAT share one sequence, 0, 1, 2...: a gap means a chunk was lost or reordered.
    private mutating func checkSequence(at offset: Int) throws {
        let number = Int(reader.uint32(at: offset))
        guard number == sequence else {
            throw ImageCoderError.corrupt(.png, reason: "APNG sequence number \(number) where \(sequence) was expected")
        }
        sequence += 1
    }

    private func checkCRC(_ chunk: APNGChunk, _ name: String) throws {
        guard reader.crcIsValid(chunk) else { throw ImageCoderError.corrupt(.png, reason: "\(name): CRC error") }
    }
}
