import Foundation
import Testing
@testable import WebImage

/// `webimage decode`, run as a process: the CLI contract scripts rely on.
@Suite("webimage decode")
struct DecodeCommandTests {
    let fixtures = Fixtures.directory

    @Test func printsOneJSONLine() async throws {
        let result = try await CLIRunner.run(["decode", fixtures.appendingPathComponent("png-rgba.png").path])
        #expect(result.status == 0)
        #expect(result.stdout == #"{"format":"png","width":48,"height":32,"frames":1,"loopCount":0,"hasAlpha":true}"# + "\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func writesRawStraightRGBAAndPNG() async throws {
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let raw = dir.appendingPathComponent("out.rgba")
        let png = dir.appendingPathComponent("out.png")
        let source = fixtures.appendingPathComponent("png-gray-alpha.png")
        let result = try await CLIRunner.run(["decode", source.path, "--raw-rgba", raw.path, "--png", png.path])
        #expect(result.status == 0)
        let expected = try PNGCoder().decode(try Data(contentsOf: source)).bitmap
        #expect(try Data(contentsOf: raw) == Data(expected.pixels))
        #expect(try PNGCoder().decode(try Data(contentsOf: png)).bitmap == expected)
    }

    @Test("colour: sRGB by default; --keep-colors writes the pixels as encoded, and --png embeds their profile")
    func keepColors() async throws {
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let source = fixtures.appendingPathComponent("colour-displayp3.png")
        let converted = dir.appendingPathComponent("converted.png")
        let kept = dir.appendingPathComponent("kept.png")
        #expect(try await CLIRunner.run(["decode", source.path, "--png", converted.path]).status == 0)
        #expect(try await CLIRunner.run(["decode", source.path, "--keep-colors", "--png", kept.path]).status == 0)
        let keep = ImageDecodeOptions(convertsToSRGB: false)
        let expected = try PNGCoder().decode(try Fixtures.data("colour-displayp3-expected.png")).bitmap
        let bitmap = try PNGCoder().decode(try Data(contentsOf: converted), options: keep).bitmap
        #expect(bitmap.difference(from: expected).max <= 1, "within a level of ImageCms's conversion")
        let keptImage = try PNGCoder().decode(try Data(contentsOf: kept), options: keep)
        #expect(keptImage.bitmap == (try PNGCoder().decode(try Data(contentsOf: source), options: keep)).bitmap)
        #expect(keptImage.colorProfile?.data == (try Fixtures.data("colour-displayp3.icc")))
    }

    @Test("the formats WebImage added later decode too: AVIF, JPEG XL, and HEIC (opt-in in the library, on for local files)",
          arguments: [("avif-rgb.avif", "avif"), ("jxl-lossy.jxl", "jxl"), ("heic-rgb.heic", "heic")])
    func newFormats(file: String, format: String) async throws {
        let result = try await CLIRunner.run(["decode", fixtures.appendingPathComponent(file).path])
        #expect(result.status == 0)
        #expect(result.stdout == #"{"format":"\#(format)","width":48,"height":32,"frames":1,"loopCount":0,"hasAlpha":false}"# + "\n")
    }

    @Test func thumbnailFitsTheBox() async throws {
        let result = try await CLIRunner.run(["decode", fixtures.appendingPathComponent("jpeg-baseline.jpg").path, "--thumbnail", "24x24"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#""width":24,"height":16"#))
    }

    @Test("bad input exits 1 with one error line", arguments: ["not-an-image", "truncated", "missing"])
    func badInput(kind: String) async throws {
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let file = dir.appendingPathComponent("input")
        switch kind {
        case "not-an-image": try Data("<html>404</html>".utf8).write(to: file)
        case "truncated": try Fixtures.data("jpeg-baseline.jpg").prefix(400).write(to: file)
        default: break
        }
        let result = try await CLIRunner.run(["decode", file.path])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("error: ") == true)
    }

    @Test func aBadThumbnailArgumentIsAUsageError() async throws {
        let result = try await CLIRunner.run(["decode", "x.png", "--thumbnail", "big"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--thumbnail takes WxH"))
    }
}
