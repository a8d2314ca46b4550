import ArgumentParser
import Foundation
import WebImage

struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image file and print one JSON line describing it.",
        discussion: """
            Prints {"format":…,"width":…,"height":…,"frames":…,"loopCount":…,"hasAlpha":…} and exits 0, or
            prints one line starting with "error:" and exits 1 when the file is not a readable image.

            Examples:
              webimage decode photo.jpg
              webimage decode photo.jpg --thumbnail 256x256 --png thumb.png
              webimage decode anim.gif --raw-rgba first-frame.rgba
            """
    )

    @Argument(help: "The image file to decode.")
    var file: String

    @Option(help: ArgumentHelp("Decode to fit inside this box (WxH, or W for a square); never upscales.", valueName: "WxH"))
    var thumbnail: String?

    @Option(name: .customLong("raw-rgba"), help: ArgumentHelp("Write the first frame as straight RGBA8, rows top to bottom, orientation not applied.", valueName: "OUT"))
    var rawRGBA: String?

    @Option(help: ArgumentHelp("Write the first frame as a PNG.", valueName: "OUT"))
    var png: String?

    @Option(name: .customLong("max-pixels"), help: "Reject images whose header declares more pixels than this.")
    var maxPixels: Int = ImageDecodeOptions.defaultMaxPixelCount

    @Flag(help: "Keep pixels in the image's embedded colour profile instead of converting them to sRGB (--png then embeds the profile).")
    var keepColors = false

    func validate() throws {
        if let thumbnail, PixelSize(parsing: thumbnail) == nil {
            throw ValidationError("--thumbnail takes WxH with positive integers, e.g. 256x256 (got '\(thumbnail)')")
        }
    }

    func run() throws {
        do {
            let url = URL(fileURLWithPath: file)
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw CLIError("cannot read \(file): \(error.localizedDescription)")
            }
            var options = ImageDecodeOptions(maxPixelCount: maxPixels, convertsToSRGB: !keepColors)
            options.thumbnailPixelSize = thumbnail.flatMap(PixelSize.init(parsing:))
            options.scaleFactor = ImageScale.scaleFactor(forKey: url.lastPathComponent)
            let image = try ImageCodersManager.localFiles.decode(data, options: options)
            if let rawRGBA {
                try write(Data(image.bitmap.pixels), to: rawRGBA)
            }
            if let png {
                try write(try PNGCoder().encode(image, as: .png, options: ImageEncodeOptions(encodeFirstFrameOnly: true)), to: png)
            }
            let line = DecodeSummary(
                format: image.format.rawValue, width: image.width, height: image.height,
                frames: image.frames.count, loopCount: image.loopCount,
                hasAlpha: image.hasAlpha)
            print(line.jsonLine())
        } catch let error as CLIError {
            CLIError.exit(with: error.message)
        } catch {
            CLIError.exit(with: "\(file): \(error)")
        }
    }

    private func write(_ data: Data, to path: String) throws {
        do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw CLIError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}

/// The JSON line `webimage decode` prints; the key order is part of the CLI contract.
struct DecodeSummary: Encodable {
    var format: String
    var width: Int
    var height: Int
    var frames: Int
    var loopCount: Int
    var hasAlpha: Bool

    func jsonLine() -> String {
        "{\"format\":\"\(format)\",\"width\":\(width),\"height\":\(height),\"frames\":\(frames),"
            + "\"loopCount\":\(loopCount),\"hasAlpha\":\(hasAlpha)}"
    }
}
