import Foundation
import Testing
@testable import WebImage

/// A chapter of `count` pages on `origin`, written as a URL list in `dir`.
private func chapter(_ origin: TestOrigin, count: Int, in dir: URL, name: String = "ch1") throws -> (list: URL, urls: [URL]) {
    let fixtures = ["jpeg-baseline.jpg", "png-rgb.png", "webp-lossy.webp"]
    let urls = (0..<count).map { index in
        let fixture = fixtures[index % fixtures.count]
        let path = "/\(name)/\(index).\(URL(fileURLWithPath: fixture).pathExtension)"
        origin.route(path, .fixture(fixture))
        return origin.url(path)
    }
    let list = dir.appendingPathComponent("\(name).txt")
    try urls.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
    return (list, urls)
}

/// `webimage collection` and `--offline`, run as processes against the loopback origin.
@Suite("webimage collection")
struct CollectionCommandTests {
    @Test("add, list, show, export in list order, read every page --offline with no request, remove")
    func walkThrough() async throws {
        try await withOriginAndFolder { origin, dir in
            let (list, urls) = try chapter(origin, count: 30, in: dir)
            let cache = ["--cache-dir", dir.appendingPathComponent("cache").path]

            let add = try await CLIRunner.run(["collection", "add", "chapter-1", "--from", list.path, "--no-progress"] + cache)
            #expect(add.status == 0, "\(add.stderr)")
            #expect(add.stdout.hasPrefix("finished 30, skipped 0 in "))
            let listed = try await CLIRunner.run(["collection", "list", "--json"] + cache)
            #expect(listed.stdout.hasPrefix(#"{"name":"chapter-1","images":30,"cached":30,"#) && listed.stdout.contains(#""missing":0}"#))
            let shown = try await CLIRunner.run(["collection", "show", "chapter-1"] + cache)
            let lines = shown.stdout.split(separator: "\n")
            #expect(lines.count == 30 && lines.allSatisfy { $0.hasPrefix("cached ") })
            #expect(lines.map { String($0.split(separator: " ").last!) } == urls.map(\.absoluteString), "in list order")

            let export = dir.appendingPathComponent("reader")
            let exported = try await CLIRunner.run(["collection", "export", "chapter-1", export.path] + cache)
            #expect(exported.status == 0)
            let files = try FileManager.default.contentsOfDirectory(atPath: export.path).sorted()
            #expect(files.first == "0001.jpg" && files[1] == "0002.png" && files[2] == "0003.webp" && files.count == 30)

            origin.stop()
            let requestsBefore = origin.requests.count
            for url in urls {
                let read = try await CLIRunner.run(["fetch", url.absoluteString, "--offline"] + cache)
                #expect(read.status == 0 && read.stdout.contains(#""cacheType":"disk""#), "\(url): \(read.stderr)")
            }
            #expect(origin.requests.count == requestsBefore, "--offline makes no request")

            let removed = try await CLIRunner.run(["collection", "remove", "chapter-1", "--delete"] + cache)
            #expect(removed.status == 0 && removed.stdout.contains("30 images"))
            let none = try await CLIRunner.run(["collection", "list"] + cache)
            #expect(none.stdout.hasPrefix("no collections"))
            let gone = try await CLIRunner.run(["collection", "show", "chapter-1"] + cache)
            #expect(gone.status == 1 && gone.stderr.contains("no collection named 'chapter-1'"))
        }
    }

