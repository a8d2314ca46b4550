import Foundation

/// Loads `data:` URLs (RFC 2397): `data:image/png;base64,iVBOR…` and percent-encoded
/// `data:image/svg+xml,%3Csvg…`.
public struct DataURLLoader: AsyncImageLoader {
    public init() {}

    public func canRequestImage(for url: URL) -> Bool {
        url.hasScheme("data")
    }

    public func load(
        _ url: URL, options: DownloaderOptions, context: ImageLoaderContext, progress: ImageLoaderProgressHandler?
    ) async throws(WebImageError) -> ImageLoaderResult {
        let string = url.absoluteString
        return try await LocalImageLoading.load(url, options: options, context: context, progress: progress) {
            Self.payload(of: string).map { .success($0) } ?? .failure(.invalidURL(Self.abbreviated(string)))
        }
    }

    /// The bytes of a `data:` URL, or `nil` when it is malformed.
    static func payload(of string: String) -> Data? {
        guard string.count >= 5, string.prefix(5).lowercased() == "data:",
              let comma = string.firstIndex(of: ",") else { return nil }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let body = string[string.index(after: comma)...]
        guard let bytes = percentDecoded(body) else { return nil }
        if header.split(separator: ";").last?.lowercased() == "base64" {
            return Data(base64Encoded: bytes, options: .ignoreUnknownCharacters)
        }
        return bytes
    }

    /// Percent-decodes bytes (not text: `%FF` is a byte, not invalid UTF-8).
    private static func percentDecoded(_ string: Substring) -> Data? {
        var out = Data()
        out.reserveCapacity(string.utf8.count)
        var iterator = string.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Error messages show the start of a data URL, not megabytes of base64.
    static func abbreviated(_ string: String) -> String {
        string.count > 64 ? String(string.prefix(64)) + "…" : string
    }
}
