import CAVIF
import Foundation

enum AVIFEncoding {
    /// `bitmap` as an AVIF still: 4:2:0 at a quantizer from `quality` (libavif 1.x's mapping of
    /// its 0–100 quality), or `lossless`: 4:4:4 with identity coefficients, quantizer 0.
    static func encode(_ bitmap: Bitmap, hasAlpha: Bool, quality: Double, lossless: Bool, speed: Int, icc: Data? = nil) throws -> Data {
        try CodecLibrary.avif.load(for: .avif)
        guard let image = avifImageCreate(UInt32(bitmap.width), UInt32(bitmap.height), 8,
                                          lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420)
        else { throw ImageCoderError.outOfMemory }
        defer { avifImageDestroy(image) }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        if lossless { image.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_IDENTITY) }
        if let icc, !icc.isEmpty {
            icc.withUnsafeBytes { avifImageSetProfileICC(image, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), $0.count) }
        }
        try bitmap.pixels.withUnsafeBufferPointer { pixels in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.ignoreAlpha = hasAlpha ? AVIF_FALSE : AVIF_TRUE
            rgb.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress)
            rgb.rowBytes = UInt32(bitmap.bytesPerRow)
            try check(avifImageRGBToYUV(image, &rgb), diag: nil)
        }
        guard let encoder = avifEncoderCreate() else { throw ImageCoderError.outOfMemory }
        defer { avifEncoderDestroy(encoder) }
        // One thread: WebImage's processing queue is the parallelism.
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = Int32(speed)
        let percent = max(0, min(100, Int((quality * 100).rounded())))
        let quantizer = lossless ? AVIF_QUANTIZER_LOSSLESS : Int32(((100 - percent) * 63 + 50) / 100)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        try check(avifEncoderWrite(encoder, image, &output), diag: encoder.pointee.diag)
        return Data(bytes: output.data, count: output.size)
    }

    private static func check(_ result: avifResult, diag: avifDiagnostics?) throws {
        guard result != AVIF_RESULT_OK else { return }
        throw ImageCoderError.encodingFailed(.avif, reason: AVIFStatus.reason(result, diag))
    }
}
