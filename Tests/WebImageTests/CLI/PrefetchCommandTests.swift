import Foundation
import Testing
@testable import WebImage

/// `webimage prefetch`, run as a process against the loopback origin.
@Suite("webimage prefetch")
struct PrefetchCommandTests {
    @Test func aFailingURLIsSkippedWithExitStatus2AndTheRestIsCached() async throws {
        try await withOriginAndFolder { origin, dir in
            origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            origin.route("/b.png", .fixture("png-rgb.png"))
            origin.route("/c.webp", .fixture("webp-lossy.webp"))
            origin.route("/page.jpg", .html)
            let list = dir.appendingPathComponent("urls.txt")
            try """
                # three images, a missing one and a web page; CRLF, tab-indented and space-trailed lines too
                \(origin.url("/a.jpg"))

                  \(origin.url("/b.png"))
                \(origin.url("/missing.jpg"))\r
                \t\(origin.url("/c.webp")) \t\r
                \(origin.url("/page.jpg"))
                """.write(to: list, atomically: true, encoding: .utf8)
            let cache = dir.appendingPathComponent("cache")

            let result = try await CLIRunner.run(["prefetch", "--from", list.path, "--cache-dir", cache.path, "--no-progress", "-v"])
            #expect(result.status == 2, "\(result.stderr)")
            let last = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
            #expect(last.range(of: #"^finished 3, skipped 2 in \d+\.\d s$"#, options: .regularExpression) != nil, "\(last)")
            #expect(result.stderr.contains("skipped \(origin.url("/missing.jpg"))"))
            #expect(result.stderr.contains("skipped \(origin.url("/page.jpg"))"))
            #expect(DiskCache(directory: cache).totalCount == 3)

            // Again: the cached three cost no request; the failures are tried again.
            let again = try await CLIRunner.run(["prefetch", "--from", list.path, "--cache-dir", cache.path, "--no-progress"])
            #expect(again.status == 2)
            #expect(again.stdout.hasPrefix("finished 3, skipped 2 in "))
            #expect(origin.requestCount("/a.jpg") == 1)
            #expect(origin.requestCount("/missing.jpg") == 2)

            let refetch = try await CLIRunner.run(["fetch", origin.url("/b.png").absoluteString, "--cache-dir", cache.path])
            #expect(refetch.stdout.contains(#""cacheType":"disk""#))
            #expect(origin.requestCount("/b.png") == 1)
        }
    }

    @Test("200 copies of one URL cost one request, at --concurrency 16 and 1; every line counts as finished",
          arguments: [16, 1])
    func repeatsCostOneRequest(concurrency: Int) async throws {
        try await withOriginAndFolder { origin, dir in
            origin.route("/same.jpg", .delayed(0.05, .fixture("jpeg-baseline.jpg")))
            origin.route("/other.png", .fixture("png-rgb.png"))
            let list = dir.appendingPathComponent("urls.txt")
            let lines = Array(repeating: origin.url("/same.jpg").absoluteString, count: 200) + [origin.url("/other.png").absoluteString]
            try lines.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
            let result = try await CLIRunner.run([
                "prefetch", "--from", list.path, "--cache-dir", dir.appendingPathComponent("cache").path,
                "--no-progress", "--concurrency", "\(concurrency)",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("finished 201, skipped 0 in "), "\(result.stdout)")
            #expect(origin.requestCount("/same.jpg") == 1)
            #expect(origin.requestCount("/other.png") == 1)
        }
    }

    @Test func truncatedAndMangledBodiesAreSkippedAndNeverCached() async throws {
        let origin = try await TestOrigin.start()
        defer { origin.stop() }
        let jpeg = try Fixtures.data("jpeg-baseline.jpg")
        var flipped = try Fixtures.data("png-rgb.png")
        flipped[flipped.count / 2] ^= 0x01
        // Complete HTTP responses (right Content-Length) whose bytes start like images.
        origin.route("/cut.jpg", .body(.bytes(jpeg.prefix(jpeg.count * 2 / 3)), contentType: "image/jpeg"))
        origin.route("/flipped.png", .body(.bytes(flipped), contentType: "image/png"))
        origin.route("/good.jpg", .fixture("jpeg-baseline.jpg"))
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let urls = ["/cut.jpg", "/flipped.png", "/good.jpg"].map { origin.url($0).absoluteString }

        let result = try await CLIRunner.run(["prefetch", "--cache-dir", dir.path, "--no-progress"] + urls)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("finished 1, skipped 2 in "))
        #expect(DiskCache(directory: dir).totalCount == 1)
    }

    @Test func allSucceededExitsZeroWithPlainProgressOffATerminal() async throws {
        try await withOriginAndFolder { origin, dir in
            let urls = (0..<20).map { origin.url("/fixtures/png-rgb.png?n=\($0)").absoluteString }
            let result = try await CLIRunner.run(["prefetch", "--concurrency", "4", "--cache-dir", dir.path] + urls)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("finished 20, skipped 0 in "))
            #expect(!result.stderr.contains("\u{1B}["))  // no bar: stderr is a pipe
            #expect(origin.maxConcurrentRequests <= 4)
        }
    }

    @Test func ctrlCStopsCleanlyAndKeepsWhatFinished() async throws {
        try await withOriginAndFolder { origin, dir in
            origin.route("/fast.png", .fixture("png-rgb.png"))
            origin.route("/slow.png", .delayed(600, .fixture("png-rgb.png")))
            let list = dir.appendingPathComponent("urls.txt")
            // Four URLs for four slots: every one starts at once. With more URLs than slots the
            // prefetch workers race to the downloader, and under load the fast one can queue
            // behind slow ones until they time out.
            let urls = [origin.url("/fast.png")] + (0..<3).map { origin.url("/slow.png?n=\($0)") }
            try urls.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
            let cache = dir.appendingPathComponent("cache")

            let process = Process()
            process.executableURL = CLIRunner.executable
            // A timeout far past the wait below: a slow machine (the suite under ThreadSanitizer) must
            // not let the slow downloads time out before the interrupt.
            process.arguments = [
                "prefetch", "--from", list.path, "--cache-dir", cache.path, "--concurrency", "4", "--no-progress", "--timeout", "300",
            ]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = Pipe()
            try process.run()
            let deadline = ContinuousClock.now + .seconds(TestTiming.seconds(60))
            while origin.requestCount("/slow.png") < 3 || DiskCache(directory: cache).totalCount < 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            process.interrupt()
            let stdout = try await onOwnThread {
                let stdout = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return stdout
            }
            #expect(process.terminationStatus == 130)
            #expect(String(decoding: stdout, as: UTF8.self).hasPrefix("finished 1, skipped 0 in "))
            #expect(DiskCache(directory: cache).totalCount == 1)
        }
    }
}
