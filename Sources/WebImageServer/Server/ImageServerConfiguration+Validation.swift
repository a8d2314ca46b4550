import Foundation

extension ImageServerConfiguration {
    /// A setting that cannot work, named by its property (`maxOutputPixels`), with what it must be.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        /// The property's name, as in ``ImageServerConfiguration``.
        public let setting: String
        /// What it must be: "must be greater than 0".
        public let requirement: String

        public var description: String { "\(setting) \(requirement)" }
    }

    /// This configuration when every setting can work; else the first one that cannot. `webimage serve`
    /// and an embedding application check the same rules before serving.
    public func validated() throws(Invalid) -> Self {
        func require(_ holds: Bool, _ setting: String, _ requirement: String) throws(Invalid) {
            if !holds { throw Invalid(setting: setting, requirement: requirement) }
        }
        try require(!securityKeys.isEmpty || allowUnsafe, "securityKeys",
                    "must hold a key unless unsafe URLs are allowed: otherwise every request is refused")
        try require(securityKeys.allSatisfy { !$0.isEmpty }, "securityKeys", "must not hold an empty key")
        for (name, value) in [("maxSourceBytes", Int(clamping: maxSourceBytes)), ("maxSourcePixels", maxSourcePixels),
                              ("maxOutputPixels", maxOutputPixels), ("maxAnimationBytes", maxAnimationBytes),
                              ("concurrency", concurrency), ("maxProgressiveScans", maxProgressiveScans),
                              ("maxMemory", maxMemory), ("maxRequestMemory", maxRequestMemory), ("maxRequestWork", maxRequestWork),
                              ("maxConnections", maxConnections)] {
            try require(value > 0, name, "must be greater than 0")
        }
        for (name, value) in [("queueLimit", queueLimit), ("maxRedirects", maxRedirects), ("resultMaxAge", resultMaxAge),
                              ("maxCacheBytes", maxCacheBytes), ("memoryCacheBytes", memoryCacheBytes)] {
            try require(value >= 0, name, "cannot be negative")
        }
        for (name, seconds) in [("sourceTimeout", sourceTimeout), ("sourceDeadline", sourceDeadline)] {
            try require(seconds > 0 && seconds < 1e9, name, "must be a number of seconds greater than 0 (below 1e9)")
        }
        // A deadline is what keeps a stuck request from holding its slot: it must be a real one.
        for (name, duration) in [("requestDeadline", requestDeadline), ("headerTimeout", headerTimeout),
                                 ("idleTimeout", idleTimeout), ("redisCallTimeout", redisCallTimeout)] {
            try require(duration > .zero && duration < .seconds(1_000_000_000), name,
                        "must be a number of seconds greater than 0 (below 1e9)")
        }
        // Below a request line with a full-length path the limit would refuse valid image requests.
        try require(maxHeaderBytes >= ImageServer.maxPathBytes + 1024, "maxHeaderBytes",
                    "must be at least \(ImageServer.maxPathBytes + 1024) (a path may take \(ImageServer.maxPathBytes))")
        for (name, quality) in [("output.jpegQuality", output.jpegQuality), ("output.webpQuality", output.webpQuality ?? 80),
                                ("output.avifQuality", output.avifQuality ?? 80)] {
            try require((0...100).contains(quality), name, "must be 0–100")
        }
        return self
    }
}
