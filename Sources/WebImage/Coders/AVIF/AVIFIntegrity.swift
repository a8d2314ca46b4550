import CAVIF

extension ImageIntegrity {
    /// libavif parses the container (sizes, items, frame table) without decoding AV1; the bytes
    /// must then hold every frame's whole extent, so a cut-off body fails here rather than in a
    /// later decode.
    static func checkAVIF(_ bytes: UnsafeRawBufferPointer, maxPixelCount: Int) throws(ImageCoderError) {
        try CodecLibrary.avif.load(for: .avif)
        guard let decoder = avifDecoderCreate() else { throw .outOfMemory }
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.ignoreExif = AVIF_TRUE
        decoder.pointee.ignoreXMP = AVIF_TRUE
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var result = avifDecoderSetIOMemory(decoder, base, bytes.count)
        if result == AVIF_RESULT_OK { result = avifDecoderParse(decoder) }
        if result == AVIF_RESULT_TRUNCATED_DATA { throw .truncated(.avif) }
        guard result == AVIF_RESULT_OK, let image = decoder.pointee.image else {
            throw .corrupt(.avif, reason: AVIFStatus.reason(result, decoder.pointee.diag))
        }
        let (width, height) = (Int(image.pointee.width), Int(image.pointee.height))
        if width * height > maxPixelCount { throw .tooLarge(width: width, height: height, limit: maxPixelCount) }
        for frame in 0..<max(1, Int(decoder.pointee.imageCount)) {
            var extent = avifExtent()
            guard avifDecoderNthImageMaxExtent(decoder, UInt32(frame), &extent) == AVIF_RESULT_OK else {
                throw .corrupt(.avif, reason: "frame \(frame) has no data")
            }
            if extent.offset + UInt64(extent.size) > UInt64(bytes.count) { throw .truncated(.avif) }
        }
    }
}
