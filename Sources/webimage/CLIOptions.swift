import ArgumentParser
import WebImage
import Foundation
import Logging

/// `--cache-dir`, shared by the commands that touch the disk cache.
struct CacheDirectoryOption: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp(
        "The disk cache directory (default: $XDG_CACHE_HOME/webimage/default, else ~/.cache/webimage/default).",
        valueName: "DIR"))
    var path: String?

    @Option(name: .customLong("max-cache-size"), help: ArgumentHelp(
        "Most bytes the disk cache keeps, e.g. 500MB or 2GB; 0 = no limit (default: 1GB). A store that goes over removes the oldest entries down to half.",
        valueName: "SIZE"))
    var maxSize: ByteSize?

    /// The directory the commands use.
    var directory: URL { CLIPipeline.directory(path) }

    /// The disk cache's limits: the library keeps SD's default of no size limit, but a command
    /// line tool left to fill a home directory should not, so the CLI has one.
    var diskConfig: DiskCacheConfig { DiskCacheConfig(maxDiskSize: maxSize?.bytes ?? ByteSize.defaultCacheLimit.bytes) }
}

/// `--cacert` and `--timeout`, for the commands that download.
struct TrustOptions: ParsableArguments {
    @Option(name: .customLong("timeout"), help: ArgumentHelp(
        "Seconds a download may go without receiving anything (connecting, waiting for the answer, between parts) before it fails.",
        valueName: "SECONDS"))
    var timeout: Double = DownloaderConfig().downloadTimeout

    @OptionGroup var certificates: CertificateAuthorityOptions

    func validate() throws {
        guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout \(timeout): give a number of seconds above 0") }
    }
}

/// `--cacert`: for the commands that download, and for `serve`'s https sources.
struct CertificateAuthorityOptions: ParsableArguments {
    @Option(name: .customLong("cacert"), help: ArgumentHelp(
        "A PEM file of a certificate authority to trust for https, besides the system's (repeatable): a private CA, or a test one.",
        valueName: "FILE"))
    var files: [String] = []

    func validate() throws {
        for path in files {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ValidationError("--cacert \(path): cannot read the file")
            }
            guard text.contains("-----BEGIN CERTIFICATE-----") else {
                throw ValidationError("--cacert \(path): no PEM certificate in it (expected a -----BEGIN CERTIFICATE----- block)")
            }
        }
    }
}

/// A byte count as people write it: `1500`, `500KB`, `2GB` (powers of 1000, as `du --si`; `KiB`,
/// `MiB`, `GiB` for powers of 1024).
struct ByteSize: ExpressibleByArgument, Sendable {
    let bytes: Int

    static let defaultCacheLimit = ByteSize(bytes: 1_000_000_000)

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let digits = text.prefix { $0.isNumber || $0 == "." }
        let units: [String: Double] = [
            "": 1, "B": 1, "K": 1e3, "KB": 1e3, "M": 1e6, "MB": 1e6, "G": 1e9, "GB": 1e9, "T": 1e12, "TB": 1e12,
            "KIB": 1024, "MIB": 1_048_576, "GIB": 1_073_741_824,
        ]
        guard let value = Double(digits), value >= 0,
              let unit = units[String(text.dropFirst(digits.count)).trimmingCharacters(in: .whitespaces)],
              (value * unit) < Double(Int.max)
        else { return nil }
        bytes = Int(value * unit)
    }
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
