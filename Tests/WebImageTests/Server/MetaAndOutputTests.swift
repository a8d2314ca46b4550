import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// A PNG of `width`×`height` whose pixel (x, y) is `color(x, y)`.
private func png(_ width: Int, _ height: Int, _ color: (Int, Int) -> [UInt8]) throws -> Data {
    var pixels: [UInt8] = []
    for y in 0..<height { for x in 0..<width { pixels += color(x, y) } }
    return try ImageCodersManager.shared.encode(Image(bitmap: Bitmap(width: width, height: height, pixels: pixels)), as: .png, options: ImageEncodeOptions())
}

private func json(_ reply: ServerHarness.Reply) throws -> [String: Any] {
    let root = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
    return try #require(root["thumbor"] as? [String: Any])
}

/// Whether `data` has the JPEG marker `0xFF marker` (SOF0 = 0xC0 baseline, SOF2 = 0xC2 progressive).
private func hasMarker(_ data: Data, _ marker: UInt8) -> Bool {
    zip(data, data.dropFirst()).contains { $0 == 0xFF && $1 == marker }
}

@Suite("webimage serve: meta/ JSON, BlurHash, and output settings (progressive, qualities, max_age, Last-Modified, autojpg)")
struct MetaAndOutputTests {
    @Test("BlurHash matches the reference encoder (blurhash-python 1.2.2) on known pixels, 4×3 components")
    func blurHashVectors() throws {
        var gradient: [UInt8] = []
        for y in 0..<24 { for x in 0..<32 { gradient += [UInt8(x * 8), UInt8(y * 10), UInt8((x * y) % 256), 255] } }
        #expect(BlurHash.encode(Bitmap(width: 32, height: 24, pixels: gradient)) == "LxH27h2lwtX3mAWUjwfAgFfmfTfi")
        let red = Bitmap(width: 5, height: 4, pixels: Array(repeating: [255, 0, 0, 255], count: 20).flatMap { $0 })
        #expect(BlurHash.encode(red) == "L~TI:j]9fQ]9|cwxfQwxfQfQfQfQ")
        #expect(BlurHash.encode(red, componentsX: 10, componentsY: 3) == nil)
    }

    @Test("meta/ of a crop, a resize and a flip answers thumbor's JSON: source, the operations in order, target, focal points, and the variant's BlurHash")
    func metaDocument() async throws {
        try await withImageServer { harness in
            harness.origin.route("/s.png", .body(.bytes(try png(40, 30) { x, y in [UInt8(x * 6), UInt8(y * 8), 90, 255] }), contentType: "image/png"))
            let reply = try await harness.get(harness.unsafe("meta/10x10:30x30/-10x10", "/s.png"))
            #expect(reply.status == 200 && reply.header("content-type") == "application/json")
            let thumbor = try json(reply)
            let source = try #require(thumbor["source"] as? [String: Any])
            #expect(source["width"] as? Int == 40 && source["height"] as? Int == 30 && source["frameCount"] as? Int == 1)
            #expect((source["url"] as? String)?.hasSuffix("/s.png") == true)
            let operations = try #require(thumbor["operations"] as? [[String: Any]])
            #expect(operations.map { $0["type"] as? String } == ["crop", "resize", "flip_horizontally"])
            #expect(operations[0]["left"] as? Int == 10 && operations[0]["top"] as? Int == 10)
            #expect(operations[0]["right"] as? Int == 30 && operations[0]["bottom"] as? Int == 30)
            #expect(operations[1]["width"] as? Int == 10 && operations[1]["height"] as? Int == 10)
            let target = try #require(thumbor["target"] as? [String: Any])
            #expect(target["width"] as? Int == 10 && target["height"] as? Int == 10)
            // No focal() and no smart: thumbor's alignment point, the centre of the cropped box.
            let points = try #require(thumbor["focal_points"] as? [[String: Any]])
            #expect(points.count == 1 && points.first?["origin"] as? String == "alignment")
            #expect(points.first?["x"] as? Double == 10 && points.first?["y"] as? Double == 10)
            // The hash is of the variant's own pixels: the image the same URL makes.
            let image = try await harness.get(harness.unsafe("10x10:30x30/-10x10/filters:format(png)", "/s.png"))
            let variant = try ImageCodersManager.shared.decode(image.body)
            #expect(thumbor["blurhash"] as? String == BlurHash.encode(variant.bitmap))
            // Its own entry in the result cache: asked again, no new fetch, the same bytes.
            let again = try await harness.get(harness.unsafe("meta/10x10:30x30/-10x10", "/s.png"))
            #expect(again.body == reply.body && harness.origin.requestCount("/s.png") == 1)
        }
    }

    @Test("meta/ with callback=NAME answers NAME({…}); as JavaScript; a callback that is not an identifier is a 400 before any work")
    func jsonp() async throws {
        try await withImageServer { harness in
            harness.origin.route("/s.png", .body(.bytes(try png(8, 8) { _, _ in [10, 20, 30, 255] }), contentType: "image/png"))
            let wrapped = try await harness.get(harness.unsafe("meta/4x4", "/s.png") + "?callback=app.draw_1")
            #expect(wrapped.status == 200 && wrapped.header("content-type") == "text/javascript")
            let text = String(decoding: wrapped.body, as: UTF8.self)
            #expect(text.hasPrefix("app.draw_1({\"thumbor\":") && text.hasSuffix("});"))
            let plain = try await harness.get(harness.unsafe("meta/4x4", "/s.png"))
            #expect(wrapped.header("etag") != plain.header("etag"))
            #expect(harness.origin.requestCount("/s.png") == 1, "the callback is not part of the source URL")
            for name in ["alert(1)", "a%3Balert(1)", "1abc", "x.", "%3Cscript%3E"] {
                let refused = try await harness.get(harness.unsafe("meta/4x4", "/s.png") + "?callback=" + name)
                #expect(refused.status == 400, "\(name)")
            }
        }
    }

