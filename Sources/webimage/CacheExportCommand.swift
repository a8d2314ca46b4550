import ArgumentParser
import Foundation
import WebImage

extension CacheCommand {
    /// Hidden: copies what the disk cache returns for each URL of a list into a directory, so a
    /// script can compare it byte for byte with the origin (Tools/harness/crash-consistency). It reads
    /// through ``DiskCache/data(forKey:)`` with the manager's cache key — the same lookup a
    /// `fetch` makes — rather than guessing file names.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the cached bytes of each listed URL to DIR/<line number>; print '<n> <url>' for each present one.",
            shouldDisplay: false)

        @Option(help: ArgumentHelp("The URL list, one a line; - for standard input.", valueName: "FILE"))
        var from: String

        @Option(help: ArgumentHelp("Where to write the entries (created when missing).", valueName: "DIR"))
        var to: String

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let list: [URL]
            do throws(CLIError) { list = try URLList.read(from: from) } catch { CLIError.exit(with: error.message) }
            let output = URL(fileURLWithPath: to, isDirectory: true)
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            let pipeline = CLIPipeline(cache: cacheDirectory)
            var failure: (any Error)?
            for (index, url) in list.enumerated() {
                let key = pipeline.manager.cacheKey(for: url) ?? url.absoluteString
                guard let data = pipeline.cache.diskCache.data(forKey: key) else { continue }
                do { try data.write(to: output.appendingPathComponent("\(index)")) } catch { failure = error; break }
                print("\(index) \(url.absoluteString)")
            }
            await pipeline.shutdown()  // the HTTP client must be shut down before it is released
            if let failure { throw failure }
        }
    }
}
