import Foundation
import Testing
import WebImage
@testable import WebImageServer

/// The decoded reply, for size and format checks.
private func decoded(_ reply: ServerHarness.Reply) throws -> Image {
    try ImageCodersManager.shared.decode(reply.body)
}

@Suite("webimage serve: thumbor requests over HTTP")
struct ImageServerTests {
    @Test("a resize answers the variant with its type, a strong ETag, a year's Cache-Control; the second ask is a cache hit; If-None-Match gets 304")
    func resizeAndCache() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            let first = try await harness.get(harness.unsafe("24x16", "/a.jpg"))
            #expect(first.status == 200)
            #expect(first.header("content-type") == "image/jpeg")
            #expect(first.header("cache-control") == "public, max-age=31536000")
            let image = try decoded(first)
            #expect(image.width == 24 && image.height == 16)
            let etag = try #require(first.header("etag"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            let second = try await harness.get(harness.unsafe("24x16", "/a.jpg"))
            #expect(second.body == first.body && second.header("etag") == etag)
            #expect(harness.origin.requestCount("/a.jpg") == 1)
            let revalidated = try await harness.get(harness.unsafe("24x16", "/a.jpg"), headers: [("If-None-Match", etag)])
            #expect(revalidated.status == 304 && revalidated.body.isEmpty)
        }
    }

    @Test("geometry: 0 keeps the ratio, fit-in fits without enlarging, a crop box cuts first, - flips")
    func geometry() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let source = try ImageCodersManager.shared.decode(try Fixtures.data("png-rgb.png"))
            let half = try decoded(try await harness.get(harness.unsafe("\(source.width / 2)x0", "/a.png")))
            #expect(half.width == source.width / 2 && abs(half.height - source.height / 2) <= 1)
            let fitted = try decoded(try await harness.get(harness.unsafe("fit-in/\(source.width * 4)x\(source.height * 4)", "/a.png")))
            #expect(fitted.width == source.width && fitted.height == source.height, "fit-in never enlarges")
            let cropped = try decoded(try await harness.get(harness.unsafe("0x0:10x8", "/a.png")))
            #expect(cropped.width == 10 && cropped.height == 8)
            #expect(cropped.bitmap[0, 0] == source.bitmap[0, 0])
            let flipped = try decoded(try await harness.get(harness.unsafe("0x0:10x8/-10x8", "/a.png")))
            #expect(flipped.bitmap[9, 0] == source.bitmap[0, 0])
        }
    }

    @Test("format(): the filter wins and nothing varies; without it Accept decides (AVIF, then WebP), and the answer says Vary: Accept")
    func formats() async throws {
        try await withImageServer { harness in
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            let avif = try await harness.get(harness.unsafe("20x0", "/a.jpg"), headers: [("Accept", "image/avif,image/webp,*/*;q=0.8")])
            #expect(avif.header("content-type") == "image/avif" && avif.header("vary") == "Accept")
            #expect(try decoded(avif).format == .avif)
            let webp = try await harness.get(harness.unsafe("20x0", "/a.jpg"), headers: [("Accept", "image/webp,*/*;q=0.8")])
            #expect(webp.header("content-type") == "image/webp" && webp.header("vary") == "Accept")
            let forcedAVIF = try await harness.get(harness.unsafe("20x0/filters:format(avif)", "/a.jpg"))
            #expect(forcedAVIF.header("content-type") == "image/avif" && forcedAVIF.header("vary") == nil)
            let plain = try await harness.get(harness.unsafe("20x0", "/a.jpg"), headers: [("Accept", "image/webp;q=0, */*")])
            #expect(plain.header("content-type") == "image/jpeg" && plain.header("vary") == "Accept")
            let forced = try await harness.get(harness.unsafe("20x0/filters:format(png):quality(50)", "/a.jpg"), headers: [("Accept", "image/webp")])
            #expect(forced.header("content-type") == "image/png" && forced.header("vary") == nil)
            #expect(try decoded(forced).format == .png)
            #expect(harness.origin.requestCount("/a.jpg") == 1, "one source fetch serves every variant")
        }
    }

    @Test("signed URLs from libthumbor are accepted; a wrong key, a tampered path or unsafe/ without --allow-unsafe get 403")
    func signatures() async throws {
        try await withImageServer({ $0.allowUnsafe = false; $0.securityKeys = ["new-key", "old-key"] }) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let source = "127.0.0.1:\(harness.origin.port)/a.png"
            let urls = try await Libthumbor.urls(key: "old-key", ["dict(width=12, height=10, image_url='\(source)')"])
            let wrong = try await Libthumbor.urls(key: "other", ["dict(width=12, height=10, image_url='\(source)')"])
            let signed = try await harness.get(urls[0])
            #expect(signed.status == 200)
            #expect(try decoded(signed).width == 12)
            #expect(try await harness.get(wrong[0]).status == 403)
            #expect(try await harness.get(urls[0].replacingOccurrences(of: "12x10", with: "13x10")).status == 403)
            let unsafe = try await harness.get(harness.unsafe("12x10", "/a.png"))
            #expect(unsafe.status == 403 && String(decoding: unsafe.body, as: UTF8.self).contains("unsafe"))
        }
    }

    @Test("sources on loopback are refused unless allowed, before any request reaches them; so is a redirect to a private address")
    func ssrf() async throws {
        try await withImageServer({ $0.allowLoopbackSources = false }) { harness in
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            for path in [harness.unsafe("10x10", "/a.png"), "/unsafe/10x10/localhost./a.png", "/unsafe/10x10/2130706433/a.png",
                         "/unsafe/10x10/[::ffff:127.0.0.1]/a.png", "/unsafe/10x10/file:///etc/passwd"] {
                let reply = try await harness.get(path)
                #expect(reply.status == 403, "\(path)")
            }
            #expect(harness.origin.requests.isEmpty)
        }
        try await withImageServer { harness in
            harness.origin.route("/meta", .redirect(to: "http://169.254.169.254/latest/meta-data/"))
            harness.origin.route("/private", .redirect(to: "http://10.0.0.1/a.png", status: 301))
            harness.origin.route("/hop", .redirect(to: "/a.png"))
            harness.origin.route("/a.png", .fixture("png-rgb.png"))
            let meta = try await harness.get(harness.unsafe("10x10", "/meta"))
            #expect(meta.status == 403)
            #expect(!String(decoding: meta.body, as: UTF8.self).contains("169.254"), "the body names no address")
            #expect(try await harness.get(harness.unsafe("10x10", "/private")).status == 403)
            #expect(try await harness.get(harness.unsafe("10x10", "/hop")).status == 200, "a checked hop is followed")
        }
    }

    @Test("source failures map to 404, 415, 413, 502 with a plain body; bad paths to 400")
    func failures() async throws {
        try await withImageServer({ $0.maxSourceBytes = 100_000; $0.maxSourcePixels = 1000 }) { harness in
            harness.origin.route("/html", .body(.bytes(Data("<html>hi</html>".utf8)), contentType: "text/html"))
            harness.origin.route("/big", .hugeDeclaredLength(10_000_000))
            harness.origin.route("/error", .status(500))
            harness.origin.route("/many.jpg", .fixture("jpeg-baseline.jpg"))
            let missing = try await harness.get(harness.unsafe("10x10", "/missing.png"))
            #expect(missing.status == 404 && missing.header("content-type")?.hasPrefix("text/plain") == true)
            #expect(try await harness.get(harness.unsafe("10x10", "/html")).status == 415)
            #expect(try await harness.get(harness.unsafe("10x10", "/big")).status == 413)
            #expect(try await harness.get(harness.unsafe("10x10", "/many.jpg")).status == 413, "48x32 is over a 1,000-pixel limit")
            let failed = try await harness.get(harness.unsafe("10x10", "/error"))
            #expect(failed.status == 502)
            #expect(!String(decoding: failed.body, as: UTF8.self).contains("127.0.0.1"))
            #expect(try await harness.get("/unsafe/10x10/filters:quality(500)/ORIGIN/a.png").status == 400)
            #expect(try await harness.get("/unsafe/").status == 400)
        }
    }

    @Test("100 identical cold requests make one source fetch and one variant; 5 widths of one source one fetch")
    func merging() async throws {
        try await withImageServer { harness in
            let gate = OriginGate()
            harness.origin.route("/a.jpg", .gated(gate, .fixture("jpeg-baseline.jpg")))
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 { group.addTask { try await harness.get(harness.unsafe("30x20", "/a.jpg")).status } }
                for width in 1...5 { group.addTask { try await harness.get(harness.unsafe("\(width * 5)x0", "/a.jpg")).status } }
                // The source is held, so every identical request must join the first one's work.
                #expect(await eventually { harness.origin.requestCount("/a.jpg") >= 1 && harness.server.sharedWork.joined == 99 })
                gate.open()
                for try await status in group { #expect(status == 200) }
            }
            #expect(harness.origin.requestCount("/a.jpg") == 1)
            #expect(harness.server.sharedWork.joined == 99)
        }
    }

    @Test("a full queue answers 429 with Retry-After at once; /readyz says ready, /healthz ok")
    func busy() async throws {
        try await withImageServer({ $0.concurrency = 1; $0.queueLimit = 0 }) { harness in
            harness.origin.route("/other.jpg", .fixture("jpeg-baseline.jpg"))
            // The one work slot, held (a download holds none: slots are for decode, filters and encode).
            let release = Flag()
            let held = Task {
                try await harness.server.admission.run {
                    while !release.isRaised { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            #expect(await eventually { harness.server.admission.counts.running == 1 })
            let refused = try await harness.get(harness.unsafe("10x10", "/other.jpg"))
            #expect(refused.status == 429 && refused.header("retry-after") == "1")
            #expect(try await harness.get("/readyz").status == 200)
            #expect(try await harness.get("/healthz").status == 200)
            release.raise()
            try await held.value
            #expect(try await harness.get(harness.unsafe("10x10", "/other.jpg")).status == 200)
        }
    }
}

@Suite("webimage serve: purge")
struct ImageServerPurgeTests {
    @Test("DELETE /purge with the bearer token removes the source and every variant; the next request fetches again")
    func purge() async throws {
        try await withImageServer({ $0.purgeToken = "t0ken" }) { harness in
            harness.origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            for width in [10, 20, 30] { _ = try await harness.get(harness.unsafe("\(width)x0", "/a.jpg")) }
            #expect(harness.origin.requestCount("/a.jpg") == 1)
            let source = "127.0.0.1:\(harness.origin.port)/a.jpg"
            #expect(try await harness.delete("/purge?url=\(source)").status == 401)
            #expect(try await harness.delete("/purge?url=\(source)", headers: [("Authorization", "Bearer wrong")]).status == 401)
            let purged = try await harness.delete("/purge?url=\(source)", headers: [("Authorization", "Bearer t0ken")])
            #expect(purged.status == 200 && String(decoding: purged.body, as: UTF8.self) == "{\"purged\":3}\n")
            _ = try await harness.get(harness.unsafe("20x0", "/a.jpg"))
            #expect(harness.origin.requestCount("/a.jpg") == 2, "source and variant were both gone")
        }
        try await withImageServer { harness in
            let disabled = try await harness.delete("/purge?url=example.com/a.jpg", headers: [("Authorization", "Bearer x")])
            #expect(disabled.status == 404)
        }
    }
}

@Suite("webimage serve: metrics")
struct ImageServerMetricsTests {
    @Test("GET /metrics is Prometheus text: requests, status codes, where sources and variants came from, merged requests")
    func metrics() async throws {
        try await withImageServer { harness in
            let gate = OriginGate()
            harness.origin.route("/a.jpg", .gated(gate, .fixture("jpeg-baseline.jpg")))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 { group.addTask { _ = try await harness.get(harness.unsafe("10x0", "/a.jpg")) } }
                #expect(await eventually { harness.origin.inFlightRequests == 1 && harness.server.sharedWork.joined == 9 })
                gate.open()
                try await group.waitForAll()
            }
            _ = try await harness.get(harness.unsafe("10x0", "/a.jpg"))  // a result hit
            _ = try await harness.get(harness.unsafe("20x0", "/a.jpg"))  // a source hit
            _ = try await harness.get(harness.unsafe("10x0", "/missing.jpg"))
            let reply = try await harness.get("/metrics")
            let text = String(decoding: reply.body, as: UTF8.self)
            #expect(reply.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let lines = Set(text.split(separator: "\n").map(String.init))
            #expect(lines.contains("webimage_requests_total 13"))
            #expect(lines.contains(#"webimage_status_codes_total{status="200"} 12"#))
            #expect(lines.contains(#"webimage_status_codes_total{status="404"} 1"#))
            #expect(lines.contains("webimage_merged_requests_total 9"))
            #expect(lines.contains(#"webimage_cache_lookups_total{tier="result"} 1"#))
            #expect(lines.contains(where: { $0.hasPrefix(#"webimage_cache_lookups_total{tier="source_"#) && $0.hasSuffix(" 1") }))
            #expect(lines.contains("webimage_source_bytes_total \(try Fixtures.data("jpeg-baseline.jpg").count)"))
            #expect(text.contains(#"webimage_request_span_duration_seconds_count{span="processing"}"#))
        }
    }
}

@Suite("webimage serve: deadline")
struct ImageServerDeadlineTests {
    @Test("a request past its deadline gets 504 while the source is still coming, and its work is cancelled: the download stops and nothing holds a slot")
    func deadline() async throws {
        try await withImageServer({
            // Long enough that the second request below reaches the origin however loaded the machine.
            $0.requestDeadline = .seconds(TestTiming.seconds(2))
            $0.sourceTimeout = TestTiming.seconds(20)  // the source is slow, not dead: under TSan (×8) 4 s became 32 s
        }) { harness in
            harness.origin.route("/slow.jpg", .delayed(TestTiming.seconds(30), .fixture("jpeg-baseline.jpg")))
            let late = try await harness.get(harness.unsafe("10x0", "/slow.jpg"))
            // A 504 can only come from the deadline: the source would have made it a 200.
            #expect(late.status == 504 && String(decoding: late.body, as: UTF8.self).contains("too long"))
            // The download was cancelled long before the origin's 30 s: its connection closed.
            #expect(await eventually(timeout: .seconds(20)) { harness.origin.inFlightRequests == 0 })
            #expect(harness.server.admission.counts == (0, 0, 0))
            // Nothing was kept running for the cache: the next request fetches again (whether it
            // then beats the short deadline depends on the machine's load, so its status is not the point).
            harness.origin.route("/slow.jpg", .fixture("jpeg-baseline.jpg"))
            _ = try await harness.get(harness.unsafe("10x0", "/slow.jpg"))
            #expect(harness.origin.requestCount("/slow.jpg") == 2)
        }
    }
}

@Suite("webimage serve: trim")
struct ImageServerTrimTests {
    @Test("trim cuts the border the size of the corner's colour (within the tolerance) before anything else")
    func trim() async throws {
        var pixels = Fixtures.solid(RGBA(r: 255, g: 255, b: 255), width: 40, height: 30).pixels
        func paint(_ x: Int, _ y: Int, _ color: RGBA) {
            let i = (y * 40 + x) * 4
            (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]) = (color.r, color.g, color.b, color.a)
        }
        for y in 8..<20 { for x in 5..<30 { paint(x, y, RGBA(r: 200, g: 0, b: 0)) } }
        paint(2, 2, RGBA(r: 250, g: 250, b: 250))  // within a tolerance of 10, out of one of 0
        let bitmap = Bitmap(width: 40, height: 30, pixels: pixels)
        let png = try PNGCoder().encode(Image(bitmap: bitmap), as: .png, options: .default)
        try await withImageServer { harness in
            harness.origin.route("/framed.png", .body(.bytes(png), contentType: "image/png"))
            let exact = try ImageCodersManager.shared.decode(try await harness.get(harness.unsafe("trim", "/framed.png")).body)
            #expect(exact.width == 28 && exact.height == 18)
            let tolerant = try ImageCodersManager.shared.decode(try await harness.get(harness.unsafe("trim:10", "/framed.png")).body)
            #expect(tolerant.width == 25 && tolerant.height == 12)
            #expect(tolerant.bitmap[0, 0] == RGBA(r: 200, g: 0, b: 0))
            let thenSized = try ImageCodersManager.shared.decode(try await harness.get(harness.unsafe("trim:10/50x0", "/framed.png")).body)
            #expect(thenSized.width == 50 && thenSized.height == 24)
        }
    }
}
