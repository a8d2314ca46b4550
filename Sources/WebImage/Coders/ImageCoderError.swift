/// Why an image could not be decoded or encoded. Each case reads as one actionable line.
public enum ImageCoderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No registered coder handles this format (or the bytes are not an image at all).
    case unsupportedFormat(ImageFormat)
    /// Empty input.
    case emptyData
    /// The data ends before the image does (a cut-off download or file).
    case truncated(ImageFormat)
    /// The codec library rejected the data; `reason` is its message.
    case corrupt(ImageFormat, reason: String)
    /// The header declares more pixels than ``ImageDecodeOptions/maxPixelCount`` allows;
    /// rejected before any pixel memory is allocated. For an animation, also when its frames
    /// together are more canvas than the budget lets it composite; `limit` is then the canvas
    /// size its frame count allows (``ImageDecodeOptions/maxAnimationBytes``).
    case tooLarge(width: Int, height: Int, limit: Int)
    /// The encoder failed or cannot write this image in this format.
    case encodingFailed(ImageFormat, reason: String)
    /// Memory for the pixel buffer could not be allocated.
    case outOfMemory
    /// The decode would allocate about `planned` bytes at its peak (bitmaps and the decoder's own
    /// buffers), more than ``ImageDecodeOptions/maxDecodeBytes`` allows; refused before that
    /// memory is allocated (or, for a decoder that counts its own, when its count passed `limit`).
    case decodeBudgetExceeded(planned: Int, limit: Int)
    /// The JPEG has more scans than ``ImageDecodeOptions/maxProgressiveScans`` allows (each scan
    /// is another pass over the whole image).
    case tooManyScans(limit: Int)
    /// The codec library for `format` could not be opened (it is loaded on first use, not at
    /// start): `library` is the file looked for, `package` the Debian package that installs it.
    case libraryUnavailable(ImageFormat, library: String, package: String, reason: String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let format):
            format == .undefined
                ? "not an image this build can read (unrecognised leading bytes)"
                : "no decoder for \(format.rawValue) images in this build"
        case .emptyData: "the image data is empty"
        case .truncated(let format): "the \(format.rawValue) data is truncated (it ends before the image does)"
        case .corrupt(let format, let reason): "corrupt \(format.rawValue) data: \(reason)"
        case .tooLarge(let w, let h, let limit):
            "image is \(w)x\(h) (\(w * h) pixels), over the decode limit of \(limit) pixels"
        case .encodingFailed(let format, let reason): "cannot encode \(format.rawValue): \(reason)"
        case .outOfMemory: "out of memory while decoding"
        case .decodeBudgetExceeded(let planned, let limit):
            "decoding needs about \(planned / 1_048_576 + 1) MiB (\(planned) bytes), over the decode budget of \(limit) bytes; ask for a smaller size or raise the budget"
        case .tooManyScans(let limit):
            "the JPEG has more than \(limit) progressive scans, over the scan limit; re-encode it or raise the limit"
        case .libraryUnavailable(let format, let library, let package, let reason):
            "\(format.rawValue) images need \(library), which could not be loaded (\(reason)); on Debian: apt install \(package)"
        }
    }
}

extension ImageCoderError {
    /// Whether the image was refused for being over a limit the decode was given (pixels, scans,
    /// decode budget) rather than for not being an image.
    public var isOverDecodeLimit: Bool {
        switch self {
        case .tooLarge, .tooManyScans, .decodeBudgetExceeded: true
        default: false
        }
    }
}
