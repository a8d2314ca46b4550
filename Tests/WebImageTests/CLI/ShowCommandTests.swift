import Foundation
import Testing
@testable import WebImage

/// Drawings in `webimage show` output: the text between cursor-up moves, as lists of lines.
private func drawings(_ output: String) -> [[Substring]] {
    output.split(separator: "\u{1B}[", omittingEmptySubsequences: false)
        .reduce(into: [String]()) { parts, piece in
            // A new drawing starts where the cursor goes back up ("<n>F").
            if let f = piece.firstIndex(of: "F"), piece[..<f].allSatisfy(\.isNumber), !piece[..<f].isEmpty {
                parts.append(String(piece[piece.index(after: f)...]))
            } else if parts.isEmpty {
                parts.append("\u{1B}[" + piece)
            } else {
                parts[parts.count - 1] += "\u{1B}[" + piece
            }
        }
        .map { $0.split(separator: "\n").filter { $0.contains("▀") } }
}

@Suite("webimage show")
struct ShowCommandTests {
    @Test("draws the placeholder, then the image in half blocks fitted to --columns × --rows")
    func drawsFile() async throws {
        let file = Fixtures.directory.appendingPathComponent("jpeg-baseline.jpg").path
        let result = try await CLIRunner.run(["show", file, "--no-cache", "--columns", "16", "--rows", "8"])
        #expect(result.status == 0, "\(result.stderr)")
        let shown = drawings(result.stdout)
        #expect(shown.count >= 2)  // placeholder, (fade steps), image
        let image = try #require(shown.last)
        #expect(!image.isEmpty && image.count <= 8)
        #expect(image.allSatisfy { $0.components(separatedBy: "▀").count - 1 <= 16 })
        #expect(image.map { $0.components(separatedBy: "▀").count - 1 }.max() == 16 || image.count == 8)
    }

    @Test("plays every frame of an animation for --loops 1")
    func playsAnimation() async throws {
        let file = Fixtures.directory.appendingPathComponent("gif-pillow-animated.gif").path
        let result = try await CLIRunner.run(["show", file, "--no-cache", "--columns", "8", "--rows", "4", "--loops", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try ImageCodersManager.shared.decode(try Fixtures.data("gif-pillow-animated.gif")).frames.count
        #expect(drawings(result.stdout).count >= 1 + frames)  // placeholder + each frame
    }

    @Test("loads over HTTP into the cache; a second show is a cache hit")
    func cachesOverHTTP() async throws {
        try await withOriginAndFolder { origin, cacheDirectory in
            origin.route("/pic.png", .fixture("png-rgba.png"))
            for _ in 0..<2 {
                let result = try await CLIRunner.run([
                    "show", origin.url("/pic.png").absoluteString, "--cache-dir", cacheDirectory.path, "--columns", "10", "--rows", "5",
                ])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(drawings(result.stdout).last?.isEmpty == false)
            }
            #expect(origin.requestCount("/pic.png") == 1)
        }
    }

    @Test("a missing file is one error line and exit 1")
    func missingFile() async throws {
        let result = try await CLIRunner.run(["show", "/nonexistent/nothing.png", "--no-cache"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: cannot show /nonexistent/nothing.png"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
