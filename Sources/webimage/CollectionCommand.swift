import ArgumentParser
import Foundation
import WebImage

/// `webimage collection`: named lists of images kept in the disk cache for offline reading.
struct CollectionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection",
        abstract: "Keep named collections of images (a comic chapter) in the disk cache for offline reading.",
        discussion: """
            A collection's images are pinned: the cache's age and size trims never remove them (they \
            count toward --max-cache-size; an image that cannot fit beside them fails instead of \
            evicting them). Read them later without a network with `webimage fetch URL --offline`.

            Examples:
              webimage collection add chapter-1 --from chapter-1.txt
              webimage collection list
              webimage collection show chapter-1
              webimage collection export chapter-1 ~/comics/chapter-1
              webimage collection remove chapter-1            # the images then age normally
              webimage collection remove chapter-1 --delete   # or go at once
            """,
        subcommands: [Add.self, List.self, Show.self, Remove.self, Export.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Download a list of URLs into the cache and pin them in collection NAME.",
            discussion: """
                The URLs (one a line, as `prefetch` reads them) are added to NAME in list order and pinned \
                before the first download, so `collection show` lists the missing ones too. Images already \
                cached are not requested again: re-running the same command after Ctrl-C, a failure or \
                kill -9 fetches only what is missing. Transient failures (timeouts, resets, HTTP 408, 429, \
                5xx) are retried with growing, jittered delays (--retries). A progress bar on a terminal \
                shows count, rate, bytes and ETA.

                The last line is `finished N, skipped M in S s` (N = URLs now cached, M = failed). \
                Exit status: 0 when every URL is cached, 2 when some failed, 130 when interrupted.
                """)

        @Argument(help: "The collection's name: letters, digits, '.', '_' and '-'.") var name: String
        @Option(help: ArgumentHelp("Read the URLs from this file, one a line; - for standard input.", valueName: "FILE"))
        var from: String
        @Option(help: "Downloads in flight at once.") var concurrency: Int = 16
        @Option(help: "Times a transiently failed URL is tried again.") var retries: Int = 3
        @OptionGroup var cacheDirectory: CacheDirectoryOption
        @OptionGroup var trust: TrustOptions
        @Flag(name: .customLong("no-progress"), help: "No progress display on stderr.") var noProgress = false
        @Flag(help: "Decode every image fully to check it (slower; by default its structure is checked).") var decode = false
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard (1...1024).contains(concurrency) else { throw ValidationError("--concurrency takes 1-1024 (got \(concurrency))") }
            guard (0...20).contains(retries) else { throw ValidationError("--retries takes 0-20 (got \(retries))") }
        }

        func run() async throws {
            let logger = logging.bootstrap()
            let list: [URL]
            do throws(CLIError) { list = try URLList.read(from: from) } catch { CLIError.exit(with: error.message) }
            let pipeline = CLIPipeline(
                cache: cacheDirectory, concurrency: concurrency, transport: .http1, trust: trust.certificates.files, timeout: trust.timeout)
            var run = PrefetchRun(pipeline: pipeline, concurrency: concurrency, decode: decode, showsProgress: !noProgress, logger: logger)
            run.retries = retries
            let outcome: PrefetchRun.Outcome
            do {
                outcome = try await run.run(list, into: name)
            } catch {
                await pipeline.shutdown()
                CLIError.exit(with: "cannot add to collection \(name): \(error)")
            }
            await pipeline.shutdown()
            let disk = pipeline.cache.diskCache
            let collections = disk.collections()
            if let summary = collections.first(where: { $0.name == name }) {
                note("collection \(name): \(summary.cachedCount) of \(summary.count) images cached, \(ByteCount.text(summary.bytes))")
                let pinned = collections.reduce(0) { $0 + $1.bytes }
                let limit = disk.config.maxDiskSize
                if summary.missingCount > 0, limit > 0, pinned + pinned / 20 >= limit {
                    note("the cache is nearly full of pinned images (\(ByteCount.text(pinned)) of \(ByteCount.text(limit))): raise --max-cache-size or remove a collection")
                }
            }
            try run.finish(outcome, of: list)
        }

        private func note(_ line: String) {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Print each collection: name, images, bytes cached, images missing.")

        @OptionGroup var cacheDirectory: CacheDirectoryOption
        @Flag(help: "One JSON line per collection instead of aligned text.") var json = false

        func run() async throws {
            let collections = DiskCache(directory: cacheDirectory.directory).collections()
            if json {
                for c in collections {
                    print("{\"name\":\"\(c.name)\",\"images\":\(c.count),\"cached\":\(c.cachedCount),\"bytes\":\(c.bytes),\"missing\":\(c.missingCount)}")
                }
                return
            }
            guard !collections.isEmpty else {
                print("no collections in \(cacheDirectory.directory.path)")
                return
            }
            let width = max(4, collections.map(\.name.count).max() ?? 0)
            print("NAME".padding(toLength: width, withPad: " ", startingAt: 0) + "  IMAGES      BYTES  MISSING")
            for c in collections {
                print(c.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + pad(c.count, 6) + "  "
                      + pad(ByteCount.text(c.bytes), 9) + "  " + pad(c.missingCount, 7))
            }
        }

        private func pad(_ value: some CustomStringConvertible, _ width: Int) -> String {
            let text = value.description
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print each URL of collection NAME in order: cached (with its bytes) or missing.")

        @Argument(help: "The collection's name.") var name: String
        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let entries: [ImageCollectionEntry]
            do { entries = try DiskCache(directory: cacheDirectory.directory).entries(in: name) } catch {
                CLIError.exit(with: "\(error)")
            }
            for entry in entries {
                print(entry.isCached ? "cached  \(ByteCount.text(entry.bytes))  \(entry.key)" : "missing  \(entry.key)")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Unpin collection NAME: its images then age and trim like any other, or with --delete go now.")

        @Argument(help: "The collection's name.") var name: String
        @Flag(help: "Also delete its images from the cache (those no other collection pins).") var delete = false
        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let removed: Int
            do { removed = try DiskCache(directory: cacheDirectory.directory).unpin(collection: name, deletingEntries: delete) } catch {
                CLIError.exit(with: "\(error)")
            }
            print(delete ? "removed collection \(name) and \(removed) images" : "removed collection \(name); its images stay cached until they age out")
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Copy collection NAME's cached images into DIR, named in list order (0001.jpg, 0002.png, …).",
            discussion: "Missing images are skipped and listed on stderr; exit status 2 when any is missing.")

        @Argument(help: "The collection's name.") var name: String
        @Argument(help: "The folder to write (created when missing).") var directory: String
        @OptionGroup var cacheDirectory: CacheDirectoryOption

        func run() async throws {
            let disk = DiskCache(directory: cacheDirectory.directory)
            let entries: [ImageCollectionEntry]
            do { entries = try disk.entries(in: name) } catch { CLIError.exit(with: "\(error)") }
            try CachedListExport(disk: disk, directory: directory).export(entries.map(\.key))
        }
    }
}
