import CWebP
import Foundation

/// A structural check of JPEG, PNG, GIF, WebP and AVIF bytes that decodes no pixels (JPEG XL is
/// decoded): for loads that only keep the bytes (`webimage prefetch`), where a full decode would cost more CPU than downloading
/// and storing them, but a truncated or mangled body must still never reach the cache.
///
/// What each format gets — every check linear in the bytes:
/// - JPEG: the marker structure from SOI to EOI (stray bytes between segments skipped, as libjpeg
///   does), every segment length within the bytes, a frame header before the first scan, the
///   entropy-coded data of every scan walked to its end marker.
///   (JPEG has no checksum: flipped bits inside a scan pass; only a decode could notice them.)
/// - PNG: IHDR first, every critical chunk's CRC (libpng drops a bad ancillary one), at least one
///   IDAT, IEND.
/// - GIF: the block structure of every frame (giflib, without LZW decoding). A file that stops
///   after a complete frame passes, as decoders and browsers show it (a missing trailer is common).
/// - WebP: the RIFF chunks tiling the declared size exactly, and libwebp's bitstream header check.
/// - AVIF: libavif's parse, and every frame's extent inside the bytes.
/// - JPEG XL: a decode (libjxl shows no frame extents to check a cut-off body against).
///
/// Dimensions are checked against `maxPixelCount` as a decode would (and a JPEG XL decode keeps
/// `maxAnimationBytes`). Anything else (HEIC, BMP…)
/// is ``ImageCoderError/unsupportedFormat(_:)``: WebImage could not decode it either.
public enum ImageIntegrity {
    /// Returns when `data` is a structurally whole JPEG, PNG, GIF, WebP, AVIF or JPEG XL within `maxPixelCount`;
    /// throws ``ImageCoderError/truncated(_:)``, ``ImageCoderError/corrupt(_:reason:)``,
    /// ``ImageCoderError/tooLarge(width:height:limit:)``, ``ImageCoderError/emptyData`` or
    /// ``ImageCoderError/unsupportedFormat(_:)`` otherwise.
    /// `maxDecodeBytes` bounds the one format checked by decoding (JPEG XL): past it the check
    /// throws ``ImageCoderError/decodeBudgetExceeded(planned:limit:)`` before decoding.
    public static func check(
        _ data: Data, maxPixelCount: Int = ImageDecodeOptions.defaultMaxPixelCount,
        maxAnimationBytes: Int? = ImageDecodeOptions.defaultMaxAnimationBytes, maxDecodeBytes: Int? = nil
    ) throws(ImageCoderError) {
        guard !data.isEmpty else { throw .emptyData }
        let format = ImageFormat.detect(data)
        if format == .jpegXL {
            var options = ImageDecodeOptions(maxPixelCount: maxPixelCount, maxAnimationBytes: maxAnimationBytes)
            options.maxDecodeBytes = maxDecodeBytes
            return try checkJXL(data, options: options)
        }
        let outcome: Result<Void, ImageCoderError> = data.withUnsafeBytes { bytes in
            do throws(ImageCoderError) {
                switch format {
                case .jpeg: try checkJPEG(bytes, maxPixelCount: maxPixelCount)
                case .png: try checkPNG(bytes, maxPixelCount: maxPixelCount)
                case .gif: try checkGIF(bytes, maxPixelCount: maxPixelCount)
                case .webp: try checkWebP(bytes, maxPixelCount: maxPixelCount)
                case .avif: try checkAVIF(bytes, maxPixelCount: maxPixelCount)
                default: throw .unsupportedFormat(format)
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    // MARK: JPEG

    static func checkJPEG(_ bytes: UnsafeRawBufferPointer, maxPixelCount: Int) throws(ImageCoderError) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { throw .corrupt(.jpeg, reason: "no start-of-image marker") }
        var offset = 2
        var sawFrame = false
        var sawScan = false
        while true {
            // Stray bytes before a marker are skipped with a warning by libjpeg (real camera files
            // have them), so they are skipped here too; then any fill bytes.
            while offset < bytes.count, bytes[offset] != 0xFF { offset += 1 }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { throw .truncated(.jpeg) }
            let marker = bytes[offset]
            offset += 1
            switch marker {
            case 0xD9:
                guard sawScan else { throw .corrupt(.jpeg, reason: "no image data before the end-of-image marker") }
                return  // bytes after EOI are ignored, as every decoder does
            case 0xD0...0xD7, 0x01:
                continue  // restart markers and TEM stand alone
            case 0x00, 0xD8:
                throw .corrupt(.jpeg, reason: "unexpected marker 0x\(String(marker, radix: 16)) at byte \(offset - 1)")
            default:
                break
            }
            guard bytes.count - offset >= 2 else { throw .truncated(.jpeg) }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2 else { throw .corrupt(.jpeg, reason: "segment length \(length) at byte \(offset)") }
            guard bytes.count - offset >= length else { throw .truncated(.jpeg) }
            if isStartOfFrame(marker) {
                guard length >= 8 else { throw .corrupt(.jpeg, reason: "short frame header") }
                let height = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
                let width = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                guard width > 0 else { throw .corrupt(.jpeg, reason: "zero image width") }
                if width * height > maxPixelCount { throw .tooLarge(width: width, height: height, limit: maxPixelCount) }
                sawFrame = true
            }
            offset += length
            if marker == 0xDA {
                guard sawFrame else { throw .corrupt(.jpeg, reason: "a scan before any frame header") }
                sawScan = true
                offset = try endOfEntropyCodedData(bytes, from: offset)
            }
        }
    }

    /// SOF0–SOF15, without DHT (C4), JPG (C8) and DAC (CC), which share the range.
    private static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The offset of the marker that ends a scan's entropy-coded data. Inside it a 0xFF byte is
    /// always followed by 0x00 (stuffing) or a restart marker, so the first other pair is the end.
    private static func endOfEntropyCodedData(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(ImageCoderError) -> Int {
        guard let base = bytes.baseAddress else { throw .truncated(.jpeg) }
        var offset = start
        while offset < bytes.count {
            guard let found = memchr(base + offset, 0xFF, bytes.count - offset) else { break }
            let position = base.distance(to: UnsafeRawPointer(found))
            guard position + 1 < bytes.count else { break }
            let next = bytes[position + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                offset = position + 1
                continue
            }
            return position
        }
        throw .truncated(.jpeg)
    }

    // MARK: PNG

    static func checkPNG(_ bytes: UnsafeRawBufferPointer, maxPixelCount: Int) throws(ImageCoderError) {
        guard var reader = APNGChunkReader(bytes: bytes) else { throw .corrupt(.png, reason: "no PNG signature") }
        var sawData = false
        var isFirst = true
        while true {
            let next: APNGChunk?
            do { next = try reader.next() } catch { throw error as? ImageCoderError ?? .truncated(.png) }
            guard let chunk = next else { throw .truncated(.png) }  // ended without IEND
            // libpng refuses a critical chunk (type starting upper-case) with a bad CRC and drops an
            // ancillary one with a warning; so does this check.
            let isCritical = chunk.type & 0x2000_0000 == 0
            if isCritical, !reader.crcIsValid(chunk) {
                throw .corrupt(.png, reason: "bad CRC in the chunk at byte \(chunk.range.lowerBound)")
            }
            if isFirst {
                guard chunk.type == APNGChunkType.IHDR, chunk.data.count == 13 else {
                    throw .corrupt(.png, reason: "the first chunk is not a header (IHDR)")
                }
                let width = Int(reader.uint32(at: chunk.data.lowerBound))
                let height = Int(reader.uint32(at: chunk.data.lowerBound + 4))
                // The PNG spec caps each side at 2^31 - 1; larger values would overflow the product.
                guard (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height) else {
                    throw .corrupt(.png, reason: "image size \(width)x\(height) out of range")
                }
                if width * height > maxPixelCount { throw .tooLarge(width: width, height: height, limit: maxPixelCount) }
                isFirst = false
            }
            if chunk.type == APNGChunkType.IDAT { sawData = true }
            if chunk.type == APNGChunkType.IEND {
                guard sawData else { throw .corrupt(.png, reason: "no image data (IDAT)") }
                return
            }
        }
    }

    // MARK: GIF

    static func checkGIF(_ bytes: UnsafeRawBufferPointer, maxPixelCount: Int) throws(ImageCoderError) {
        do {
            _ = try GIFScan(bytes: bytes, maxPixelCount: maxPixelCount)
        } catch {
            throw error as? ImageCoderError ?? .corrupt(.gif, reason: "\(error)")
        }
    }

    // MARK: WebP

    static func checkWebP(_ bytes: UnsafeRawBufferPointer, maxPixelCount: Int) throws(ImageCoderError) {
        guard bytes.count >= 20 else { throw .truncated(.webp) }
        let riffEnd = 8 + Int(littleEndian32(bytes, at: 4))
        guard riffEnd <= bytes.count else { throw .truncated(.webp) }
        var offset = 12
        while offset < riffEnd {
            guard riffEnd - offset >= 8 else { throw .corrupt(.webp, reason: "a chunk header runs past the RIFF size") }
            let size = Int(littleEndian32(bytes, at: offset + 4))
            let padded = size + (size & 1)
            guard riffEnd - offset - 8 >= padded || riffEnd - offset - 8 == size else {
                throw .truncated(.webp)
            }
            offset += 8 + min(padded, riffEnd - offset - 8)
        }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), riffEnd, &features)
        guard status == VP8_STATUS_OK else { throw .corrupt(.webp, reason: "bad bitstream header (libwebp status \(status.rawValue))") }
        let (width, height) = (Int(features.width), Int(features.height))
        if width * height > maxPixelCount { throw .tooLarge(width: width, height: height, limit: maxPixelCount) }
    }

    private static func littleEndian32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }
}
