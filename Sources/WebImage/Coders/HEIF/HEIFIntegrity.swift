import Foundation

extension ImageIntegrity {
    /// libheif exposes no item extents to check against the byte count, so a HEIF is checked by
    /// decoding its primary image: dearer than the other formats' walks, but a body cut inside
    /// the coded image must not pass into a cache.
    static func checkHEIF(_ bytes: UnsafeRawBufferPointer, maxPixelCount: Int) throws(ImageCoderError) {
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count, deallocator: .none)
        do {
            _ = try HEIFCoder().decode(data, options: ImageDecodeOptions(decodeFirstFrameOnly: true, maxPixelCount: maxPixelCount))
        } catch let error as ImageCoderError {
            throw error
        } catch {
            throw .corrupt(ImageFormat.detect(data), reason: "\(error)")
        }
    }
}
