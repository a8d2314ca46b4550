import Foundation
import WebImage
import WebImageRedis

/// Everything `webimage serve` can be told, with defaults safe for the internet: signed URLs only,
/// public sources only, every size and time bounded.
public struct ImageServerConfiguration: Sendable {
    /// thumbor security keys, preferred first; a URL signed with any of them is accepted (rotation).
    public var securityKeys: [String] = []
    /// Accepts `/unsafe/` paths (thumbor's `ALLOW_UNSAFE_URL`). Off by default.
    public var allowUnsafe = false
    /// Lets sources on 127.0.0.0/8 and ::1 through (tests, local setups). Off by default.
    public var allowLoopbackSources = false
    /// Source hosts allowed (`host` or `*.suffix`); empty = any public host.
    public var allowedSourceHosts: [String] = []
    /// PEM files of certificate authorities trusted for https sources besides the system's (a
    /// private CA). Empty by default.
    public var trustedCertificateFiles: [String] = []
    /// Bearer token for `DELETE /purge`; nil = purge disabled.
    public var purgeToken: String?
    /// Largest source body accepted. 20 MB.
    public var maxSourceBytes: Int64 = 20 * 1024 * 1024
    /// Largest source, in pixels, read from its header before decoding. 50 MP.
    public var maxSourcePixels = 50_000_000
    /// Largest variant, in pixels. 25 MP.
    public var maxOutputPixels = 25_000_000
    /// RGBA bytes all frames of an animated source may decode to; past it the frames are scaled
    /// down, and compositing more than 8 budgets' worth of canvas is refused (413). An animated
    /// variant's frames × output pixels × 4 must fit too (413 before any decode). 256 MB.
    public var maxAnimationBytes = 256 * 1024 * 1024
    /// Redirects followed per source, each hop checked. 3.
    public var maxRedirects = 3
    /// Idle timeout of a source download, seconds. 10.
    public var sourceTimeout: TimeInterval = 10
    /// The most a request may take; past it the answer is 504. 30 s.
    public var requestDeadline: Duration = .seconds(30)
    /// The most a source download may take in all, seconds: an origin that drips a byte before
    /// each idle timeout still ends. 20.
    public var sourceDeadline: TimeInterval = 20
    /// Planned bytes all variants being made may hold at once; a request waits for its share
    /// (`CostPlan`). Default: half the process's memory limit (its cgroup's `memory.max`, else RAM).
    public var maxMemory = MemoryLimit.defaultWorkBudget
    /// Planned bytes one variant may hold at its peak; a plan over it is a 413 before any work.
    /// Default: half of ``maxMemory``, at most 1 GiB.
    public var maxRequestMemory = MemoryLimit.defaultRequestCap(workBudget: MemoryLimit.defaultWorkBudget)
    /// Pixel passes one variant's steps may plan (each step's passes over the pixels it makes,
    /// summed: a 25×25 convolution is 625 a pixel); a plan over it is a 413 before any work, so no
    /// in-limit request holds a slot for long. 10 billion.
    public var maxRequestWork = 10_000_000_000
    /// Scans of a progressive JPEG decoded at most (each is another pass over the image); past
    /// it the answer is 413.
    public var maxProgressiveScans = 100
    /// Variants made at once; more wait in the queue.
    public var concurrency = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
    /// Requests that may wait for a slot; past it the answer is 429 with `Retry-After`.
    public var queueLimit = 256
    /// `Cache-Control: public, max-age` of variants (`max_age(n)` in a URL overrides it). One year.
    public var resultMaxAge = 365 * 24 * 3600
    /// How variants are written when the URL does not say: qualities, progressive JPEG, PNG to JPEG.
    public var output = OutputDefaults()
    /// `smart`'s detectors: where the Haar cascades are (Debian's opencv-data by default; without
    /// them faces are skipped and features still found), the copy's size, the time budget.
    public var detection = SmartDetector.Configuration()
    /// Where the source and result caches live; nil = `$XDG_CACHE_HOME/webimage/server`.
    public var cacheDirectory: URL?
    /// Disk budget of each cache (sources, results). 1 GB.
    public var maxCacheBytes = 1024 * 1024 * 1024
    /// Memory budget of hot variants. 64 MB.
    public var memoryCacheBytes = 64 * 1024 * 1024

