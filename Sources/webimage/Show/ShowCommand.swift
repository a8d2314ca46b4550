import ArgumentParser
import Foundation
import WebImage

/// `webimage show`: the view-binding logic with a terminal as the view — placeholder, progress
/// indicator, the image (animated), through ``ImageBinding`` exactly as an app's image view would.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Load an image (URL or file) through the cache and draw it in the terminal.",
        discussion: """
            Draws with 24-bit colour half blocks (two pixels a character cell), fitted to the
            terminal. A placeholder is drawn first, then the image, with a fade when it came
            from the network or disk; progress shows on stderr; animations play (Ctrl-C stops).

            Examples:
              webimage show https://example.com/cat.gif
              webimage show photo.jpg --columns 60 --no-cache
            """
    )

    @Argument(help: "An http(s), file: or data: URL, or a file path.")
    var source: String

    @Option(help: "Widest drawing in columns (default: the terminal's width, else 80).")
    var columns: Int?

    @Option(help: "Tallest drawing in rows (default: the terminal's height minus 2, else 24).")
    var rows: Int?

    @Option(help: "Times to play an animation (default: its own loop count; 0 = until Ctrl-C).")
    var loops: Int?

    @OptionGroup var cacheDirectory: CacheDirectoryOption
    @OptionGroup var trust: TrustOptions
    @OptionGroup var offline: OfflineOption

    @Flag(name: .customLong("no-cache"), help: "Load without reading or writing the cache.")
    var noCache = false

    func validate() throws {
        if let columns, columns < 1 { throw ValidationError("--columns must be at least 1") }
        if let rows, rows < 1 { throw ValidationError("--rows must be at least 1") }
        if let loops, loops < 0 { throw ValidationError("--loops must not be negative") }
        if offline.offline, noCache { throw ValidationError("--offline reads only the cache; it cannot go with --no-cache") }
    }

    func run() async throws {
        let size = TerminalSize.current()
        let renderer = TerminalRenderer(columns: columns ?? size?.columns ?? 80, rows: rows ?? max(1, (size?.rows ?? 26) - 2))
        let interactive = isatty(STDERR_FILENO) != 0
        let target = TerminalImageTarget(
            renderer: renderer, loops: loops ?? (isatty(STDOUT_FILENO) != 0 ? nil : 1), transition: .fade,
            indicator: interactive ? TerminalIndicator() : nil)
        let pipeline = CLIPipeline(cache: cacheDirectory, trust: trust.certificates.files, timeout: trust.timeout)
        let binding = ImageBinding(manager: pipeline.manager)
        var context = WebImageContext()
        if noCache { (context.queryCacheType, context.storeCacheType, context.originalStoreCacheType) = (.none, .none, .none) }
        let result: Result<ImageResult, WebImageError> = await withCheckedContinuation { continuation in
            binding.setImage(
                on: target, with: CLIPipeline.url(from: source), placeholder: Self.placeholder,
                options: offline.applied(to: .waitStoreCache), context: context, completed: { continuation.resume(returning: $0) })
        }
        switch result {
        case .success:
            await target.waitForAnimation()
            await pipeline.shutdown()
        case .failure(let error):
            await pipeline.shutdown()
            if let message = offline.message(for: error, source: source) { CLIError.exit(with: message, status: CLIError.notCachedStatus) }
            CLIError.exit(with: "cannot show \(source): \(error)")
        }
    }

    /// A small grey checkerboard, drawn while the image loads.
    static let placeholder: Image = {
        var pixels = [UInt8](repeating: 0, count: 8 * 4 * 4)
        for y in 0..<4 {
            for x in 0..<8 {
                let v: UInt8 = (x + y) % 2 == 0 ? 90 : 120
                let i = (y * 8 + x) * 4
                (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]) = (v, v, v, 255)
            }
        }
        return Image(bitmap: Bitmap(width: 8, height: 4, pixels: pixels))
    }()
}

/// The terminal's size in character cells (`TIOCGWINSZ` on stdout, then `COLUMNS`/`LINES`).
enum TerminalSize {
    static func current() -> (columns: Int, rows: Int)? {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            return (Int(size.ws_col), Int(size.ws_row))
        }
        let env = ProcessInfo.processInfo.environment
        if let columns = env["COLUMNS"].flatMap(Int.init), let rows = env["LINES"].flatMap(Int.init) { return (columns, rows) }
        return nil
    }
}