    @Test("collection export and cache export write the same files for the same list, and skip a missing image alike")
    func bothExportsAgree() async throws {
        try await withOriginAndFolder { origin, dir in
            let (list, urls) = try chapter(origin, count: 5, in: dir)
            let gone = origin.url("/ch1/gone.png")  // not routed: 404, so never cached
            let listed = Array(urls[..<2]) + [gone] + urls[2...]
            try listed.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
            let cache = ["--cache-dir", dir.appendingPathComponent("cache").path]
            let add = try await CLIRunner.run(["collection", "add", "chapter-1", "--from", list.path, "--no-progress"] + cache)
            #expect(add.status == 2, "\(add.stderr)")

            let byName = dir.appendingPathComponent("by-collection"), byList = dir.appendingPathComponent("by-list")
            let exports = [
                try await CLIRunner.run(["collection", "export", "chapter-1", byName.path] + cache),
                try await CLIRunner.run(["cache", "export", "--from", list.path, "--to", byList.path] + cache),
            ]
            for (result, folder) in zip(exports, [byName, byList]) {
                #expect(result.status == 2)
                #expect(result.stderr == "missing: \(gone.absoluteString)\n")
                #expect(result.stdout == "exported 5 images to \(folder.path), 1 missing\n")
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: byName.path).sorted()
            #expect(files == ["0001.jpg", "0002.png", "0004.webp", "0005.jpg", "0006.png"], "numbered by list position")
            #expect(try FileManager.default.contentsOfDirectory(atPath: byList.path).sorted() == files)
            for (file, fixture) in zip(files, ["jpeg-baseline.jpg", "png-rgb.png", "webp-lossy.webp", "jpeg-baseline.jpg", "png-rgb.png"]) {
                let want = try Fixtures.data(fixture)
                #expect(try Data(contentsOf: byName.appendingPathComponent(file)) == want, "\(file)")
                #expect(try Data(contentsOf: byList.appendingPathComponent(file)) == want, "\(file)")
            }
        }
    }

    @Test("--offline on a miss is exit status 3 with a clear line, and the origin sees no request (fetch and show)")
    func offlineMiss() async throws {
        try await withOriginAndFolder { origin, dir in
            origin.route("/a.png", .fixture("png-rgb.png"))
            let cache = ["--cache-dir", dir.appendingPathComponent("cache").path]
            for command in ["fetch", "show"] {
                let result = try await CLIRunner.run([command, origin.url("/a.png").absoluteString, "--offline"] + cache)
                #expect(result.status == 3, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("is not in the cache (--offline makes no request"))
            }
            #expect(origin.requests.isEmpty)
        }
    }

    @Test("a chapter larger than half the quota keeps every page through later prefetches; a page that cannot fit is skipped with a hint")
    func largerThanHalfTheQuota() async throws {
        try await withOriginAndFolder { origin, dir in
            let (list, urls) = try chapter(origin, count: 12, in: dir)
            let pageBytes = try ["jpeg-baseline.jpg", "png-rgb.png", "webp-lossy.webp"].map { try Fixtures.data($0).count }.reduce(0, +) * 4
            let cache = ["--cache-dir", dir.appendingPathComponent("cache").path, "--max-cache-size", "\(pageBytes * 3 / 2)"]
            let add = try await CLIRunner.run(["collection", "add", "chapter-1", "--from", list.path, "--no-progress"] + cache)
            #expect(add.status == 0, "\(add.stderr)")
            // Other images push the cache over its quota again and again.
            let others = (0..<20).map { index -> String in
                origin.route("/other/\(index).png", .fixture("png-rgb.png"))
                return origin.url("/other/\(index).png").absoluteString
            }
            _ = try await CLIRunner.run(["prefetch", "--no-progress"] + others + cache)
            let shown = try await CLIRunner.run(["collection", "show", "chapter-1"] + cache)
            #expect(shown.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("cached ") }, "\(shown.stdout)")
            #expect(urls.allSatisfy { origin.requestCount($0.path) == 1 })

            let tight = ["--cache-dir", dir.appendingPathComponent("cache").path, "--max-cache-size", "\(pageBytes / 2)"]
            let (bigList, _) = try chapter(origin, count: 12, in: dir, name: "ch2")
            let over = try await CLIRunner.run(["collection", "add", "chapter-2", "--from", bigList.path, "--no-progress"] + tight)
            #expect(over.status == 2, "some pages cannot fit beside the pinned ones")
            #expect(over.stderr.contains("nearly full of pinned images"))
        }
    }

