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
            takes work. GET /metrics (Prometheus text) and DELETE /purge?url=SOURCE (with \
            WEBIMAGE_PURGE_TOKEN as a bearer token) answer on the admin listener only: --admin-host \
            (127.0.0.1) and --admin-port (the port after --port; off = no admin listener). WEBIMAGE_REDIS_URL (redis://[user:pass@]host:port/db, rediss:// for TLS) adds a \
            shared tier: sources and variants in Redis after the local caches, purges sent to every instance.

            Sources are http(s) only and must resolve to public addresses: loopback, private, link-local \
            (169.254.169.254), CGNAT, multicast and reserved ranges are refused on every redirect hop, and the \
            connection goes to the address that was checked. Ctrl-C or SIGTERM turns /readyz to 503 for \
            --drain-grace seconds while images are still served, then stops taking connections, finishes \
            what is running and exits 0.

            Connections: a request head must be complete within --header-timeout seconds (from the \
            connection's opening, or the next request's first byte) and fit in --max-header-bytes (431 \
            past it); a kept-alive connection idles --idle-timeout seconds at most; past \
            --max-connections open at once a new one gets 503 and a close.

            A fleet: --print-nginx-config --upstream HOST:PORT ... prints an nginx site that routes each \
            request by its source (every variant of a source on one instance), retries a GET once on the \
            next instance when one is down, serves images and health only (never /metrics or /purge), \
            and with --edge-cache DIR caches variants in nginx too.

            Example:
              WEBIMAGE_SECURITY_KEY=secret webimage serve --port 8080
              webimage serve --allow-unsafe &  curl -o t.jpg localhost:8080/unsafe/300x200/example.com/cat.jpg

            Filters (filters:name(args):…; --list-filters says what each does; any other name is ignored \
            with a log line, as thumbor does):

            """ + FilterTable.helpText
    )

    @Flag(name: .customLong("list-filters"), help: "Print the filter table (Markdown: every filter, thumbor 7.8's included, and what it does) and exit.")
    var listFilters = false

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
    @Option(name: .customLong("source-deadline"), help: "Seconds a whole source download may take (a source that drips bytes still ends).")
    var sourceDeadline = 20.0
    @Option(name: .customLong("max-memory"), help: ArgumentHelp(
        "Memory the variants being made may plan to hold at once, e.g. 1GiB; a request waits for its share (default: half the cgroup's memory.max, else of RAM).",
        valueName: "SIZE"))
    var maxMemory: ByteSize?
    @Option(name: .customLong("max-request-memory"), help: ArgumentHelp(
        "Memory one variant may plan to hold at its peak (decode, filters, encode); past it 413 before any work (default: half of --max-memory, at most 1GiB).",
        valueName: "SIZE"))
    var maxRequestMemory: ByteSize?
    @Option(name: .customLong("cascades"), help: ArgumentHelp(
        "Folder of OpenCV's Haar cascades for smart crops (faces; without them only features are found).", valueName: "DIR"))
    var cascadeDirectory = SmartDetector.Configuration().cascadeDirectory.path
    @Option(name: .customLong("max-request-work"), help: "Pixel passes one variant's filters may plan (each step's passes over the pixels it makes, summed; a 25x25 convolution is 625 a pixel); past it 413 before any work.")
    var maxRequestWork = 10_000_000_000
    @Option(name: .customLong("max-progressive-scans"), help: "Scans of a progressive JPEG decoded at most; past it 413.")
    var maxProgressiveScans = 100
    @Option(name: .customLong("request-deadline"), help: "Seconds a request may take before the answer is 504.") var requestDeadline = 30.0
    @Option(name: .customLong("result-max-age"), help: "Cache-Control max-age of variants, seconds.") var resultMaxAge = 365 * 24 * 3600
    @Option(name: .customLong("quality-jpeg"), help: "JPEG quality when the URL has no quality() (thumbor's QUALITY).")
    var jpegQuality = 80
    @Option(name: .customLong("quality-webp"), help: "WebP quality when the URL has no quality() (default: --quality-jpeg, as thumbor's WEBP_QUALITY).")
    var webpQuality: Int?
    @Option(name: .customLong("quality-avif"), help: "AVIF quality when the URL has no quality() (default: --quality-jpeg, as thumbor's AVIF_QUALITY).")
    var avifQuality: Int?
    @Flag(name: .customLong("no-progressive"), help: "Write baseline JPEG (progressive is the default, as thumbor's PROGRESSIVE_JPEG).")
    var noProgressive = false
    @Flag(name: .customLong("auto-png-to-jpg"), help: "Write a PNG variant without transparency as JPEG (thumbor's AUTO_PNG_TO_JPG; autojpg() in a URL toggles it).")
    var autoPNGToJPG = false
    @Option(help: "Variants made at once (more wait; past --queue-limit the answer is 429).") var concurrency = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
    @Option(name: .customLong("queue-limit"), help: "Requests that may wait for a slot.") var queueLimit = 256
    @OptionGroup var certificates: CertificateAuthorityOptions
    @Flag(name: .customLong("access-log"), help: "Log one line per image request (status, bytes, ms, path without its query).")
    var accessLog = false
    @Option(name: .customLong("header-timeout"), help: "Seconds a request head may take (from the connection's opening or the request's first byte); then the connection is closed.")
    var headerTimeout = 10.0
    @Option(name: .customLong("idle-timeout"), help: "Seconds a kept-alive connection may wait for its next request.")
    var idleTimeout = 60.0
    @Option(name: .customLong("max-header-bytes"), help: "Bytes of a request head, request line included (431 past it).")
    var maxHeaderBytes = 16 * 1024
    @Option(name: .customLong("max-connections"), help: "Client connections open at once; past it a new one gets 503 and a close.")
    var maxConnections = 1024
    @Option(name: .customLong("admin-host"), help: "Address of the admin listener (GET /metrics, DELETE /purge).")
    var adminHost = "127.0.0.1"
    @Option(name: .customLong("admin-port"), help: ArgumentHelp(
        "Port of the admin listener; off = none (no /metrics, no purge). Default: --port + 1 (any free port with --port 0).",
        valueName: "PORT|off"))
    var adminPort: String?
    @Option(name: .customLong("drain-grace"), help: "Seconds /readyz answers 503 on SIGTERM while images are still served, before the server stops taking work (0 = at once).")
    var drainGrace = 5.0
    @OptionGroup var nginx: NginxConfigOptions

    func run() async throws {
        if listFilters {
            print(FilterTable.markdownTable)
            return
        }
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
        configuration.sourceDeadline = sourceDeadline
        if let maxMemory { configuration.maxMemory = maxMemory.bytes }
        configuration.maxRequestMemory = maxRequestMemory?.bytes
            ?? (maxMemory.map { min($0.bytes / 2, 1 << 30) } ?? configuration.maxRequestMemory)
        configuration.maxRequestWork = maxRequestWork
        configuration.detection.cascadeDirectory = URL(fileURLWithPath: cascadeDirectory, isDirectory: true)
        configuration.maxProgressiveScans = maxProgressiveScans
        configuration.resultMaxAge = resultMaxAge
        configuration.concurrency = concurrency
        configuration.queueLimit = queueLimit
        configuration.accessLog = accessLog
        configuration.cacheDirectory = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        configuration.output.jpegQuality = jpegQuality
        configuration.output.webpQuality = webpQuality
        configuration.output.avifQuality = avifQuality
        configuration.output.progressiveJPEG = !noProgressive
        configuration.output.autoPNGToJPG = autoPNGToJPG
        guard !configuration.securityKeys.isEmpty || allowUnsafe else {
            throw ValidationError("set WEBIMAGE_SECURITY_KEY (thumbor's security key) or pass --allow-unsafe: otherwise every request is refused")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        guard drainGrace >= 0, drainGrace < 1e6 else { throw ValidationError("--drain-grace must be 0 or more seconds") }
        configuration.requestDeadline = try Self.duration(requestDeadline, flag: "--request-deadline")
        configuration.headerTimeout = try Self.duration(headerTimeout, flag: "--header-timeout")
        configuration.idleTimeout = try Self.duration(idleTimeout, flag: "--idle-timeout")
        configuration.maxHeaderBytes = maxHeaderBytes
        configuration.maxConnections = maxConnections
        // The library's rules, shared with every embedding application; the error names the flag.
        do {
            configuration = try configuration.validated()
        } catch {
            throw ValidationError("\(Self.flag(for: error.setting)) \(error.requirement)")
        }
        let admin = try adminListener()

        MallocTuning.mapAllocations(from: 1 << 20)
        var logger = Logger(label: "webimage.serve")
        logger.logLevel = environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .notice
        let server = ImageServer(configuration: configuration, logger: logger)
        let settings = configuration.redactedDescription
        let host = self.host, port = self.port
        let router = Router()
        server.addRoutes(to: router)
        var applications: [Application<RouterResponder<BasicRequestContext>>] = []
        // The banner waits for the admin listener's port (it may be any free one) to print it too.
        let (adminBound, adminBinding) = AsyncStream.makeStream(of: Int.self)
        if let admin {
            let adminRouter = Router()
            server.addAdminRoutes(to: adminRouter)
            var limits = configuration.connectionLimits
            limits.maxConnections = min(limits.maxConnections, 64)  // a scraper and an operator, not the public
            applications.append(Application(
                router: adminRouter, server: .guardedHTTP1(limits),
                configuration: ApplicationConfiguration(address: .hostname(admin.host, port: admin.port), serverName: "webimage"),
                onServerRunning: { channel in
                    server.serving(on: channel.localAddress)
                    adminBinding.yield(channel.localAddress?.port ?? admin.port)
                },
                logger: logger))
        } else {
            adminBinding.finish()
        }
        applications.append(Application(
            router: router, server: .guardedHTTP1(configuration.connectionLimits),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "webimage"),
            onServerRunning: { channel in
                // Sources on this address and port are the server itself: refused.
                server.serving(on: channel.localAddress)
                let bound = channel.localAddress?.port ?? port
                var adminLine = "admin (GET /metrics, DELETE /purge): off"
                if let admin, let adminPort = await adminBound.first(where: { _ in true }) {
                    adminLine = "admin (GET /metrics, DELETE /purge): http://\(admin.host):\(adminPort)"
                }
                let lines = ["webimage serve: listening on http://\(host):\(bound)", adminLine] + settings.map { "  " + $0 }
                FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            },
            logger: logger))
        let drain = ImageServerDrainService(server: server, grace: .milliseconds(Int64((drainGrace * 1000).rounded())))
        try await drain.run(beside: applications, logger: logger)
        await server.shutdown()
    }

    /// `seconds` as a duration; a number no deadline can be (infinite, past 1e9 s) is refused here,
    /// before it is converted, naming `flag`.
    private static func duration(_ seconds: Double, flag: String) throws -> Duration {
        guard seconds > 0, seconds < 1e9 else { throw ValidationError("\(flag) must be a number of seconds greater than 0 (below 1e9)") }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The flag that sets an ``ImageServerConfiguration`` property: `maxOutputPixels` → `--max-output-pixels`.
    static func flag(for setting: String) -> String {
        let named = ["securityKeys": "WEBIMAGE_SECURITY_KEY", "maxCacheBytes": "--max-cache-size", "output.jpegQuality": "--quality-jpeg",
                     "output.webpQuality": "--quality-webp", "output.avifQuality": "--quality-avif", "redisCallTimeout": "WEBIMAGE_REDIS_URL's call timeout"]
        if let name = named[setting] { return name }
        return "--" + setting.reduce(into: "") { text, character in
            if character.isUppercase { text += "-" + character.lowercased() } else { text.append(character) }
        }
    }

    /// Where the admin routes listen: `--admin-host`, and `--admin-port` or the port after `--port`
    /// (any free one with `--port 0`); nil with `--admin-port off`.
    private func adminListener() throws -> (host: String, port: Int)? {
        switch adminPort {
        case "off":
            return nil
        case nil:
            guard port < 65535 else { throw ValidationError("--port 65535 leaves no port after it for the admin listener: pass --admin-port") }
            return (adminHost, port == 0 ? 0 : port + 1)
        case let text?:
            guard let number = Int(text), (0...65535).contains(number) else { throw ValidationError("--admin-port must be 0–65535 or off") }
            guard number == 0 || number != port else { throw ValidationError("--admin-port must differ from --port") }
            return (adminHost, number)
        }
    }
}
