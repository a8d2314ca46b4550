import CWebImageShims
import Foundation

/// Where a PNG stream's image data lies, when the stream has the plain shape the whole-buffer path
/// takes: the chunks before the first IDAT (libpng reads those), one run of IDAT chunks, then only
/// ancillary chunks that change nothing about the pixels or their colour, and IEND. Any other shape
/// is left to libpng, which decides what it means.
struct PNGImageDataRun {
    /// Just past the first IDAT's length and type: libpng has read the header there.
    let headerEnd: Int
    /// The IDAT chunks, in order.
    let imageData: [APNGChunk]
    /// Every chunk from the first IDAT to IEND, whose CRCs must hold.
    let checked: [APNGChunk]

    /// Chunks after the image data that libpng would weigh (out of place, but not to be second-guessed).
    private static let colourChunks: Set<UInt32> = ["gAMA", "cHRM", "sRGB", "iCCP", "tRNS", "sBIT", "bKGD"].reduce(into: []) {
        $0.insert(APNGChunkType.code($1))
    }

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard var reader = APNGChunkReader(bytes: bytes) else { return nil }
        var imageData: [APNGChunk] = []
        var checked: [APNGChunk] = []
        do {
            while let chunk = try reader.next() {
                if chunk.type == APNGChunkType.IDAT {
                    // A second run of IDAT is malformed: libpng words the error.
                    guard checked.count == imageData.count else { return nil }
                    imageData.append(chunk)
                    checked.append(chunk)
                } else if imageData.isEmpty {
                    continue
                } else if chunk.type == APNGChunkType.IEND {
                    guard chunk.data.isEmpty else { return nil }
                    checked.append(chunk)
                    // Bytes after IEND are ignored, as libpng's reader ignores them.
                    self.headerEnd = imageData[0].data.lowerBound
                    self.imageData = imageData
                    self.checked = checked
                    return
                } else {
                    let ancillary = chunk.type & 0x2000_0000 != 0
                    guard ancillary, !Self.colourChunks.contains(chunk.type) else { return nil }
                    checked.append(chunk)
                }
            }
        } catch {
            return nil
        }
        return nil  // no IEND
    }
}

extension PNGPushDecoder {
    /// Decodes a non-interlaced image whose stream has the plain shape of `run` without libpng's
    /// rows: libdeflate inflates the joined IDAT data into exactly the size the header implies,
    /// C unfilters and expands the rows to the RGBA8 libpng's transforms would give. Every CRC
    /// from the first IDAT on is checked first. `nil` when anything is off (a CRC, the stream's
    /// length, a filter byte, an unusual layout): libpng then decodes the file and says what is
    /// wrong, so errors and edge cases stay libpng's. The header must be ready and checked.
    func decodeImageData(_ data: Data, run: PNGImageDataRun) -> Bitmap? {
        guard let handle = decoderHandle, wi_png_is_interlaced(handle) == 0,
              let layout = wi_png_source_layout(handle) else { return nil }
        let size = self.size
        struct Declined: Error {}
        return data.withUnsafeBytes { bytes -> Bitmap? in
            guard let reader = APNGChunkReader(bytes: bytes), run.checked.allSatisfy(reader.crcIsValid) else { return nil }
            do {
                return try Bitmap(width: size.width, height: size.height) { rgba in
                    let status = Self.withJoinedData(run.imageData, in: bytes) { zlib in
                        wi_png_rows_decode(layout, zlib.baseAddress?.assumingMemoryBound(to: UInt8.self), zlib.count, rgba.baseAddress)
                    }
                    guard status == Int32(WI_PNG_ROWS_OK) else { throw Declined() }
                }
            } catch {
                return nil
            }
        }
    }

    /// The IDAT chunks' data as one buffer: the file's own bytes when there is one chunk.
    private static func withJoinedData<R>(
        _ chunks: [APNGChunk], in bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        if chunks.count == 1 { return body(UnsafeRawBufferPointer(rebasing: bytes[chunks[0].data])) }
        let total = chunks.reduce(0) { $0 + $1.data.count }
        let joined = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 16)
        defer { joined.deallocate() }
        var offset = 0
        for chunk in chunks {
            UnsafeMutableRawBufferPointer(rebasing: joined[offset..<(offset + chunk.data.count)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[chunk.data]))
            offset += chunk.data.count
        }
        return body(UnsafeRawBufferPointer(rebasing: joined[0..<total]))
    }
}
