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
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // help wraps lines
        #expect(text.contains("modification date"))
        #expect(!text.contains("access date"))
        #expect(DiskCacheConfig().expireType == .modificationDate)
    }

    @Test func infoCleanAndClear() async throws {
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let cache = dir.appendingPathComponent("cache")

        let empty = try await CLIRunner.run(["cache", "info", "--json", "--cache-dir", cache.path])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout == #"{"path":"\#(cache.path)","size":0,"count":0,"oldest":null,"newest":null,"limit":1000000000}"# + "\n")

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

        // A smaller limit: clean trims to half of it, oldest first; info shows it.
        let limited = try await CLIRunner.run(["cache", "clean", "--cache-dir", cache.path, "--max-cache-size", "300B"])
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(DiskCache(directory: cache).totalSize <= 150)
        let info = try await CLIRunner.run(["cache", "info", "--cache-dir", cache.path, "--max-cache-size", "2GB"])
        #expect(info.stdout.contains("limit   2.00 GB (2000000000 bytes)\n"), "\(info.stdout)")
        let bad = try await CLIRunner.run(["cache", "info", "--cache-dir", cache.path, "--max-cache-size", "lots"])
        #expect(bad.status == 64)

        let clear = try await CLIRunner.run(["cache", "clear", "--cache-dir", cache.path])
        #expect(clear.status == 0)
        #expect(clear.stdout.hasPrefix("removed "))
        #expect(DiskCache(directory: cache).totalCount == 0)
    }
}
