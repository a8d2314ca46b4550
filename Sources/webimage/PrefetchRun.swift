import ArgumentParser
import Foundation
import Logging
import WebImage

/// A bulk prefetch as `prefetch` and `collection add` run it: disk-only loads through
/// ``ImagePrefetcher``, the progress display, Ctrl-C as a clean stop, and the closing summary.
struct PrefetchRun {
    let pipeline: CLIPipeline
    /// Downloads in flight.
    let concurrency: Int
    /// A full decode instead of the structure check.
    let decode: Bool
    let showsProgress: Bool
    /// Tries again of a transiently failed URL.
    var retries = 0
    let logger: Logger

    struct Outcome {
        var interrupted: Bool
        var snapshot: PrefetchTally.Snapshot
        var seconds: Double
    }

    /// Prefetches `list`, into `collection` when given (its keys are pinned before the first
    /// request; throws when they cannot be).
    func run(_ list: [URL], into collection: String? = nil) async throws -> Outcome {
        let tally = PrefetchTally(total: list.count, disk: pipeline.cache.diskCache)
        let prefetcher = ImagePrefetcher(manager: pipeline.manager, settings: settings(tally))
        let progress = PrefetchProgress(tally: tally, enabled: showsProgress)
        let display = Task { await progress.run() }
        let work = Task {
            if let collection { _ = try await prefetcher.prefetch(list, into: collection) } else { _ = await prefetcher.prefetch(list) }
        }
        let interrupt = InterruptSignal { work.cancel() }
        let result = await work.result
        interrupt.stop()
        display.cancel()
        await display.value
        try result.get()
        return Outcome(interrupted: interrupt.wasInterrupted, snapshot: tally.snapshot, seconds: tally.elapsedSeconds)
    }

    /// Prints the summary line and maps the outcome to the exit status: 0, 2 when some URLs
    /// failed, 130 when interrupted.
    func finish(_ outcome: Outcome, of list: [URL]) throws {
        let snapshot = outcome.snapshot
        for url in snapshot.failed { logger.info("skipped \(url.absoluteString)") }
        if outcome.interrupted { logger.warning("interrupted: \(list.count - snapshot.done) URLs not fetched") }
        logger.info("\(ByteCount.text(Int(snapshot.bytes))) stored, \(Int(Double(snapshot.done) / max(outcome.seconds, 0.001))) images/s")
        print("finished \(snapshot.succeeded), skipped \(snapshot.failed.count) in \(String(format: "%.1f", outcome.seconds)) s")
        if outcome.interrupted { throw ExitCode(130) }
        if !snapshot.failed.isEmpty { throw ExitCode(2) }
    }

    private func settings(_ tally: PrefetchTally) -> ImagePrefetcher.Settings {
        var settings = ImagePrefetcher.Settings()
        // The downloader's limit bounds the downloads (as curl's --parallel-max); the window holds
        // twice that so checks and disk writes overlap the next downloads.
        settings.maxConcurrentPrefetchCount = concurrency * 2
        settings.retryLimit = retries
        // The process exits when the list is done, so a store must be on disk before its load
        // counts; images are stored to disk only (nothing here reads memory, and without --decode
        // the decoded image is a placeholder). A disk-only prefetch takes an entry already on disk
        // for a stat, without reading or decoding it; a cache with no entry yet (a first run) is not
        // asked at all.
        settings.options = [.lowPriority, .waitStoreCache, .retryFailed]
        settings.context.storeCacheType = .disk
        settings.context.queryCacheType = pipeline.cache.diskCache.mayHoldEntries ? .disk : .none
        if !decode { settings.context.imageCoder = StructureCheckCoder() }
        let logger = self.logger
        settings.observer = { event in
            guard case .didPrefetch(let url, let succeeded, _, _) = event else { return }
            tally.record(url, succeeded: succeeded)
            // With .waitStoreCache the bytes are on disk by now: Tools/harness/crash-consistency holds
            // the CLI to every URL it reports this way.
            if succeeded { logger.debug("stored \(url.absoluteString)") }
        }
        return settings
    }
}
