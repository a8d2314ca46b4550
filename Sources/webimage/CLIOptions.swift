import ArgumentParser
import Foundation
import Logging

/// `--cache-dir`, shared by the commands that touch the disk cache.
struct CacheDirectoryOption: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp(
        "The disk cache directory (default: $XDG_CACHE_HOME/webimage/default, else ~/.cache/webimage/default).",
        valueName: "DIR"))
    var path: String?

    /// The directory the commands use.
    var directory: URL { CLIPipeline.directory(path) }
}

/// `-v` and `--log-level`: what goes to stderr besides errors.
struct LoggingOptions: ParsableArguments {
    @Flag(name: [.short, .long], help: "Say more on stderr: cache hits, bytes, timings, failed URLs (= --log-level info).")
    var verbose = false

    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "trace, debug, info, notice, warning, error or critical (default: warning; -v: info).", valueName: "LEVEL"))
    var logLevel: Logger.Level?

    var level: Logger.Level { logLevel ?? (verbose ? .info : .warning) }

    /// Routes every swift-log logger in the process (the library's too) to stderr at ``level``;
    /// call once, before building a ``CLIPipeline``, so the library's loggers pick it up.
    func bootstrap(label: String = "webimage") -> Logger {
        let level = self.level
        LoggingSystem.bootstrap { label in
            var handler = CLILogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: label)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
