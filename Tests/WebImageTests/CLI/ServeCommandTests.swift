import AsyncHTTPClient
import Foundation
import Testing

@Suite("webimage serve")
struct ServeCommandTests {
    @Test("SIGTERM: the request in flight finishes with 200, then the process exits 0")
    func drainsOnSIGTERM() async throws {
        let origin = try await TestOrigin.start()
        defer { origin.stop() }
        origin.route("/slow.jpg", .delayed(1.5, .fixture("jpeg-baseline.jpg")))
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["serve", "--port", "0", "--allow-unsafe", "--allow-loopback-sources", "--cache-dir", directory.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The first line says where it listens.
        let banner = try await onOwnThread { () -> String in
            var text = ""
            while !text.contains("\n") {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        let port = try #require(banner.split(separator: "\n").first?.split(separator: ":").last.flatMap { Int($0) }, "banner: \(banner)")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let inFlight = Task {
            let response = try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/unsafe/10x0/127.0.0.1:\(origin.port)/slow.jpg"), timeout: .seconds(30))
            return Int(response.status.code)
        }
        #expect(await eventually { origin.inFlightRequests == 1 })
        kill(process.processIdentifier, SIGTERM)
        #expect(try await inFlight.value == 200)
        #expect(await eventually { !process.isRunning })
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        try await client.shutdown()
    }

    @Test("without a security key or --allow-unsafe it refuses to start, saying what to do")
    func refusesWithoutKeys() async throws {
        let result = try await CLIRunner.run(["serve", "--port", "0"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("WEBIMAGE_SECURITY_KEY"))
    }
}
