import Foundation
import Testing
@testable import WebImage

/// The lean HTTP/1.1 client (`DownloaderConfig.Transport.http1`, what `webimage prefetch` uses).
/// Everything a download promises is specified once, with the client as the test's argument
/// (`DownloaderConfig.Transport.carriers`); these are what only this client does.
@Suite("HTTP1Transport")
struct HTTP1TransportTests {
    @Test("keeps its connections alive: 40 downloads one after another take one connection, 40 at once at most the queue's width")
    func keepAlive() async throws {
        try await withOrigin(over: .http1, { $0.maxConcurrentDownloads = 4 }) { origin, downloader in
            origin.route("/k.png", .fixture("png-rgb.png"))
            for index in 0..<40 {
                let result = try await downloader.loadImage(with: origin.url("/k.png?\(index)"))
                #expect(!result.data.isEmpty)
            }
            #expect(origin.connectionCount == 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 40..<80 {
                    group.addTask { _ = try await downloader.loadImage(with: origin.url("/k.png?\(index)")) }
                }
                try await group.waitForAll()
            }
            #expect(origin.requestCount("/k.png") == 80)
            #expect(origin.connectionCount <= 4)
        }
    }

    // A response could arrive before the request's write returned; the exchange then took the
    // connection after it had gone back to the pool and closed it under the next request, which
    // was sent twice (`Tools/harness/bench-bulk-prefetch`: 19,012 requests for 19,000 URLs).
    @Test("mixed answers at concurrency 8: every URL is requested exactly once, refused responses close their connections, none is sent twice")
    func mixedAnswersOnce() async throws {
        try await withOrigin(over: .http1, { $0.maxConcurrentDownloads = 8 }) { origin, downloader in
            origin.route("/ok.png", .fixture("png-rgb.png"))
            origin.route("/gone.png", .status(404))
            origin.route("/text.png", .body(.bytes(Data("not an image".utf8)), contentType: "text/plain"))
            let paths = ["/ok.png", "/gone.png", "/ok.png", "/text.png"]
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<200 {
                    let url = origin.url(paths[index % paths.count] + "?\(index)")
                    group.addTask { (try? await downloader.loadImage(with: url)) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 100)
            let uris = origin.requests.map(\.uri)
            #expect(uris.count == 200)
            #expect(Set(uris).count == 200)
        }
    }

    // The client writes its request headers without NIO's second validation pass; the one part a
    // URL can smuggle a line break into is its host, which `URL.host` percent-decodes.
    @Test("a host that decodes to a line break fails as an invalid URL before any connection")
    func hostWithLineBreak() async throws {
        try await withOrigin(over: .http1) { origin, downloader in
            let url = try #require(URL(string: "http://127.0.0.1%0D%0AX-Injected%3A%20yes/a.png"))
            await #expect(throws: WebImageError.invalidURL(url.absoluteString)) { try await downloader.loadImage(with: url) }
            #expect(origin.connectionCount == 0)
        }
    }

    @Test("a kept-alive connection stays open while it is reused, however long that goes on, and is closed once it sits unused for idleConnectionTimeout")
    func idleTimeout() async throws {
        try await withOrigin(over: .http1, { $0.idleConnectionTimeout = 1 }) { origin, downloader in
            origin.route("/i.png", .fixture("png-rgb.png"))
            // Reused back to back for 2.5 timeouts: the timer armed at its first return to the pool must not close it.
            let start = ContinuousClock.now
            var index = 0
            // The connection's idle spells are shorter than the time from one load's start to the
            // next one's end (it goes back to the pool after the first starts, out before the second ends).
            var longestSpell = Duration.zero
            var previousStart = start
            while ContinuousClock.now - start < .milliseconds(2_500) {
                let loadStart = ContinuousClock.now
                _ = try await downloader.loadImage(with: origin.url("/i.png?\(index)"))
                if index > 0 { longestSpell = max(longestSpell, .now - previousStart) }
                previousStart = loadStart
                index += 1
            }
            // With the whole suite on two cores this task has waited over a second to resume: the
            // connection may really have sat idle for the timeout then, and closing it was right.
            if longestSpell < .milliseconds(800) { #expect(origin.connectionCount == 1) }
            let before = origin.connectionCount
            try await Task.sleep(for: .seconds(3))
            _ = try await downloader.loadImage(with: origin.url("/i.png?last"))
            #expect(origin.connectionCount == before + 1)
        }
    }

    @Test("a kept-alive connection the origin closes right after answering: the next download goes out once more on a new one, and succeeds")
    func staleConnection() async throws {
        try await withOrigin(over: .http1) { origin, downloader in
            origin.route("/once.png", .thenClose(.fixture("png-rgb.png")))
            for index in 0..<20 {
                let result = try await downloader.loadImage(with: origin.url("/once.png?\(index)"))
                #expect(!result.data.isEmpty)
            }
            #expect(origin.requests.count == 20)
            #expect(Set(origin.requests.map(\.uri)).count == 20)
            #expect(origin.connectionCount == 20)
        }
    }

    @Test("a connection the origin closes after its response (Connection: close) is not reused, and the next download opens another")
    func closedByOrigin() async throws {
        try await withOrigin(over: .http1) { origin, downloader in
            origin.route("/c.png", .body(.fixture("png-rgb.png"), contentType: "image/png", headers: [("Connection", "close")]))
            for index in 0..<3 {
                _ = try await downloader.loadImage(with: origin.url("/c.png?\(index)"))
            }
            #expect(origin.connectionCount == 3)
        }
    }

    @Test("speaks TLS itself: a self-signed origin fails the certificate check unless asked not to check; kept-alive connections that skipped it never carry a load that wants it")
    func tls() async throws {
        let secure = try await TestOrigin.start(tls: SelfSignedCertificate.serverContext())
        secure.route("/s.png", .fixture("png-rgb.png"))
        let png = try Fixtures.data("png-rgb.png")
        try await withOrigin(over: .http1) { _, downloader in
            for index in 0..<5 {
                let result = try await downloader.loadImage(with: secure.url("/s.png?\(index)"), options: .allowInvalidSSLCertificates)
                #expect(result.data == png)
            }
            #expect(secure.connectionCount == 1)
            #expect(downloader.http1?.idleConnectionCount == 1, "the lean client's pool holds the TLS connection")
            // That connection waits in the pool unchecked: a load that wants the check makes its own, which fails.
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(with: secure.url("/s.png?checked"))
            }
            if case .transport(.secureConnectionFailed)? = error {} else { Issue.record("expected secureConnectionFailed, got \(String(describing: error))") }
            #expect(secure.requestCount("/s.png") == 5)
            #expect(secure.connectionCount == 2)
        }
        await secure.shutdown()
    }

    @Test("a redirect from http to https stays on the lean client, which checks the certificate (and skips the check only when asked)")
    func redirectToHTTPS() async throws {
        let secure = try await TestOrigin.start(tls: SelfSignedCertificate.serverContext())
        secure.route("/s.png", .fixture("png-rgb.png"))
        try await withOrigin(over: .http1) { origin, downloader in
            origin.route("/to-https.png", .redirect(to: secure.url("/s.png").absoluteString))
            let error = await #expect(throws: WebImageError.self) {
                try await downloader.loadImage(with: origin.url("/to-https.png"))
            }
            if case .transport(.secureConnectionFailed)? = error {} else { Issue.record("expected secureConnectionFailed, got \(String(describing: error))") }
            let result = try await downloader.loadImage(with: origin.url("/to-https.png"), options: .allowInvalidSSLCertificates)
            #expect(result.data == (try Fixtures.data("png-rgb.png")))
            #expect(secure.requestCount("/s.png") == 1)
            #expect(downloader.http1?.idleConnectionCount == 2, "both hops' connections back in the lean client's pool")
        }
        await secure.shutdown()
    }
}
