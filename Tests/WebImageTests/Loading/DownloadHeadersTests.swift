import Foundation
import Testing
@testable import WebImage

@Suite("Download requests: headers, modifiers, credentials, cookies, validators")
struct DownloadHeadersTests {
    @Test("default Accept and User-Agent; set, override and remove headers", arguments: DownloaderConfig.Transport.carriers)
    func defaultHeaders(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { $0.httpHeaders = [HTTPField.Name("X-App")!: "1"] }) { origin, downloader in
            origin.route("/h.png", .fixture("png-rgb.png"))
            _ = try await downloader.loadImage(with: origin.url("/h.png"))
            let first = try #require(origin.requests("/h.png").first)
            #expect(first.header("accept") == "image/webp,image/*,*/*;q=0.8")
            #expect(first.header("user-agent") == DownloaderConfig.defaultUserAgent)
            #expect(first.header("x-app") == "1")

            downloader.setValue("custom/1", forHTTPHeaderField: HTTPField.Name("user-agent")!)
            downloader.setValue(nil, forHTTPHeaderField: .accept)
            downloader.setValue("yes", forHTTPHeaderField: HTTPField.Name("X-Extra")!)
            #expect(downloader.value(forHTTPHeaderField: HTTPField.Name("X-EXTRA")!) == "yes")
            _ = try await downloader.loadImage(with: origin.url("/h.png"))
            let second = try #require(origin.requests("/h.png").last)
            #expect(second.header("user-agent") == "custom/1")
            #expect(second.header("accept") == nil)
            #expect(second.header("x-extra") == "yes")
        }
    }

    @Test("the headers filter has the last word", arguments: DownloaderConfig.Transport.carriers)
    func headersFilter(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { config in
            config.headersFilter = { url, headers in
                var headers = headers
                headers[HTTPField.Name("X-Path")!] = url.path
                headers[.userAgent] = nil
                return headers
            }
        }) { origin, downloader in
            origin.route("/f.png", .fixture("png-rgb.png"))
            _ = try await downloader.loadImage(with: origin.url("/f.png"))
            let request = try #require(origin.requests("/f.png").first)
            #expect(request.header("x-path") == "/f.png")
            #expect(request.header("user-agent") == nil)
        }
    }

    @Test("every carrier sends a request's fields by one rule: its cookies as one line, no framing field a modifier set", arguments: DownloaderConfig.Transport.carriers)
    func http1FieldRule(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/rule.png", .fixture("png-rgb.png"))
            let modifier = RequestModifier { request in
                var request = request
                request.headerFields[values: .cookie] = ["a=1", "b=2"]
                request.headerFields[.transferEncoding] = "chunked"
                return request
            }
            _ = try await downloader.loadImage(with: origin.url("/rule.png"), context: ImageLoaderContext(requestModifier: modifier))
            let request = try #require(origin.requests("/rule.png").first)
            #expect(request.header("cookie") == "a=1; b=2")
            #expect(request.header("transfer-encoding") == nil)
        }
    }

    @Test("a request modifier can redirect and add headers; nil fails with 2000 and sends nothing", arguments: DownloaderConfig.Transport.carriers)
    func requestModifier(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/real.png", .fixture("png-rgb.png"))
            let port = origin.port
            let modifier = RequestModifier { request in
                var request = request
                request.url = URL(string: "http://127.0.0.1:\(port)/real.png")!
                request.headerFields[HTTPField.Name("X-Signed")!] = "abc"
                return request
            }
            let result = try await downloader.loadImage(
                with: origin.url("/alias.png"), context: ImageLoaderContext(requestModifier: modifier))
            #expect(result.image.format == .png)
            #expect(origin.requests("/real.png").first?.header("x-signed") == "abc")
            #expect(origin.requestCount("/alias.png") == 0)

            let veto = RequestModifier { _ in nil }
            let recorder = LoadRecorder()
            let outcome = downloader.downloadImage(
                with: origin.url("/real.png?veto"), context: ImageLoaderContext(requestModifier: veto), completed: recorder.completion)
            guard case .failure(let error) = outcome else { Issue.record("a vetoed request made a token"); return }
            #expect(error.code == 2000)
            await #expect(throws: WebImageError.invalidDownloadOperation(reason: "the request modifier returned nil")) {
                try await downloader.loadImage(with: origin.url("/real.png?veto"), context: ImageLoaderContext(requestModifier: veto))
            }
            #expect(origin.requestCount("/real.png") == 1)
        }
    }

    @Test("a response modifier can rewrite the response; nil fails with 2003", arguments: DownloaderConfig.Transport.carriers)
    func responseModifier(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier, { $0.acceptableContentTypes = ["image/png"] }) { origin, downloader in
            origin.route("/octet", .body(.fixture("png-rgb.png"), contentType: "application/octet-stream"))
            let fix = ResponseModifier(headerFields: [.contentType: "image/png"])
            let result = try await downloader.loadImage(with: origin.url("/octet"), context: ImageLoaderContext(responseModifier: fix))
            #expect(result.response?.mimeType == "image/png")
            let veto = ResponseModifier { _ in nil }
            do throws(WebImageError) {
                _ = try await downloader.loadImage(with: origin.url("/octet?v"), context: ImageLoaderContext(responseModifier: veto))
                Issue.record("a vetoed response decoded")
            } catch {
                #expect(error.code == 2003)
            }
        }
    }

    @Test("a decryptor turns the body into image bytes; nil fails with 1001", arguments: DownloaderConfig.Transport.carriers)
    func decryptor(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let png = try Fixtures.data("png-rgb.png")
            origin.route("/b64", .body(.bytes(Data(png.base64EncodedString().utf8)), contentType: "text/plain"))
            let result = try await downloader.loadImage(with: origin.url("/b64"), context: ImageLoaderContext(decryptor: Decryptor.base64))
            #expect(result.data == png)
            let veto = Decryptor { _, _ in nil }
            do throws(WebImageError) {
                _ = try await downloader.loadImage(with: origin.url("/b64?v"), context: ImageLoaderContext(decryptor: veto))
                Issue.record("a failed decryption decoded")
            } catch {
                #expect(error == .badImageData(reason: "the decryptor returned nil"))
            }
        }
    }

    @Test("basic-auth credentials go only to their hosts, and over plain http only when allowed", arguments: DownloaderConfig.Transport.carriers)
    func basicAuth(_ carrier: DownloaderConfig.Transport) async throws {
        func sent(_ credentials: [DownloadCredential]) async throws -> String? {
            var answer: String?
            try await withOrigin(over: carrier, { $0.credentials = credentials }) { origin, downloader in
                origin.route("/auth.png", .fixture("png-rgb.png"))
                _ = try await downloader.loadImage(with: origin.url("/auth.png"))
                answer = origin.requests("/auth.png").last?.header("authorization")
            }
            return answer
        }
        let host = "127.0.0.1"  // the origin's
        #expect(try await sent([DownloadCredential(username: "user", password: "p@ss", hosts: [host], allowsPlainHTTP: true)])
            == "Basic dXNlcjpwQHNz")
        // Plain http is refused by default; another host, or a suffix pattern, never gets them.
        #expect(try await sent([DownloadCredential(username: "user", password: "p@ss", hosts: [host])]) == nil)
        #expect(try await sent([DownloadCredential(username: "u", password: "p", hosts: ["images.example.com"], allowsPlainHTTP: true)]) == nil)
        #expect(try await sent([DownloadCredential(username: "u", password: "p", hosts: ["*.0.0.1"], allowsPlainHTTP: true)]) == nil)
        #expect(!DownloadCredential(username: "u", password: "p", hosts: ["*.example.com"]).applies(to: URL(string: "https://example.com/a")!))
        #expect(DownloadCredential(username: "u", password: "p", hosts: ["*.example.com"]).applies(to: URL(string: "https://CDN.Example.com./a")!))
        #expect(!"\(DownloadCredential(username: "u", password: "secret", hosts: []))".contains("secret"))
    }

    @Test("credentials go over https to their host (the TLS origin)", arguments: DownloaderConfig.Transport.carriers)
    func basicAuthOverTLS(_ carrier: DownloaderConfig.Transport) async throws {
        let origin = try await TestOrigin.start(tls: SelfSignedCertificate.serverContext())
        let url = origin.url("/auth.png")
        origin.route("/auth.png", .fixture("png-rgb.png"))
        var config = DownloaderConfig.forSpecs(carrier)
        config.credentials = [DownloadCredential(username: "user", password: "p@ss", hosts: ["127.0.0.1"])]
        let downloader = ImageDownloader(config: config)
        var loaded: ImageLoaderResult?
        do { loaded = try await downloader.loadImage(with: url, options: .allowInvalidSSLCertificates) } catch {
            Issue.record("\(error)")
        }
        try await downloader.shutdown()
        await origin.shutdown()
        #expect(url.scheme == "https")
        #expect(loaded != nil)
        #expect(origin.requests("/auth.png").last?.header("authorization") == "Basic dXNlcjpwQHNz")
    }

    @Test("a certificate in additionalTrustedCertificateFiles is trusted for https, checked against the address; without it the same origin fails the check, and a file that cannot be loaded fails the download as TLS even beside a good one", arguments: DownloaderConfig.Transport.carriers)
    func additionalTrustRoots(_ carrier: DownloaderConfig.Transport) async throws {
        let origin = try await TestOrigin.start(tls: SelfSignedCertificate.serverContext())
        defer { origin.stop() }
        origin.route("/t.png", .fixture("png-rgb.png"))
        func load(trusting files: [String]) async -> Result<ImageLoaderResult, WebImageError> {
            var config = DownloaderConfig.forSpecs(carrier)
            config.additionalTrustedCertificateFiles = files
            let downloader = ImageDownloader(config: config)
            let result: Result<ImageLoaderResult, WebImageError>
            do { result = .success(try await downloader.loadImage(with: origin.url("/t.png"))) } catch { result = .failure(error) }
            try? await downloader.shutdown()
            return result
        }
        let certificate = try SelfSignedCertificate.certificatePath()
        let trusted = await load(trusting: [certificate])
        #expect((try? trusted.get().data) == (try Fixtures.data("png-rgb.png")))
        // Beside the good file, a missing one must still fail: skipping it would let the load through.
        for files in [[], [certificate, "/nonexistent/ca.pem"]] {
            let outcome = await load(trusting: files)
            guard case .failure(.transport(.secureConnectionFailed)) = outcome else {
                Issue.record("trusting \(files): expected secureConnectionFailed, got \(outcome)")
                continue
            }
        }
        #expect(origin.requestCount("/t.png") == 1)
    }

    @Test("cookies are stored and sent back only with handleCookies", arguments: DownloaderConfig.Transport.carriers)
    func cookies(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            origin.route("/login.png", .body(.fixture("png-rgb.png"), headers: [("Set-Cookie", "session=s1; Path=/")]))
            origin.route("/next.png", .fixture("png-rgb.png"))
            _ = try await downloader.loadImage(with: origin.url("/login.png"), options: .handleCookies)
            _ = try await downloader.loadImage(with: origin.url("/next.png"), options: .handleCookies)
            _ = try await downloader.loadImage(with: origin.url("/next.png?plain"))
            let requests = origin.requests("/next.png")
            #expect(requests.first?.header("cookie") == "session=s1")
            #expect(requests.last?.header("cookie") == nil)
        }
    }

    @Test("cached validators make a conditional request; 304 serves the cached image or bytes, or 1002 without them", arguments: DownloaderConfig.Transport.carriers)
    func conditionalRequests(_ carrier: DownloaderConfig.Transport) async throws {
        try await withOrigin(over: carrier) { origin, downloader in
            let modified = "Tue, 15 Nov 1994 12:45:26 GMT"
            origin.route("/v.png", .validated(.fixture("png-rgb.png"), etag: "\"abc\"", lastModified: modified))
            let fresh = try await downloader.loadImage(with: origin.url("/v.png"))
            let validators = try #require(fresh.validators)
            #expect(validators.etag == "\"abc\"")
            #expect(validators.lastModified == modified)
            #expect(!fresh.isNotModified)

            let cached = try await downloader.loadImage(
                with: origin.url("/v.png"), context: ImageLoaderContext(cachedValidators: validators, cachedData: fresh.data))
            #expect(cached.isNotModified)
            #expect(cached.response?.statusCode == 304)
            #expect(cached.data == fresh.data)
            let conditional = try #require(origin.requests("/v.png").last)
            #expect(conditional.header("if-none-match") == "\"abc\"")
            #expect(conditional.header("if-modified-since") == modified)

            // With the cached image, a 304 answers with it as it is (nothing to decode).
            let image = Image(bitmap: Fixtures.testCard(width: 3, height: 2))
            let kept = try await downloader.loadImage(
                with: origin.url("/v.png"), context: ImageLoaderContext(cachedValidators: validators, cachedImage: image))
            #expect(kept.isNotModified && kept.image.bitmap == image.bitmap)
            #expect(kept.validators?.etag == "\"abc\"")

            await #expect(throws: WebImageError.cacheNotModified) {
                try await downloader.loadImage(with: origin.url("/v.png"), context: ImageLoaderContext(cachedValidators: validators))
            }
        }
    }
}
