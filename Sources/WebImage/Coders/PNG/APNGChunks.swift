/// One chunk of a PNG stream, located in the file's bytes.
struct APNGChunk {
    /// The four type letters as a big-endian word (see ``APNGChunkType``).
    let type: UInt32
    /// The whole chunk: length, type, data and CRC.
    let range: Range<Int>
    /// Its data alone.
    let data: Range<Int>
}

/// Chunk types the APNG parser looks at.
enum APNGChunkType {
    static let IHDR = code("IHDR")
    static let IDAT = code("IDAT")
    static let IEND = code("IEND")
    static let acTL = code("acTL")
    static let fcTL = code("fcTL")
    static let fdAT = code("fdAT")

    static func code(_ name: String) -> UInt32 {
        name.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

/// Walks a PNG stream chunk by chunk, every length checked against the bytes present.
struct APNGChunkReader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    let bytes: UnsafeRawBufferPointer
    private var offset = signature.count

    /// `nil` when the bytes do not start with the PNG signature.
    init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= APNGChunkReader.signature.count,
              zip(bytes, APNGChunkReader.signature).allSatisfy({ $0 == $1 })
        else { return nil }
        self.bytes = bytes
    }

    /// The next chunk, or `nil` when the bytes end exactly between chunks. A chunk that runs past
    /// the end is ``ImageCoderError/truncated(_:)``.
    mutating func next() throws -> APNGChunk? {
        if offset == bytes.count { return nil }
        guard bytes.count - offset >= 12 else { throw ImageCoderError.truncated(.png) }
        let length = Int(uint32(at: offset))
        // PNG caps chunk lengths at 2^31 − 1; anything above is damage, not a big chunk.
        guard length <= Int(Int32.max) else { throw ImageCoderError.corrupt(.png, reason: "chunk length out of range") }
        guard bytes.count - offset - 12 >= length else { throw ImageCoderError.truncated(.png) }
        let start = offset
        offset += 12 + length
        return APNGChunk(type: uint32(at: start + 4), range: start..<offset, data: (start + 8)..<(start + 8 + length))
    }

    /// Whether the chunk's stored CRC matches its type and data.
    func crcIsValid(_ chunk: APNGChunk) -> Bool {
        let covered = UnsafeRawBufferPointer(rebasing: bytes[(chunk.data.lowerBound - 4)..<chunk.data.upperBound])
        return APNGCRC32.checksum(covered) == uint32(at: chunk.data.upperBound)
    }

    /// A big-endian word; `offset + 4` must be within the bytes (chunk ranges guarantee it).
    func uint32(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    func uint16(at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }
}
