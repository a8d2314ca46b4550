import Foundation

/// A standalone PNG for one APNG frame, so libpng (which knows nothing of APNG) can decode it:
/// the signature, an IHDR with the frame's size, the chunks every frame shares, the frame's data
/// as IDAT chunks, and IEND. Rebuilt chunks get fresh CRCs; shared ones are copied as they are,
/// CRC included, so libpng checks them exactly as it does for the still image.
enum APNGFrameStream {
    static func png(for frame: APNGFrame, in container: APNGContainer, bytes: UnsafeRawBufferPointer) -> Data {
        var out = Data()
        out.reserveCapacity(64 + container.prelude.reduce(0) { $0 + $1.count } + frame.data.reduce(0) { $0 + $1.count + 12 })
        out.append(contentsOf: APNGChunkReader.signature)
        // Width and height are the frame's; bit depth, colour type, compression, filter and
        // interlace method are the file's.
        var header = bigEndian(UInt32(frame.width)) + bigEndian(UInt32(frame.height))
        header += UnsafeRawBufferPointer(rebasing: bytes[(container.header.lowerBound + 8)..<container.header.upperBound])
        header.withUnsafeBytes { appendChunk("IHDR", $0, to: &out) }
        for chunk in container.prelude {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[chunk]))
        }
        for piece in frame.data {
            appendChunk("IDAT", UnsafeRawBufferPointer(rebasing: bytes[piece]), to: &out)
        }
        appendChunk("IEND", UnsafeRawBufferPointer(start: nil, count: 0), to: &out)
        return out
    }

    private static func appendChunk(_ type: String, _ body: UnsafeRawBufferPointer, to out: inout Data) {
        let typeBytes = Array(type.utf8)
        out.append(contentsOf: bigEndian(UInt32(body.count)))
        out.append(contentsOf: typeBytes)
        out.append(contentsOf: body)
        let crc = typeBytes.withUnsafeBytes { APNGCRC32.update(APNGCRC32.checksum($0), body) }
        out.append(contentsOf: bigEndian(crc))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
