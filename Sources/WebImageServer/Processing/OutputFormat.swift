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
        let format = Self.negotiated(Self.acceptedTypes(accept), fallback: fallback, animated: source.isAnimated, encodable: encodable)
        // Nothing acceptable (no Accept, or q=0 everywhere): the source's format all the same.
        self.init(format: format, negotiated: accept != nil)
    }

    /// Among AVIF, WebP and `fallback`, in the server's order of preference, the one `accepted`
    /// ranks highest: only a strictly higher q passes one before it.
    private static func negotiated(
        _ accepted: [String: Double], fallback: ImageFormat, animated: Bool, encodable: (ImageFormat) -> Bool
    ) -> ImageFormat {
        var best = (format: fallback, quality: 0.0)
        var candidates: [(format: ImageFormat, quality: Double)] = []
        if !animated, encodable(.avif) { candidates.append((.avif, accepted["image/avif"] ?? 0)) }
        if encodable(.webp) { candidates.append((.webp, accepted["image/webp"] ?? 0)) }
        candidates.append((fallback, quality(of: fallback, in: accepted)))
        for candidate in candidates where candidate.quality > best.quality { best = candidate }
        return best.format
    }

    private init(format: ImageFormat, negotiated: Bool) {
        self.format = format
        self.negotiated = negotiated
    }

    /// The part of `Accept` that can change the format (a result-cache key part): the format it
    /// negotiates for each kind of source (a still JPEG, PNG or GIF, an animation) — never the
    /// header's text, so spellings and q-values that choose alike share one cached variant.
    static func negotiationKey(_ accept: String?, encodable: (ImageFormat) -> Bool) -> String {
        let accepted = acceptedTypes(accept)
        let kinds: [(ImageFormat, Bool)] = [(.jpeg, false), (.png, false), (.gif, false), (.gif, true)]
        return kinds.map { negotiated(accepted, fallback: $0.0, animated: $0.1, encodable: encodable).rawValue }.joined(separator: "/")
    }

    /// Every format a variant may be written as for a client whose `Accept` is `accept`, whatever
    /// the source turns out to be (what the cost plan prices before the decode).
    static func candidates(_ accept: String?, encodable: (ImageFormat) -> Bool) -> [ImageFormat] {
        let accepted = acceptedTypes(accept)
        let kinds: [(ImageFormat, Bool)] = [(.jpeg, false), (.png, false), (.gif, false), (.gif, true)]
        var formats: [ImageFormat] = []
        for (fallback, animated) in kinds {
            let format = negotiated(accepted, fallback: fallback, animated: animated, encodable: encodable)
            if !formats.contains(format) { formats.append(format) }
        }
        return formats
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
