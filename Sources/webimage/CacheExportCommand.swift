import ArgumentParser
import Foundation
import WebImage

extension CacheCommand {
    /// Hidden: what the disk cache returns for each URL of a list, written as `collection export`
    /// writes a collection, so a script can compare it byte for byte with the origin
    /// (Tools/harness/crash-consistency). It looks each URL up with the manager's cache key — the
    /// same lookup a `fetch` makes — rather than guessing file names.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Copy the cached bytes of each listed URL into DIR, named in list order (0001.jpg, 0002.png, …).",
            discussion: "Missing images are skipped and listed on stderr; exit status 2 when any is missing.",
            shouldDisplay: false)

        @Option(help: ArgumentHelp("The URL list, one a line; - for standard input.", valueName: "FILE"))
        var from: String

        @Option(help: ArgumentHelp("The folder to write (created when missing).", valueName: "DIR"))
        var to: String

        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let list: [URL]
            do throws(CLIError) { list = try URLList.read(from: from) } catch { CLIError.exit(with: error.message) }
            let pipeline = CLIPipeline(cache: cacheDirectory)
            let keys = list.map { pipeline.manager.cacheKey(for: $0) ?? $0.absoluteString }
            await pipeline.shutdown()  // only its key rule is needed, and its HTTP client must be shut down before release
            try CachedListExport(disk: pipeline.cache.diskCache, directory: to).export(keys)
        }
    }
}
