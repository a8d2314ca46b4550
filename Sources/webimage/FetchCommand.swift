import ArgumentParser
import Foundation
import Logging
import WebImage

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load one image through the cache (memory, then disk, then the network or file) and describe or save it.",
        discussion: """
            The image goes through ImageManager as an app's would: the first fetch downloads (or reads the \
            file) and stores the original bytes in the disk cache; the next fetch of the same URL is a disk \
            hit, and thumbnails and transforms are derived from that cached original without downloading \
            again. Prints one JSON line, as `webimage decode` does, plus where the image came from:
              {"format":"jpeg","width":W,"height":H,...,"cacheType":"disk"}
            (cacheType: "none" = loaded, "disk" or "memory" = cache hit; width and height as displayed, \
            EXIF orientation applied). With -o the image is also \
            written: the format comes from --format, else the file's extension, else the source's; \
            EXIF orientation is applied to the pixels written.

            --transform steps (comma-separated, or repeat the option; applied in order):
              resize:WxH[:fit|fill|stretch]  crop:X,Y,W,H  flip:h|v|hv  rotate:DEG
              round:R  tint:#RRGGBB[AA]  blur:R

            Exit status: 0 on success, 1 with one "error:" line when the image cannot be loaded or \
            written, 64 for a bad argument.

            Examples:
              webimage fetch https://example.com/cat.jpg -v
              webimage fetch photo.jpg --thumbnail 256x256 -o thumb.webp --quality 80
              webimage fetch a.png --transform resize:99x99:fill,round:9 -o b.png
              webimage fetch a.png --transform crop:0,0,100,100 --transform flip:h -o b.png
              webimage fetch https://x.org/a.png --no-cache   # no cache read or write
            """
    )

    @Argument(help: ArgumentHelp("An http(s)://, file:// or data: URL, or a file path.", valueName: "URL|PATH"))
    var source: String

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Also write the image to this file.", valueName: "OUT"))
    var output: String?

    @Option(help: ArgumentHelp("Decode to fit inside this box (WxH, or W for a square); never upscales.", valueName: "WxH"))
    var thumbnail: String?

    @Option(name: .customLong("transform"), help: ArgumentHelp("Transform steps after decoding (see below).", valueName: "STEPS"))
    var transforms: [String] = []

    @Option(help: ArgumentHelp("Format of the -o file: png, jpeg, webp, gif or avif.", valueName: "FORMAT"))
    var format: OutputFormat?

    @Option(help: ArgumentHelp("JPEG/WebP quality of the -o file, 0-100 (default 90).", valueName: "Q"))
    var quality: Double?

    @OptionGroup var cacheDirectory: CacheDirectoryOption
    @OptionGroup var trust: TrustOptions
    @OptionGroup var offline: OfflineOption

    @Flag(name: .customLong("no-cache"), help: "Neither look in nor store to the memory or disk cache.")
    var noCache = false

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let thumbnail, PixelSize(parsing: thumbnail) == nil {
            throw ValidationError("--thumbnail takes WxH with positive integers, e.g. 256x256 (got '\(thumbnail)')")
        }
        do { _ = try TransformSpec.parse(transforms) } catch { throw ValidationError("--transform: \(error)") }
        if let quality, !(0...100).contains(quality) {
            throw ValidationError("--quality takes 0-100 (got \(quality))")
        }
        if offline.offline, noCache { throw ValidationError("--offline reads only the cache; it cannot go with --no-cache") }
        if output == nil, format != nil || quality != nil {
            throw ValidationError("--format and --quality describe the -o file; add -o OUT")
        }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let pipeline = CLIPipeline(cache: cacheDirectory, trust: trust.certificates.files, timeout: trust.timeout)
        let outcome: Result<Void, CLIError>
        do throws(CLIError) {
            try await fetch(pipeline, logger: logger)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await pipeline.shutdown()
        if case .failure(let error) = outcome { CLIError.exit(with: error.message, status: error.status) }
    }

    private func fetch(_ pipeline: CLIPipeline, logger: Logger) async throws(CLIError) {
        let url = CLIPipeline.url(from: source)
        let transformers = (try? TransformSpec.parse(transforms)) ?? []
        var context = WebImageContext(
            imageTransformer: transformers.isEmpty ? nil : PipelineTransformer(transformers),
            thumbnailPixelSize: thumbnail.flatMap(PixelSize.init(parsing:)))
        if noCache {
            context.queryCacheType = .none
            context.storeCacheType = .none
            context.originalQueryCacheType = .none
            context.originalStoreCacheType = .none
        }
        // The process exits right after: answer only once the bytes are on disk.
        let options = offline.applied(to: [.waitStoreCache, .retryFailed])
        let start = ContinuousClock.now
        let result: ImageResult
        do {
            result = try await pipeline.manager.loadImage(with: url, options: options, context: context)
        } catch {
            if let message = offline.message(for: error, source: source) { throw CLIError(message, status: CLIError.notCachedStatus) }
            throw CLIError("\(source): \(error)\(Self.hint(for: error, url: url))")
        }
        let elapsed = ContinuousClock.now - start
        logger.info("\(Self.describe(result.cacheType)): \(url.absoluteString), \(result.data.map { "\($0.count) bytes" } ?? "bytes n/a"), \(Self.milliseconds(elapsed)) ms")
        if !noCache, let key = pipeline.manager.cacheKey(for: url, context: context) {
            logger.debug("cache key \(key) -> \(pipeline.cache.cachePath(forKey: key))")
        }
        if let output {
            let target = (format ?? OutputFormat(pathExtension: output))?.imageFormat
                ?? (OutputFormat(rawValue: result.image.format.rawValue)?.imageFormat ?? .png)
            let derived = context.imageTransformer != nil || context.thumbnailPixelSize != nil
            let data: Data
            do {
                data = try ImageOutput.bytes(for: result, format: target, quality: quality, derived: derived)
            } catch {
                throw CLIError("cannot encode \(target.rawValue) for \(output): \(error)")
            }
            try ImageOutput.write(data, to: output)
            logger.info("wrote \(output): \(target.rawValue), \(data.count) bytes")
        }
        let image = result.image
        // As displayed: a cached thumbnail is stored upright, so stored sizes would differ between a
        // first fetch and the disk hit after it.
        let swaps = image.orientation.swapsDimensions
        let summary = DecodeSummary(
            format: image.format.rawValue, width: swaps ? image.height : image.width,
            height: swaps ? image.width : image.height, frames: image.frames.count,
            loopCount: image.loopCount, hasAlpha: image.hasAlpha)
        print(summary.jsonLine().dropLast() + ",\"cacheType\":\"\(Self.name(result.cacheType))\"}")
    }

    static func name(_ type: ImageCacheType) -> String {
        switch type {
        case .memory: "memory"
        case .disk: "disk"
        case .all: "all"
        default: "none"
        }
    }

    static func describe(_ type: ImageCacheType) -> String {
        switch type {
        case .memory: "memory cache hit"
        case .disk: "disk cache hit"
        default: "cache miss, loaded"
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f", ms)
    }

    /// What to try next, for the failures a person can do something about.
    static func hint(for error: WebImageError, url: URL) -> String {
        switch error {
        case .invalidDownloadStatusCode(404): " (check the URL)"
        case .badImageData: " (the bytes are not an image WebImage decodes: JPEG, PNG, GIF, WebP, AVIF, JPEG XL or HEIF)"
        case .transport where url.isFileURL: " (check the path)"
        case .transport: " (is the server reachable? try: curl -I \(url.absoluteString))"
        case .invalidURL: " (give an http(s):// URL or an existing file path)"
        default: ""
        }
    }
}
