import Foundation

/// Cache keys for transformed and thumbnail images, with SDWebImage's rules
/// (`SDTransformedKeyForKey`, `SDThumbnailedKeyForKey`): the suffix goes before the path extension,
/// so the key still ends in the image's extension and the disk cache keeps naming files by it.
///
/// The manager builds its full cache key with these; `ImageTransformer/cacheKey(for:)` is the same
/// for one transformer.
public enum TransformedCacheKeys {
    /// Separates a key from a transformer key, and transformer keys in a pipeline.
    public static let separator = "-"

    /// `key` with `-<transformerKey>` inserted before the path extension:
    /// - a URL other than `file:` with an extension: the suffix goes into the URL's path and anything
    ///   after the path (query, fragment) stays; characters a URL path cannot hold are
    ///   percent-encoded, so the result is a URL again:
    ///   `https://a/b.png?x=1` + `Resize` → `https://a/b-Resize.png?x=1`;
    /// - a `file:` URL or a key that is not a URL, with an extension: inserted before the key's own
    ///   extension, nothing encoded: `/tmp/a.png` → `/tmp/a-Resize.png`;
    /// - no extension: appended to the whole key: `https://a/b?x=1` → `https://a/b?x=1-Resize`.
    ///
    /// SD builds the path with NSString path methods, which also collapse `//` in `file:///`;
    /// WebImage edits only the end of the key, so the rest is kept byte for byte.
    public static func transformedKey(for key: String, transformerKey: String) -> String {
        // A string Foundation had to escape to parse is not a URL (classic NSURL returns nil for it).
        let url = URL(string: key).flatMap { $0.absoluteString == key ? $0 : nil }
        let ext = url.map(\.pathExtension) ?? (key as NSString).pathExtension
        guard !ext.isEmpty else { return key + separator + transformerKey }
        if let url, !url.isFileURL, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            // Splice into the encoded path (not the decoded `path`, which SD round-trips) so an
            // escaped character in the original, such as %2F, keeps its meaning.
            let path = components.percentEncodedPath
            if let dot = extensionDot(in: path, ext: ext),
               let encodedSuffix = (separator + transformerKey).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) {
                components.percentEncodedPath = String(path[..<dot]) + encodedSuffix + String(path[dot...])
                if let result = components.string { return result }
            }
        }
        if let dot = extensionDot(in: key, ext: ext) {
            return String(key[..<dot]) + separator + transformerKey + String(key[dot...])
        }
        return key + separator + transformerKey
    }

    /// The key of a thumbnail decoded to fit `pixelSize`: SD's `Thumbnail({w,h},preserve)` suffix,
    /// with SD's `%f` numbers, e.g. `https://a/b.png` → `https://a/b-Thumbnail(%7B256.000000,256.000000%7D,1).png`
    /// (braces are not allowed in a URL path, so SD's NSURLComponents escapes them too).
    public static func thumbnailedKey(for key: String, pixelSize: PixelSize, preserveAspectRatio: Bool) -> String {
        let thumbnailKey = "Thumbnail({\(format(Double(pixelSize.width))),\(format(Double(pixelSize.height)))},"
            + "\(preserveAspectRatio ? 1 : 0))"
        return transformedKey(for: key, transformerKey: thumbnailKey)
    }

    /// A number as C's `%f` prints it (six decimals), which SD's transformer keys use.
    public static func format(_ value: Double) -> String {
        String(format: "%f", value)
    }

    /// The index of the `.` that starts extension `ext` at the end of `text`, ignoring a trailing
    /// slash (`b.png/` has extension png, as NSURL says).
    private static func extensionDot(in text: String, ext: String) -> String.Index? {
        var end = text.endIndex
        if text.hasSuffix("/") { end = text.index(before: end) }
        let head = text[..<end]
        guard head.hasSuffix("." + ext) else { return nil }
        return head.index(end, offsetBy: -(ext.count + 1))
    }
}
