import Foundation
import Testing
@testable import WebImage

/// `webimage fetch`, run as a process against the loopback origin, each test with a cache
/// directory of its own.
@Suite("webimage fetch")
struct FetchCommandTests {
    @Test func aSecondFetchIsADiskHitWithoutARequest() async throws {
        try await withOriginAndFolder { origin, dir in
            origin.route("/cat.jpg", .fixture("jpeg-baseline.jpg"))
            let args = ["fetch", origin.url("/cat.jpg").absoluteString, "--cache-dir", dir.path, "-v"]

            let first = try await CLIRunner.run(args)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix(#"{"format":"jpeg","width":"#))
            #expect(first.stdout.hasSuffix(#","cacheType":"none"}"# + "\n"))
            #expect(first.stderr.contains("cache miss, loaded"))

            let second = try await CLIRunner.run(args)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.hasSuffix(#","cacheType":"disk"}"# + "\n"))
            #expect(second.stderr.contains("disk cache hit"))
            #expect(second.stderr.contains("bytes"))
            #expect(origin.requestCount("/cat.jpg") == 1)
        }
    }

    @Test func writesAThumbnailInTheFormatOfTheExtension() async throws {
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let out = dir.appendingPathComponent("thumb.webp")
        let result = try await CLIRunner.run([
            "fetch", Fixtures.directory.appendingPathComponent("jpeg-baseline.jpg").path,
            "--thumbnail", "24x24", "-o", out.path, "--quality", "80", "--cache-dir", dir.appendingPathComponent("cache").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""width":24,"height":16"#))
        let written = try ImageCodersManager.shared.decode(try Data(contentsOf: out))
        #expect(written.format == .webp)
        #expect(written.pixelSize == PixelSize(width: 24, height: 16))
    }

    @Test func aRotatedThumbnailHasTheSameSizeFromTheLoaderAndFromDisk() async throws {
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let out = dir.appendingPathComponent("thumb.png")
        let args = ["fetch", Fixtures.directory.appendingPathComponent("jpeg-orientation6.jpg").path, "--thumbnail", "24x24",
                    "-o", out.path, "--cache-dir", dir.appendingPathComponent("cache").path]
        for cacheType in ["none", "disk"] {
            let result = try await CLIRunner.run(args)
            #expect(result.stdout.contains(#""width":16,"height":24"#), "\(result.stdout)")
            #expect(result.stdout.contains(#""cacheType":"\#(cacheType)""#))
            #expect(try PNGCoder().decode(try Data(contentsOf: out)).pixelSize == PixelSize(width: 16, height: 24))
        }
    }

    @Test func appliesTransformStepsInOrderAndUprightsTheOutput() async throws {
        let dir = try TemporaryFolder.make("cli")
        defer { TemporaryFolder.remove(dir) }
        let out = dir.appendingPathComponent("out.img")
        let result = try await CLIRunner.run([
            "fetch", Fixtures.directory.appendingPathComponent("png-rgba.png").path,
            "--transform", "crop:0,0,20,10,flip:h", "--transform", "rotate:90", "--format", "png", "-o", out.path,
            "--cache-dir", dir.appendingPathComponent("cache").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try PNGCoder().decode(try Data(contentsOf: out))
        #expect(written.pixelSize == PixelSize(width: 10, height: 20))
    }

    @Test func noCacheNeitherReadsNorWrites() async throws {
        try await withOriginAndFolder { origin, dir in
            origin.route("/a.png", .fixture("png-rgb.png"))
            for _ in 0..<2 {
                let result = try await CLIRunner.run(["fetch", origin.url("/a.png").absoluteString, "--no-cache", "--cache-dir", dir.path])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.contains(#""cacheType":"none""#))
            }
            #expect(origin.requestCount("/a.png") == 2)
            #expect(DiskCache(directory: dir).totalCount == 0)
        }
    }

    @Test func aMissingImageIsOneErrorLine() async throws {
        try await withOriginAndFolder { origin, dir in
            let result = try await CLIRunner.run(["fetch", origin.url("/nope.jpg").absoluteString, "--cache-dir", dir.path])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("error: ") == true)
            #expect(result.stderr.contains("HTTP 404"))
        }
    }

    @Test("--cacert trusts a CA for https: the TLS origin's image arrives with it, and without it the error names the TLS failure")
    func trustsACertificateAuthority() async throws {
        try await withOriginAndFolder(tls: try SelfSignedCertificate.serverContext()) { origin, dir in
            origin.route("/t.png", .fixture("png-rgb.png"))
            let args = ["fetch", origin.url("/t.png").absoluteString, "--cache-dir", dir.path]
            let untrusted = try await CLIRunner.run(args)
            #expect(untrusted.status == 1)
            #expect(untrusted.stderr.contains("TLS failed"), "\(untrusted.stderr)")
            let trusted = try await CLIRunner.run(args + ["--cacert", try SelfSignedCertificate.certificatePath()])
            #expect(trusted.status == 0, "\(trusted.stderr)")
            #expect(trusted.stdout.hasPrefix(#"{"format":"png","width":"#))
            #expect(origin.requestCount("/t.png") == 1)
        }
    }

    @Test("bad arguments are usage errors (exit 64)", arguments: [
        ["fetch"],
        ["fetch", "a.jpg", "--thumbnail", "big"],
        ["fetch", "a.jpg", "--transform", "spin:3"],
        ["fetch", "a.jpg", "--transform", "crop:1,2"],
        ["fetch", "a.jpg", "--format", "bmp", "-o", "x"],
        ["fetch", "a.jpg", "--quality", "80"],
        ["prefetch", "--concurrency", "0"],
        ["prefetch", "--cacert", "/nonexistent/ca.pem"],
        ["fetch", "a.jpg", "--cacert", "/etc/passwd"],
        ["fetch", "a.jpg", "--timeout", "0"],
        ["prefetch", "--timeout", "soon"],
        ["cache", "purge"],
        ["frobnicate"],
    ])
    func badArguments(arguments: [String]) async throws {
        let result = try await CLIRunner.run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("Error:") || result.stderr.contains("error:"))
    }
}
