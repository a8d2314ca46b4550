import Foundation

extension ImageIntegrity {
    /// A decode: libjxl's frame walk skips frame data by sizes it does not check against the
    /// input (a file cut inside its last frame walks to the end), and it shows no frame extents to
    /// check a cut-off body against. The pixel limit still comes first, from the basic info; the
    /// decode keeps the caller's limits (`options`), the animation budget among them.
    static func checkJXL(_ data: Data, options: ImageDecodeOptions) throws(ImageCoderError) {
        do {
            _ = try JXLDecoding.decode(data, options: options)
        } catch let error as ImageCoderError {
            throw error
        } catch {
            throw .corrupt(.jpegXL, reason: "\(error)")
        }
    }
}