    /// One log line per image request (status, bytes, milliseconds, the path without its query —
    /// a source's query may carry a token). Off by default.
    public var accessLog = false
    /// A fleet's shared Redis tier for sources and variants, and its purge channel
    /// (`WEBIMAGE_REDIS_URL`); nil = this machine's caches only.
    public var redisURL: RedisURL?
    /// The most one call to the shared tier may take before it counts as a miss (and towards the
    /// circuit breaker). 250 ms: a Redis hit replaces an origin fetch, it must not cost more.
    public var redisCallTimeout: Duration = .milliseconds(250)

    // Client connections (``ConnectionLimits``; `HTTPServerBuilder.guardedHTTP1(connectionLimits)`).
    /// Time a request head may take, from the connection's opening or the next request's first
    /// byte; past it the connection is closed (slowloris). 10 s.
    public var headerTimeout: Duration = .seconds(10)
    /// Time a kept-alive connection may wait for its next request. 60 s: above nginx's upstream
    /// `keepalive_timeout` in the generated site, so nginx drops an idle connection first.
    public var idleTimeout: Duration = .seconds(60)
    /// Bytes of a request head, request line included; past it 431 and a close. 16 KiB: an 8 KiB
    /// path (``ImageServer/maxPathBytes``) and 8 KiB of fields.
    public var maxHeaderBytes = 16 * 1024
    /// Client connections open at once per listener; past it 503 and a close at once. 1024.
    public var maxConnections = 1024

    public init() {}

    /// The settings as lines for the start-up log, secrets redacted.
    public var redactedDescription: [String] {
        [
            "security keys: \(securityKeys.isEmpty ? "none" : "\(securityKeys.count) (redacted)")",
            "unsafe URLs: \(allowUnsafe ? "allowed" : "refused")",
            "loopback sources: \(allowLoopbackSources ? "allowed" : "refused")",
            "source hosts: \(allowedSourceHosts.isEmpty ? "any public host" : allowedSourceHosts.joined(separator: ", "))",
            "https sources: the system's CAs\(trustedCertificateFiles.isEmpty ? "" : " and " + trustedCertificateFiles.joined(separator: ", "))",
            "purge: \(purgeToken == nil ? "disabled" : "enabled (token redacted)")",
            "limits: source \(maxSourceBytes) bytes, \(maxSourcePixels) px; output \(maxOutputPixels) px; animation \(maxAnimationBytes) bytes; \(maxRedirects) redirects; source timeout \(sourceTimeout) s; deadline \(requestDeadline)",
            "work: \(concurrency) at once, \(queueLimit) waiting at most; access log \(accessLog ? "on" : "off")",
            "memory: \(maxMemory) bytes planned at once, \(maxRequestMemory) per request; source deadline \(sourceDeadline) s; \(maxProgressiveScans) JPEG scans",
            "output: JPEG quality \(output.jpegQuality)\(output.progressiveJPEG ? " progressive" : ""), WebP \(output.quality(for: .webp)), AVIF \(output.quality(for: .avif))\(output.autoPNGToJPG ? "; opaque PNG as JPEG" : "")",
            "cache: \(cacheDirectory?.path ?? "default directory"), \(maxCacheBytes) bytes per tier on disk, \(memoryCacheBytes) in memory; variants max-age \(resultMaxAge) s",
            "shared tier: \(redisURL.map { "Redis at \($0)" } ?? "none")",
            "connections: \(maxConnections) at once; head within \(headerTimeout), at most \(maxHeaderBytes) bytes; idle \(idleTimeout)",
        ]
    }
}
