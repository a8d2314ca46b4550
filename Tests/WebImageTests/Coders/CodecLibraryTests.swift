import Foundation
import Testing
@testable import WebImage

/// libavif, libheif and libjxl are opened the first time an image needs them: a process that
/// never meets those formats never pays for loading them (with libde265, libhwy, aom, x265…).
/// Watched through the dynamic loader's own log (`LD_DEBUG=files`) of the `webimage` process.
@Suite("Codec libraries: opened on first use")
struct CodecLibraryTests {
    static let libraries = ["libavif.so", "libheif.so", "libjxl.so", "libde265.so", "libhwy.so"]

    /// The libraries the loader logged as loaded while `webimage decode` read `fixture`.
    private func librariesLoaded(decoding fixture: String) async throws -> [String] {
        let result = try await CLIRunner.run(
            ["decode", Fixtures.directory.appendingPathComponent(fixture).path], environment: ["LD_DEBUG": "files"])
        #expect(result.status == 0, "\(result.stderr.suffix(500))")
        let opened = result.stderr.split(separator: "\n").filter { $0.contains("file=") }
        return Self.libraries.filter { library in opened.contains { $0.contains("file=\(library)") } }
    }

    @Test("a PNG, JPEG, GIF or WebP decode opens none of them")
    func notAtStart() async throws {
        for fixture in ["png-rgba.png", "jpeg-baseline.jpg", "gif-pillow-animated.gif", "webp-alpha.webp"] {
            #expect(try await librariesLoaded(decoding: fixture) == [], "\(fixture)")
        }
    }

    @Test("each format opens its own library, and only that one (with what it needs)",
          arguments: [("avif-rgb.avif", ["libavif.so"]), ("heic-rgb.heic", ["libheif.so", "libde265.so"]),
                      ("jxl-lossy.jxl", ["libjxl.so", "libhwy.so"])])
    func onFirstUse(fixture: String, expected: [String]) async throws {
        #expect(try await librariesLoaded(decoding: fixture) == expected)
    }

    @Test("a library that cannot be opened is a typed error that names the file and the package to install")
    func unavailableMessage() {
        let error = ImageCoderError.libraryUnavailable(
            .avif, library: "libavif.so.15", package: "libavif15", reason: "libavif.so.15: cannot open shared object file")
        #expect(error.description == "avif images need libavif.so.15, which could not be loaded "
            + "(libavif.so.15: cannot open shared object file); on Debian: apt install libavif15")
        #expect(!error.meansNotAnImage)
    }
}
