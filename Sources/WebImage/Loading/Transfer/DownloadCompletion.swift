import Foundation

/// The last step of a download, on ``ImageWorkQueue/decoding`` (or, when ``isQuick(_:context:decryptor:)``, where the response ended): `304` handling, the
/// decryptor, the empty-body check and the decode (SD's `URLSession:task:didCompleteWithError:`).
enum DownloadCompletion {
    /// Whether ``result(of:url:options:context:decryptor:metrics:)`` is quick enough for an event loop: a new body,
    /// no decryptor (app code), and a coder that checks it quickly (``QuickDecoding``). `decryptor`
    /// is the downloader's, which the context's replaces.
    static func isQuick(_ output: TransferOutput, context: ImageLoaderContext, decryptor: (any DownloadDecrypting)?) -> Bool {
        guard output.response.statusCode != 304, context.decryptor ?? decryptor == nil,
              let coder = LoaderDecoding.coder(for: context) as? any QuickDecoding
        else { return false }
        return coder.decodesQuickly(output.data)
    }

    static func result(
        of outcome: Result<TransferOutput, WebImageError>, url: URL, options: DownloaderOptions, context: ImageLoaderContext,
        decryptor: (any DownloadDecrypting)?, metrics: DownloadMetrics?
    ) -> Result<ImageLoaderResult, WebImageError> {
        let output: TransferOutput
        switch outcome {
        case .failure(let error): return .failure(error)
        case .success(let value): output = value
        }
        if output.response.statusCode == 304 {
            if let image = context.cachedImage {
                return .success(ImageLoaderResult(
                    image: image, data: context.cachedData ?? Data(), response: output.response, metrics: metrics,
                    isNotModified: true))
            }
            guard let cached = context.cachedData else { return .failure(.cacheNotModified) }
            return LoaderDecoding.decode(cached, url: url, options: options, context: context).map {
                ImageLoaderResult(image: $0, data: cached, response: output.response, metrics: metrics, isNotModified: true)
            }
        }
        var data = output.data
        if let decryptor = context.decryptor ?? decryptor {
            guard let decrypted = decryptor.decryptedData(data, response: output.response) else {
                return .failure(.badImageData(reason: "the decryptor returned nil"))
            }
            data = decrypted
        }
        guard !data.isEmpty else { return .failure(.badImageData(reason: "the response body is empty")) }
        return LoaderDecoding.decode(data, url: url, options: options, context: context).map {
            ImageLoaderResult(image: $0, data: data, response: output.response, metrics: metrics)
        }
    }
}
