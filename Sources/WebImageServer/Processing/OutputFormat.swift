import Foundation
import WebImage

/// The variant's format: the `format()` filter when given, else what the client's `Accept` takes
/// (q-values honoured) — AVIF, then WebP — else the source's own (PNG when it has alpha and was
/// not PNG or GIF); an animated source stays animated (WebP when accepted, else GIF: WebImage
/// writes AVIF stills only).
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
        func takes(_ type: String) -> Bool { (accepted[type] ?? 0) > 0 }
        if takes("image/avif"), !source.isAnimated, encodable(.avif) {
            self.init(format: .avif, negotiated: true)
            return
        }
        if takes("image/webp"), encodable(.webp) {
            self.init(format: .webp, negotiated: true)
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
        self.init(format: fallback, negotiated: accept != nil)
    }

    private init(format: ImageFormat, negotiated: Bool) {
        self.format = format
        self.negotiated = negotiated
    }

    /// The part of `Accept` that can change the format (a result-cache key part).
    static func negotiationKey(_ accept: String?) -> String {
        let accepted = acceptedTypes(accept)
        let modern = ["image/avif", "image/webp"].filter { (accepted[$0] ?? 0) > 0 }
        return modern.isEmpty ? "plain" : modern.joined(separator: "+")
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

    var contentType: String {
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
