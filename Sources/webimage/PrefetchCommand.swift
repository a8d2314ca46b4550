import ArgumentParser
import Foundation
import Logging
import WebImage

struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Download a list of image URLs into the disk cache, many at a time.",
        discussion: """
            Reads one URL a line (blank lines and # comments skipped) from --from FILE, from standard \
            input (--from -, or when no URLs are given), or from the arguments. Each URL goes through \
            ImagePrefetcher and ImageManager as an app's prefetch would: downloaded, checked to be an \
            image, and its original bytes stored in the disk cache, so a later `webimage fetch` of it is a \
            disk hit. URLs already in the disk cache are counted as finished without a request. The check \
            is the bytes' structure (JPEG markers through end-of-image, PNG chunk CRCs, GIF blocks, WebP \
            chunks and header), which catches truncated and mangled bodies without decoding pixels; \
            --decode decodes fully instead (costs more CPU than downloading and storing).

            On a terminal a progress bar shows count, rate, bytes and ETA on stderr; otherwise a plain \
            line every 2 seconds (--no-progress: none). Ctrl-C stops cleanly: downloads in flight are \
            cancelled, what finished stays cached, and the summary is printed (a second Ctrl-C quits at once).

            The last line on stdout is always
              finished N, skipped M in S s
            N = images now cached, M = URLs that failed (listed on stderr with -v). \
            Exit status: 0 when every URL succeeded, 2 when some were skipped, 130 when interrupted, \
            1 when the list cannot be read, 64 for a bad argument.

            Examples:
              webimage prefetch --from urls.txt
              webimage prefetch --from urls.txt --concurrency 32 --cache-dir /tmp/c -v
              grep -o 'https://[^"]*\\.jpg' page.html | webimage prefetch --no-progress
              webimage prefetch https://example.com/a.jpg https://example.com/b.png
            """
    )

    @Argument(help: ArgumentHelp("URLs to prefetch (instead of a list).", valueName: "URL"))
    var urls: [String] = []

    @Option(help: ArgumentHelp("Read the URLs from this file, one a line; - for standard input.", valueName: "FILE"))
    var from: String?

    @Option(help: "Downloads in flight at once.")
    var concurrency: Int = 16

    @OptionGroup var cacheDirectory: CacheDirectoryOption
    @OptionGroup var trust: TrustOptions

    @Flag(name: .customLong("no-progress"), help: "No progress display on stderr.")
    var noProgress = false

    @Flag(help: "Decode every image fully to check it (slower; by default its structure is checked).")
    var decode = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (1...1024).contains(concurrency) else {
            throw ValidationError("--concurrency takes 1-1024 (got \(concurrency))")
        }
        if from != nil, !urls.isEmpty {
            throw ValidationError("give the URLs either as arguments or with --from, not both")
        }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let list: [URL]
        do throws(CLIError) {
            list = urls.isEmpty ? try URLList.read(from: from ?? "-") : urls.map(CLIPipeline.url(from:))
        } catch {
            CLIError.exit(with: error.message)
        }
        // Bulk work: through the lean client (less than half of AsyncHTTPClient's CPU per image).
        let pipeline = CLIPipeline(cache: cacheDirectory, concurrency: concurrency, transport: .http1, trust: trust.certificates.files, timeout: trust.timeout)
        let run = PrefetchRun(pipeline: pipeline, concurrency: concurrency, decode: decode, showsProgress: !noProgress, logger: logger)
        let outcome = try await run.run(list)
        await pipeline.shutdown()
        try run.finish(outcome, of: list)
    }
}
