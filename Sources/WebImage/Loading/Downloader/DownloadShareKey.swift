import Foundation

/// Which callers may share one download (SD shares by URL alone, see its #3423):
/// the bytes are decoded once, so callers share only when they would decode them the same way
/// and send the same conditional request. A caller with modifiers, a decryptor, cached bytes or a
/// coder without a ``ImageCoder/coderKey`` — code or data the key cannot compare — gets a download
/// of its own.
struct DownloadShareKey: Hashable, Sendable {
    let url: URL
    let decodeOptions: ImageDecodeOptions
    /// The options that change the request or the decode (not the priority ones).
    let options: Int
    let validators: HTTPValidators?
    /// The context's coder, by its ``ImageCoder/coderKey`` (`nil`: the shared coders).
    let coder: String?
    /// Set for callers that cannot share.
    let unique: UUID?
    /// The URL's hash, taken once: a download looks its key up three or four times.
    private let urlHash: Int

    init(url: URL, options: DownloaderOptions, context: ImageLoaderContext) {
        self.url = url
        decodeOptions = LoaderDecoding.decodeOptions(for: url, options: options, context: context)
        self.options = options.subtracting([.lowPriority, .highPriority]).rawValue
        validators = context.cachedValidators
        coder = context.coder?.coderKey
        let shareable = (context.coder == nil || coder != nil) && context.requestModifier == nil && context.redirectHandler == nil && context.responseModifier == nil
            && context.decryptor == nil && context.cachedData == nil && context.cachedImage == nil
        unique = shareable ? nil : UUID()
        urlHash = url.hashValue
    }

    /// The URL alone (and the unique marker): keys of one URL with other settings are rare, and
    /// hashing the decode options too is on every load's path.
    func hash(into hasher: inout Hasher) {
        hasher.combine(urlHash)
        hasher.combine(unique)
    }
}