    @Test("max_age(n) sets Cache-Control: public, max-age=n (0: no-cache), from the result cache too")
    func maxAge() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let first = try await harness.get(harness.unsafe("10x10/filters:max_age(60)", "/a.png"))
            #expect(first.header("cache-control") == "public, max-age=60")
            let hit = try await harness.get(harness.unsafe("10x10/filters:max_age(60)", "/a.png"))
            #expect(hit.header("cache-control") == "public, max-age=60" && hit.body == first.body)
            let reply1 = try await harness.get(harness.unsafe("10x10/filters:max_age(0)", "/a.png"))
            #expect(reply1.header("cache-control") == "no-cache")
            let reply2 = try await harness.get(harness.unsafe("10x10", "/a.png"))
            #expect(reply2.header("cache-control") == "public, max-age=31536000")
        }
    }

    @Test("the source's Last-Modified is passed through, and kept with the cached source and the cached variant")
    func lastModified() async throws {
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        try await withImageServer { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png", headers: [("Last-Modified", date)]))
            harness.origin.route("/b.png", .fixture("png-rgb.png"))
            let reply3 = try await harness.get(harness.unsafe("10x10", "/a.png"))
            #expect(reply3.header("last-modified") == date)
            let reply4 = try await harness.get(harness.unsafe("10x10", "/a.png"))
            #expect(reply4.header("last-modified") == date, "a result-cache hit")
            let reply5 = try await harness.get(harness.unsafe("12x12", "/a.png"))
            #expect(reply5.header("last-modified") == date, "a source-cache hit")
            #expect(harness.origin.requestCount("/a.png") == 1)
            let reply6 = try await harness.get(harness.unsafe("10x10", "/b.png"))
            #expect(reply6.header("last-modified") == nil)
        }
    }

    @Test("JPEG is progressive by default (an SOF2 marker), baseline with progressiveJPEG off (SOF0)")
    func progressiveJPEG() async throws {
        for progressive in [true, false] {
            try await withImageServer({ $0.output.progressiveJPEG = progressive }) { harness in
                harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
                let reply = try await harness.get(harness.unsafe("24x16", "/a.jpg"))
                #expect(reply.header("content-type") == "image/jpeg")
                #expect(hasMarker(reply.body, 0xC2) == progressive && hasMarker(reply.body, 0xC0) == !progressive)
            }
        }
    }

    @Test("the per-format default qualities are used when the URL has no quality(), and quality() still wins")
    func qualities() async throws {
        try await withImageServer({ $0.output.jpegQuality = 30; $0.output.webpQuality = 20 }) { harness in
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            let jpeg = try await harness.get(harness.unsafe("40x30", "/a.jpg"))
            let reply7 = try await harness.get(harness.unsafe("40x30/filters:quality(30)", "/a.jpg"))
            #expect(jpeg.body == reply7.body)
            let reply8 = try await harness.get(harness.unsafe("40x30/filters:quality(95)", "/a.jpg"))
            #expect(jpeg.body.count < reply8.body.count)
            let webp = try await harness.get(harness.unsafe("40x30/filters:format(webp)", "/a.jpg"))
            let reply9 = try await harness.get(harness.unsafe("40x30/filters:format(webp):quality(20)", "/a.jpg"))
            #expect(webp.body == reply9.body)
        }
        #expect(OutputDefaults().quality(for: .avif) == 80 && OutputDefaults().quality(for: .webp) == 80)
    }

    @Test("autojpg(): an opaque PNG is written as JPEG, a transparent one stays PNG; with the server setting on, autojpg() turns it off")
    func autoJPG() async throws {
        let opaque = try png(8, 8) { x, _ in [UInt8(x * 30), 40, 50, 255] }
        let clear = try png(8, 8) { x, _ in [UInt8(x * 30), 40, 50, x == 0 ? 0 : 255] }
        try await withImageServer { harness in
            harness.origin.route("/o.png", .body(.bytes(opaque), contentType: "image/png"))
            harness.origin.route("/t.png", .body(.bytes(clear), contentType: "image/png"))
            let reply10 = try await harness.get(harness.unsafe("8x8", "/o.png"))
            #expect(reply10.header("content-type") == "image/png")
            let reply11 = try await harness.get(harness.unsafe("8x8/filters:autojpg()", "/o.png"))
            #expect(reply11.header("content-type") == "image/jpeg")
            let reply12 = try await harness.get(harness.unsafe("8x8/filters:autojpg()", "/t.png"))
            #expect(reply12.header("content-type") == "image/png")
            let reply13 = try await harness.get(harness.unsafe("8x8/filters:autojpg():format(png)", "/o.png"))
            #expect(reply13.header("content-type") == "image/png")
        }
        try await withImageServer({ $0.output.autoPNGToJPG = true }) { harness in
            harness.origin.route("/o.png", .body(.bytes(opaque), contentType: "image/png"))
            let reply14 = try await harness.get(harness.unsafe("8x8", "/o.png"))
            #expect(reply14.header("content-type") == "image/jpeg")
            let reply15 = try await harness.get(harness.unsafe("8x8/filters:autojpg()", "/o.png"))
            #expect(reply15.header("content-type") == "image/png")
        }
    }
}
