import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@Suite("webimage serve")
struct ServeCommandTests {
    /// Longer than the server's own request deadline, so the server's answer is what a spec sees.
    static let answerTimeout = TimeAmount.seconds(Int64(TestTiming.seconds(60)))

    @Test("SIGTERM with --drain-grace 0: the request in flight finishes with 200, then the process exits 0")
    func drainsOnSIGTERM() async throws {
        try await withOriginAndFolder { origin, directory in
            origin.route("/slow.jpg", .delayed(2, .fixture("jpeg-baseline.jpg")))
            let log = directory.appendingPathComponent("serve.log")
            let (process, port, _) = try await startServe(
                ["--allow-unsafe", "--allow-loopback-sources", "--access-log", "--cache-dir", directory.path, "--drain-grace", "0"],
                environment: ["LOG_LEVEL": "info"], log: log)
            defer { if process.isRunning { process.terminate() } }
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let inFlight = Task {
                let response = try await client.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(port)/unsafe/10x0/127.0.0.1:\(origin.port)/slow.jpg"), timeout: Self.answerTimeout)
                return Int(response.status.code)
            }
            // Asked once the origin has the request, whenever this task gets a thread again: a check
            // for "in flight right now" missed the whole 1.5 s under ThreadSanitizer (the suite's tasks
            // wait that long for the pool there), and the answer was long done.
            #expect(await eventually { origin.requestCount("/slow.jpg") == 1 })
            kill(process.processIdentifier, SIGTERM)
            let status = try await inFlight.value
            #expect(await eventually { !process.isRunning })
            #expect(status == 200, "the server's log: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            #expect(process.terminationReason == .exit && process.terminationStatus == 0)
            try await client.shutdown()
        }
    }

    @Test("limit and cache flags reach the server: printed at start (secrets redacted), and the answers follow them")
    func flagsReachTheServer() async throws {
        try await withOriginAndFolder { origin, directory in
            origin.route("/a.jpg", .fixture("jpeg-baseline.jpg"))
            let (process, port, settings) = try await startServe(
                ["--allow-unsafe", "--allow-loopback-sources", "--cache-dir", directory.path, "--result-max-age", "60",
                 "--max-output-pixels", "1000", "--max-redirects", "1", "--source-timeout", "30", "--max-cache-size", "2GB"],
                environment: ["WEBIMAGE_PURGE_TOKEN": "s3cret-token"])
            defer { process.terminate() }
            #expect(settings.contains("output 1000 px") && settings.contains("1 redirects") && settings.contains("source timeout 30.0 s"))
            #expect(settings.contains("max-age 60 s") && !settings.contains("s3cret-token"), "\(settings)")
            // --max-cache-size takes the other commands' sizes (2GB = 2,000,000,000 bytes, as `du --si`).
            #expect(settings.contains("2000000000 bytes per tier"), "\(settings)")
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            let base = "http://127.0.0.1:\(port)/unsafe"
            let small = try await client.execute(HTTPClientRequest(url: "\(base)/20x0/127.0.0.1:\(origin.port)/a.jpg"), timeout: Self.answerTimeout)
            #expect(small.status.code == 200 && small.headers.first(name: "cache-control") == "public, max-age=60")
            let large = try await client.execute(HTTPClientRequest(url: "\(base)/40x0/127.0.0.1:\(origin.port)/a.jpg"), timeout: Self.answerTimeout)
            #expect(large.status.code == 413, "40x27 is over 1,000 output pixels")
            try await client.shutdown()
        }
    }

    @Test("--cacert trusts a CA for https sources: a TLS origin's image is served with it, and refused without it")
    func trustsACertificateAuthority() async throws {
        let origin = try await TestOrigin.start(tls: SelfSignedCertificate.serverContext())
        defer { origin.stop() }
        origin.route("/t.png", .fixture("png-rgb.png"))
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        for trusted in [false, true] {
            let directory = try TemporaryFolder.make("cli")
            defer { TemporaryFolder.remove(directory) }
            let ca = trusted ? ["--cacert", try SelfSignedCertificate.certificatePath()] : []
            let (process, port, settings) = try await startServe(
                ["--allow-unsafe", "--allow-loopback-sources", "--cache-dir", directory.path] + ca)
            defer { process.terminate() }
            #expect(settings.contains("https sources: the system's CAs") && settings.contains(".pem") == trusted, "\(settings)")
            let url = "http://127.0.0.1:\(port)/unsafe/20x0/https://127.0.0.1:\(origin.port)/t.png"
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: Self.answerTimeout)
            // Untrusted: 502 — and at once, not after the connect timeout (a failed handshake is not retried).
            #expect(response.status.code == (trusted ? 200 : 502), "\(response.status)")
        }
        try await client.shutdown()
        #expect(origin.requestCount("/t.png") == 1, "the untrusted origin is never asked: its handshake fails")
    }

    @Test("a limit of 0 or below is refused at start, naming the flag")
    func refusesNonPositiveLimits() async throws {
        let result = try await CLIRunner.run(["serve", "--allow-unsafe", "--port", "0", "--max-output-pixels", "0"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--max-output-pixels must be greater than 0"))
        let endless = try await CLIRunner.run(["serve", "--allow-unsafe", "--port", "0", "--request-deadline", "inf"])
        #expect(endless.status == 64 && endless.stderr.contains("--request-deadline must be a number of seconds"), "\(endless.stderr)")
    }

    @Test("without a security key or --allow-unsafe it refuses to start, saying what to do")
    func refusesWithoutKeys() async throws {
        let result = try await CLIRunner.run(["serve", "--port", "0"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("WEBIMAGE_SECURITY_KEY"))
    }

    /// Starts `webimage serve --port 0 ARGUMENTS` and reads what it prints at start: the port from
    /// the first line, the settings from the lines after it. Its log goes to `log` when given.
    func startServe(
        _ arguments: [String], environment: [String: String] = [:], log: URL? = nil
    ) async throws -> (Process, Int, String) {
        let process = Process()
        process.executableURL = CLIRunner.executable
        // The server's own timeouts stretch with the run's time scale, as the specs' do: under
        // ThreadSanitizer (both processes sanitized, the suite running around them) the drain spec's
        // one request once came back non-200 with the defaults (10 s idle, 30 s deadline).
        var timeouts: [String] = []
        for (flag, seconds) in [("--source-timeout", 10.0), ("--request-deadline", 30.0)] where !arguments.contains(flag) {
            timeouts += [flag, "\(TestTiming.seconds(seconds))"]
        }
        process.arguments = ["serve", "--port", "0"] + arguments + timeouts
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        if let log {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        let banner = try await onOwnThread { () -> String in
            var text = ""
            while !text.contains("variants max-age") || !text.hasSuffix("\n") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        let port = try #require(banner.split(separator: "\n").first?.split(separator: ":").last.flatMap { Int($0) }, "banner: \(banner)")
        return (process, port, banner)
    }
}
