import Foundation
import Testing
@testable import WebImage

/// `webimage cache info|clean|clear`, run as a process.
@Suite("webimage cache")
struct CacheCommandTests {
    @Test("clean's help says entries age by modification date, the default")
    func cleanHelp() async throws {
        let help = try await CLIRunner.run(["cache", "clean", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("modification date"))
        #expect(!help.stdout.contains("access date"))
        #expect(DiskCacheConfig().expireType == .modificationDate)
    }

    @Test func infoCleanAndClear() async throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = dir.appendingPathComponent("cache")

        let empty = try await CLIRunner.run(["cache", "info", "--json", "--cache-dir", cache.path])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout == #"{"path":"\#(cache.path)","size":0,"count":0,"oldest":null,"newest":null}"# + "\n")

        for name in ["png-rgb.png", "jpeg-baseline.jpg"] {
            let fetch = try await CLIRunner.run(["fetch", Fixtures.directory.appendingPathComponent(name).path, "--cache-dir", cache.path])
            #expect(fetch.status == 0, "\(fetch.stderr)")
        }
        let json = try await CLIRunner.run(["cache", "info", "--json", "--cache-dir", cache.path])
        #expect(json.stdout.contains(#""count":2"#))
        #expect(json.stdout.contains(#""oldest":"20"#))
        let text = try await CLIRunner.run(["cache", "info", "--cache-dir", cache.path])
        #expect(text.stdout.contains("path    \(cache.path)\n"))
        #expect(text.stdout.contains("count   2 entries\n"))

        let clean = try await CLIRunner.run(["cache", "clean", "--cache-dir", cache.path])
        #expect(clean.status == 0)
        #expect(clean.stdout.hasPrefix("removed 0 entries"))

        let clear = try await CLIRunner.run(["cache", "clear", "--cache-dir", cache.path])
        #expect(clear.status == 0)
        #expect(clear.stdout.hasPrefix("removed 2 entries"))
        #expect(DiskCache(directory: cache).totalCount == 0)
    }
}
