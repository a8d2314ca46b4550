import Foundation
import Testing
import WebImage
@testable import WebImageServer

@Suite("webimage serve: a watermark's URL is a source like any other")
struct WatermarkServerTests {
    private static let base = RGBA(r: 100, g: 150, b: 200)

    private static func png(_ width: Int, _ height: Int, _ color: RGBA) throws -> Data {
        try ImageCodersManager.shared.encode(compositionImage(width, height) { _, _ in color }, as: .png)
    }

    @Test("watermark(ORIGIN/wm.png,2,3,50) over loopback HTTP: fetched as a source, merged with thumbor's bytes")
    func watermarkOverHTTP() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .body(.bytes(try Self.png(20, 20, Self.base)), contentType: "image/png"))
            harness.origin.route("/wm.png", .body(.bytes(try Self.png(4, 4, RGBA(r: 200, g: 0, b: 100))), contentType: "image/png"))
            let reply = try await harness.get(harness.unsafe("filters:watermark(ORIGIN/wm.png,2,3,50):format(png)", "/a.png"))
            #expect(reply.status == 200)
            let image = try ImageCodersManager.shared.decode(reply.body)
            #expect(image.bitmap[2, 3] == RGBA(r: 150, g: 74, b: 149) && image.bitmap[5, 6] == RGBA(r: 150, g: 74, b: 149))
            #expect(image.bitmap[1, 3] == Self.base && image.bitmap[6, 6] == Self.base)
            // The watermark is cached as a source: a second variant fetches nothing.
            #expect(try await harness.get(harness.unsafe("filters:watermark(ORIGIN/wm.png,0,0,0):format(png)", "/a.png")).status == 200)
            #expect(harness.origin.requestCount("/wm.png") == 1)
        }
    }

    @Test("a watermark at a private address or not http is refused (403) exactly as the same URL as a source is; a missing one a 404")
    func watermarkAddressChecked() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .body(.bytes(try Self.png(20, 20, Self.base)), contentType: "image/png"))
            for url in ["10.0.0.1/wm.png", "169.254.169.254/latest/meta-data/", "file:///etc/passwd", "[::ffff:10.0.0.1]/wm.png"] {
                let reply = try await harness.get(harness.unsafe("filters:watermark(\(url),0,0,0)", "/a.png"))
                let asSource = try await harness.get("/unsafe/10x10/\(url)")
                #expect(reply.status == asSource.status && reply.body == asSource.body, "\(url): refused as the same URL as a source is")
                #expect(reply.status == 403, "\(url): \(String(decoding: reply.body, as: UTF8.self))")
            }
            #expect(try await harness.get(harness.unsafe("filters:watermark(ORIGIN/missing.png,0,0,0)", "/a.png")).status == 404)
            #expect(try await harness.get(harness.unsafe("filters:frame(ORIGIN/missing.png)", "/a.png")).status == 404)
        }
    }

    @Test("a variant is kept under its watermark's URL too: purging the watermark removes it, and the next request draws the new one")
    func purgeWatermark() async throws {
        try await withImageServer({ $0.purgeToken = "t0ken" }) { harness in
            harness.origin.route("/a.png", .body(.bytes(try Self.png(20, 20, Self.base)), contentType: "image/png"))
            harness.origin.route("/wm.png", .body(.bytes(try Self.png(4, 4, RGBA(r: 200, g: 0, b: 100))), contentType: "image/png"))
            let path = harness.unsafe("filters:watermark(ORIGIN/wm.png,0,0,0):format(png)", "/a.png")
            #expect(try await harness.get(path).status == 200)
            let purged = try await harness.delete("/purge?url=127.0.0.1:\(harness.origin.port)/wm.png", headers: [("Authorization", "Bearer t0ken")])
            #expect(purged.status == 200 && String(decoding: purged.body, as: UTF8.self) == "{\"purged\":1}\n")
            let recoloured = RGBA(r: 0, g: 200, b: 0)
            harness.origin.route("/wm.png", .body(.bytes(try Self.png(4, 4, recoloured)), contentType: "image/png"))
            let reply = try await harness.get(path)
            #expect(harness.origin.requestCount("/wm.png") == 2)
            #expect(try ImageCodersManager.shared.decode(reply.body).bitmap[0, 0] == recoloured)
        }
    }

    @Test("a path may draw at most four distinct images: a fifth is a 400 before any download")
    func overlayCount() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .body(.bytes(try Self.png(20, 20, Self.base)), contentType: "image/png"))
            let marks = (1...5).map { "watermark(ORIGIN/wm\($0).png,0,0,0)" }.joined(separator: ":")
            let reply = try await harness.get(harness.unsafe("filters:\(marks)", "/a.png"))
            #expect(reply.status == 400)
            #expect(harness.origin.requestCount("/a.png") == 0)
        }
    }

    @Test("a 50 MP watermark is a 413 before any work, and the variant is not made")
    func hugeWatermark() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .body(.bytes(try Self.png(20, 20, Self.base)), contentType: "image/png"))
            harness.origin.route("/huge.png", .body(.bytes(declaredPNG(width: 7100, height: 7100)), contentType: "image/png"))
            let reply = try await harness.get(harness.unsafe("filters:watermark(ORIGIN/huge.png,0,0,0)", "/a.png"))
            #expect(reply.status == 413)
        }
    }
}