    @Test("re-running add after a kill -9 fetches only what is missing, and every stored page reads whole")
    func resumesAfterKill() async throws {
        try await withOriginAndFolder { origin, dir in
            let (list, urls) = try chapter(origin, count: 40, in: dir)
            // Slow enough that a poll on a loaded machine sees 12 stored long before all 40 are.
            for (index, url) in urls.enumerated() where index >= 10 {
                origin.route(url.path, .delayed(TestTiming.seconds(1.0), .fixture(["jpeg-baseline.jpg", "png-rgb.png", "webp-lossy.webp"][index % 3])))
            }
            let cacheDir = dir.appendingPathComponent("cache")
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["collection", "add", "chapter-1", "--from", list.path, "--cache-dir", cacheDir.path, "--no-progress", "--concurrency", "2"]
            process.standardOutput = Pipe()
            process.standardError = Pipe()
            try process.run()
            let deadline = ContinuousClock.now + .seconds(TestTiming.seconds(60))
            while DiskCache(directory: cacheDir).totalCount < 12, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Requests the killed process had sent may still reach the origin: count once every one of
            // its connections has closed there (TCP delivers what was sent before the close), and it is quiet.
            var settled = origin.requests.count
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .seconds(TestTiming.seconds(0.4)))
                let now = origin.requests.count
                if now == settled, origin.inFlightRequests == 0, origin.openConnectionCount == 0 { break }
                settled = now
            }
            let stored = try DiskCache(directory: cacheDir).entries(in: "chapter-1").filter(\.isCached)
            #expect(stored.count >= 12 && stored.count < 40)
            let requestsBefore = urls.map { origin.requestCount($0.path) }
            let again = try await CLIRunner.run(["collection", "add", "chapter-1", "--from", list.path, "--cache-dir", cacheDir.path, "--no-progress"])
            #expect(again.status == 0, "\(again.stderr)")
            for (index, url) in urls.enumerated() {
                let wasStored = stored.contains { $0.key == url.absoluteString }
                #expect(origin.requestCount(url.path) == requestsBefore[index] + (wasStored ? 0 : 1), "\(url)")
            }
            for url in urls {
                let data = try #require(DiskCache(directory: cacheDir).data(forKey: url.absoluteString))
                #expect(throws: Never.self) { try ImageIntegrity.check(data) }
            }
        }
    }

    @Test("cache clean --max-age and --expire-type: pinned images stay, others older than the age go")
    func cleanByAge() async throws {
        try await withOriginAndFolder { origin, dir in
            let (list, _) = try chapter(origin, count: 3, in: dir)
            origin.route("/loose.png", .fixture("png-rgb.png"))
            let cache = ["--cache-dir", dir.appendingPathComponent("cache").path]
            _ = try await CLIRunner.run(["collection", "add", "c", "--from", list.path, "--no-progress"] + cache)
            _ = try await CLIRunner.run(["prefetch", "--no-progress", origin.url("/loose.png").absoluteString] + cache)
            let kept = try await CLIRunner.run(["cache", "clean", "--max-age", "1d"] + cache)
            #expect(kept.stdout.hasPrefix("removed 0 entries"))
            try await Task.sleep(for: .milliseconds(1100))
            let cleaned = try await CLIRunner.run(["cache", "clean", "--max-age", "1s", "--expire-type", "access"] + cache)
            #expect(cleaned.status == 0 && cleaned.stdout.hasPrefix("removed 1 entries"), "\(cleaned.stdout)")
            #expect(DiskCache(directory: dir.appendingPathComponent("cache")).totalCount == 3)
            let bad = try await CLIRunner.run(["cache", "clean", "--max-age", "soon"] + cache)
            #expect(bad.status == 64)
        }
    }
}
