import ArgumentParser
import Foundation
import Hummingbird
import Logging
import WebImage
import WebImageRedis
import WebImageServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images by thumbor's URL syntax: fetch a source by URL, resize/crop/convert it, cache and answer.",
        discussion: """
            GET /SIGNATURE/[trim/][AxB:CxD/][fit-in/][-]WxH/[halign/][valign/][smart/][filters:f(a):g(b)/]SOURCE
            (or /unsafe/... with --allow-unsafe). Signatures are thumbor's: HMAC-SHA1 of the path after the \
            signature with a key from WEBIMAGE_SECURITY_KEY (comma-separated keys are all accepted, so a key \
            can rotate), URL-safe base64. GET /healthz answers while the process is up, GET /readyz while it \
            takes work. WEBIMAGE_REDIS_URL (redis://[user:pass@]host:port/db, rediss:// for TLS) adds a \
            shared tier: sources and variants in Redis after the local caches, purges sent to every instance.

            Sources are http(s) only and must resolve to public addresses: loopback, private, link-local \
            (169.254.169.254), CGNAT, multicast and reserved ranges are refused on every redirect hop, and the \
            connection goes to the address that was checked. Ctrl-C or SIGTERM turns /readyz to 503 for \
            --drain-grace seconds while images are still served, then stops taking connections, finishes \
            what is running and exits 0.

            A fleet: --print-nginx-config --upstream HOST:PORT ... prints an nginx site that routes each \
            request by its source (every variant of a source on one instance), retries a dead instance's \
            GETs on the next one, and with --edge-cache DIR caches variants in nginx too.

            Example:
              WEBIMAGE_SECURITY_KEY=secret webimage serve --port 8080
              webimage serve --allow-unsafe &  curl -o t.jpg localhost:8080/unsafe/300x200/example.com/cat.jpg
            """
    )

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 = any free port; the one chosen is printed).") var port = 8080
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("Cache directory (sources and results).", valueName: "DIR"))
    var cacheDirectory: String?
    @Flag(name: .customLong("allow-unsafe"), help: "Accept /unsafe/ paths (no signature).") var allowUnsafe = false
    @Flag(name: .customLong("allow-loopback-sources"), help: "Let sources on 127.0.0.0/8 and ::1 through (tests, local setups).")
    var allowLoopbackSources = false
    @Option(name: .customLong("allow-source-host"), help: ArgumentHelp("Only fetch sources from this host (exact, or *.suffix); repeatable.", valueName: "HOST"))
    var allowedSourceHosts: [String] = []
    @Option(name: .customLong("max-source-bytes"), help: "Largest source body accepted.") var maxSourceBytes: Int64 = 20 * 1024 * 1024
    @Option(name: .customLong("max-source-pixels"), help: "Largest source in pixels, read from its header.") var maxSourcePixels = 50_000_000
    @Option(name: .customLong("max-output-pixels"), help: "Largest variant in pixels (checked before any decode and after every step that changes its size; 413 past it).") var maxOutputPixels = 25_000_000
    @Option(name: .customLong("max-animation-bytes"), help: "RGBA bytes of an animation: its decoded frames (past it they are scaled down) and its variant, frames x output pixels x 4 (past it 413).")
    var maxAnimationBytes = 256 * 1024 * 1024
    // The other commands' size syntax; serve keeps its own default (1 GiB a tier, two tiers).
    @Option(name: .customLong("max-cache-size"), help: ArgumentHelp(
        "Disk budget of each cache tier (sources, results), e.g. 500MB or 2GB; 0 = no limit (default: 1GiB).",
        valueName: "SIZE"))
    var maxCacheSize: ByteSize?
    @Option(name: .customLong("max-redirects"), help: "Redirects followed per source, each hop checked.") var maxRedirects = 3
    @Option(name: .customLong("source-timeout"), help: "Seconds a source download may stay idle.") var sourceTimeout = 10.0
    @Option(name: .customLong("request-deadline"), help: "Seconds a request may take before the answer is 504.") var requestDeadline = 30.0
    @Option(name: .customLong("result-max-age"), help: "Cache-Control max-age of variants, seconds.") var resultMaxAge = 365 * 24 * 3600
    @Option(help: "Variants made at once (more wait; past --queue-limit the answer is 429).") var concurrency = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
    @Option(name: .customLong("queue-limit"), help: "Requests that may wait for a slot.") var queueLimit = 256
    @OptionGroup var certificates: CertificateAuthorityOptions
    @Flag(name: .customLong("access-log"), help: "Log one line per image request (status, bytes, ms, path without its query).")
    var accessLog = false
    @Option(name: .customLong("drain-grace"), help: "Seconds /readyz answers 503 on SIGTERM while images are still served, before the server stops taking work (0 = at once).")
    var drainGrace = 5.0
    @OptionGroup var nginx: NginxConfigOptions

    func run() async throws {
        if let site = try nginx.config(commandLine: Array(CommandLine.arguments.dropFirst())) {
            FileHandle.standardOutput.write(Data(site.text.utf8))
            return
        }
        var configuration = ImageServerConfiguration()
        let environment = ProcessInfo.processInfo.environment
        configuration.securityKeys = (environment["WEBIMAGE_SECURITY_KEY"] ?? "").split(separator: ",").map(String.init)
        configuration.purgeToken = environment["WEBIMAGE_PURGE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = environment["WEBIMAGE_REDIS_URL"], !text.isEmpty {
            do {
                configuration.redisURL = try RedisURL(text)
            } catch {
                throw ValidationError("WEBIMAGE_REDIS_URL: \(error)")
            }
        }
        configuration.allowUnsafe = allowUnsafe
        configuration.allowLoopbackSources = allowLoopbackSources
        configuration.allowedSourceHosts = allowedSourceHosts
        configuration.trustedCertificateFiles = certificates.files
        configuration.maxSourceBytes = maxSourceBytes
        configuration.maxSourcePixels = maxSourcePixels
        configuration.maxOutputPixels = maxOutputPixels
        configuration.maxAnimationBytes = maxAnimationBytes
        configuration.maxCacheBytes = maxCacheSize?.bytes ?? configuration.maxCacheBytes
        configuration.maxRedirects = maxRedirects
        configuration.sourceTimeout = sourceTimeout
        configuration.resultMaxAge = resultMaxAge
        configuration.concurrency = concurrency
        configuration.queueLimit = queueLimit
        configuration.accessLog = accessLog
        configuration.cacheDirectory = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        guard !configuration.securityKeys.isEmpty || allowUnsafe else {
            throw ValidationError("set WEBIMAGE_SECURITY_KEY (thumbor's security key) or pass --allow-unsafe: otherwise every request is refused")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        for (name, value) in [("--max-source-bytes", Int(maxSourceBytes)), ("--max-source-pixels", maxSourcePixels),
                              ("--max-output-pixels", maxOutputPixels), ("--max-animation-bytes", maxAnimationBytes),
                              ("--concurrency", concurrency)] where value <= 0 {
            throw ValidationError("\(name) must be greater than 0")
        }
        guard sourceTimeout > 0, requestDeadline > 0 else { throw ValidationError("--source-timeout and --request-deadline must be greater than 0") }
        // A deadline is what keeps a stuck request from holding its slot: it must be a real one.
        guard requestDeadline < 1e9 else { throw ValidationError("--request-deadline must be a number of seconds (below 1e9)") }
        configuration.requestDeadline = .milliseconds(Int64((requestDeadline * 1000).rounded()))
        guard drainGrace >= 0, drainGrace < 1e6 else { throw ValidationError("--drain-grace must be 0 or more seconds") }
        guard maxRedirects >= 0, resultMaxAge >= 0 else { throw ValidationError("--max-redirects and --result-max-age cannot be negative") }

        var logger = Logger(label: "webimage.serve")
        logger.logLevel = environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .notice
        let server = ImageServer(configuration: configuration, logger: logger)
        let settings = configuration.redactedDescription
        let host = self.host, port = self.port
        let router = Router()
        server.addRoutes(to: router)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "webimage"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                let lines = ["webimage serve: listening on http://\(host):\(bound)"] + settings.map { "  " + $0 }
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            },
            logger: logger)
        let drain = ImageServerDrainService(server: server, grace: .milliseconds(Int64((drainGrace * 1000).rounded())))
        try await drain.run(beside: app, logger: logger)
        await server.shutdown()
    }
}
