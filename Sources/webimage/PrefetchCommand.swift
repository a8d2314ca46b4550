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
        let tally = PrefetchTally(total: list.count, disk: pipeline.cache.diskCache)
        let (interrupted, snapshot) = await prefetch(list, pipeline: pipeline, tally: tally, logger: logger)
        await pipeline.shutdown()

        let seconds = tally.elapsedSeconds
        for url in snapshot.failed {
            logger.info("skipped \(url.absoluteString)")
        }
        if interrupted {
            logger.warning("interrupted: \(list.count - snapshot.done) URLs not fetched")
        }
        logger.info("\(ByteCount.text(Int(snapshot.bytes))) stored, \(Int(Double(snapshot.done) / max(seconds, 0.001))) images/s")
        print("finished \(snapshot.succeeded), skipped \(snapshot.failed.count) in \(String(format: "%.1f", seconds)) s")
        if interrupted { throw ExitCode(130) }
        if !snapshot.failed.isEmpty { throw ExitCode(2) }
    }

    /// Runs the prefetch with the progress display and Ctrl-C handling; answers whether it was
    /// interrupted and the final counts.
    private func prefetch(_ list: [URL], pipeline: CLIPipeline, tally: PrefetchTally, logger: Logger) async -> (Bool, PrefetchTally.Snapshot) {
        var settings = ImagePrefetcher.Settings()
        // --concurrency bounds the downloads (the downloader's limit, as curl's --parallel-max);
        // the window holds twice that so checks and disk writes overlap the next downloads.
        settings.maxConcurrentPrefetchCount = concurrency * 2
        // The process exits when the list is done, so a store must be on disk before its load
        // counts; images are stored to disk only (nothing here reads memory, and without --decode
        // the decoded image is a placeholder). A disk-only prefetch takes an entry already on disk
        // for a stat, without reading or decoding it; a cache with no entry yet (a first run) is not
        // asked at all.
        settings.options = [.lowPriority, .waitStoreCache, .retryFailed]
        settings.context.storeCacheType = .disk
        settings.context.queryCacheType = pipeline.cache.diskCache.mayHoldEntries ? .disk : .none
        if !decode { settings.context.imageCoder = StructureCheckCoder() }
        settings.observer = { event in
            guard case .didPrefetch(let url, let succeeded, _, _) = event else { return }
            tally.record(url, succeeded: succeeded)
            // With .waitStoreCache the bytes are on disk by now: scripts/crash-consistency holds
            // the CLI to every URL it reports this way.
            if succeeded { logger.debug("stored \(url.absoluteString)") }
        }
        let prefetcher = ImagePrefetcher(manager: pipeline.manager, settings: settings)

        let progress = PrefetchProgress(tally: tally, enabled: !noProgress)
        let display = Task { await progress.run() }
        let work = Task { _ = await prefetcher.prefetch(list) }
        let interrupt = InterruptSignal { work.cancel() }
        await work.value
        interrupt.stop()
        display.cancel()
        await display.value
        return (interrupt.wasInterrupted, tally.snapshot)
    }
}
