import Foundation
import WebImage

/// The variant's format: the `format()` filter when given; else, among AVIF, WebP and the
/// source's own format (PNG when it has alpha and was not PNG or GIF), the one `Accept` ranks
/// highest by q-value (RFC 9110 §12.4.2; the most specific range names a type's q), the server's
/// preference — AVIF, then WebP, then the source's — only breaking ties. AVIF and WebP count only
/// when named (browsers send `*/*` and still cannot show every format). An animated source stays
/// animated (WebP when accepted, else GIF: WebImage writes AVIF stills only).
struct OutputFormat: Equatable {
    var format: ImageFormat
    /// Whether `Accept` decided it (the response then varies by `Accept`).
    var negotiated: Bool

    init(requested: ImageFormat?, accept: String?, source: Image, encodable: (ImageFormat) -> Bool) {
        if let requested {
            self.init(format: requested, negotiated: false)
            return
        }
        let accepted = Self.acceptedTypes(accept)
        let fallback: ImageFormat
        if source.isAnimated {
            fallback = .gif
        } else {
            switch source.format {
            case .jpeg where !source.hasAlpha: fallback = .jpeg
            case .png, .gif: fallback = source.format
            default: fallback = source.hasAlpha ? .png : .jpeg
            }
        }
        // In the server's order of preference: only a strictly higher q passes one before it.
        var best = (format: fallback, quality: 0.0)
        var candidates: [(format: ImageFormat, quality: Double)] = []
        if !source.isAnimated, encodable(.avif) { candidates.append((.avif, accepted["image/avif"] ?? 0)) }
        if encodable(.webp) { candidates.append((.webp, accepted["image/webp"] ?? 0)) }
        candidates.append((fallback, Self.quality(of: fallback, in: accepted)))
        for candidate in candidates where candidate.quality > best.quality { best = candidate }
        // Nothing acceptable (no Accept, or q=0 everywhere): the source's format all the same.
        self.init(format: best.format, negotiated: accept != nil)
    }

    private init(format: ImageFormat, negotiated: Bool) {
        self.format = format
        self.negotiated = negotiated
    }

    /// The part of `Accept` that can change the format (a result-cache key part): the q-values
    /// of the formats a variant can take, or `plain` when neither AVIF nor WebP is acceptable
    /// (the source's format then, whatever else is said).
    static func negotiationKey(_ accept: String?) -> String {
        let accepted = acceptedTypes(accept)
        let modern = [accepted["image/avif"] ?? 0, accepted["image/webp"] ?? 0]
        guard modern.contains(where: { $0 > 0 }) else { return "plain" }
        let sources = [ImageFormat.jpeg, .png, .gif].map { quality(of: $0, in: accepted) }
        return (modern + sources).map { String($0) }.joined(separator: "/")
    }

    /// The q `Accept` gives a format the client may not name: its own type's, else `image/*`'s,
    /// else `*/*`'s (the most specific range wins), else 0.
    private static func quality(of format: ImageFormat, in accepted: [String: Double]) -> Double {
        accepted[OutputFormat.contentType(of: format)] ?? accepted["image/*"] ?? accepted["*/*"] ?? 0
    }

    /// `image/webp;q=0.9, */*;q=0.1` → type → q. A type named only through a wildcard does not count:
    /// browsers send `*/*` and still cannot show every format.
    static func acceptedTypes(_ header: String?) -> [String: Double] {
        var types: [String: Double] = [:]
        for item in (header ?? "").split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            types[type] = max(types[type] ?? 0, quality)
        }
        return types
    }

    var contentType: String { Self.contentType(of: format) }

    static func contentType(of format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        default: "application/octet-stream"
        }
    }
}
