import ArgumentParser
import Foundation
import WebImage

/// The formats `fetch -o` can write.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case png, jpeg, webp, gif, avif

    init?(argument: String) {
        let name = argument.lowercased()
        self.init(rawValue: name == "jpg" ? "jpeg" : name)
    }

    /// From a file name's extension (`.jpg`, `.jpeg`, `.png`, `.webp`, `.gif`, `.avif`), if it names one.
    init?(pathExtension path: String) {
        self.init(argument: URL(fileURLWithPath: path).pathExtension)
    }

    var imageFormat: ImageFormat {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        case .webp: .webp
        case .gif: .gif
        case .avif: .avif
        }
    }
}

/// Writes a loaded image to a file the way a person expects to see it.
enum ImageOutput {
    /// The bytes for `result` in `format`: the loaded bytes as they are when they already are that
    /// format and nothing asked to change them (no re-encoding loss), else the image encoded with
    /// EXIF orientation applied — the encoders write no orientation tag, so pixels must be upright.
    static func bytes(for result: ImageResult, format: ImageFormat, quality: Double?, derived: Bool) throws -> Data {
        if !derived, quality == nil, let data = result.data, ImageFormat.detect(data) == format {
            return data
        }
        var options = ImageEncodeOptions()
        if let quality { options.quality = quality / 100 }
        return try ImageCodersManager.shared.encode(upright(result.image), as: format, options: options)
    }

    /// `image` with its pixels turned as its EXIF orientation says, orientation `.up`.
    static func upright(_ image: Image) -> Image {
        guard image.orientation != .up else { return image }
        let frames = image.frames.map { ImageFrame(bitmap: $0.bitmap.oriented(image.orientation), duration: $0.duration) }
        return Image(frames: frames, loopCount: image.loopCount, scale: image.scale, format: image.format, hasAlpha: image.hasAlpha,
                     colorProfile: image.colorProfile)
    }

    /// Writes atomically, so a failed run never leaves half a file under `path`.
    static func write(_ data: Data, to path: String) throws(CLIError) {
        do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
