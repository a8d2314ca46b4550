import AsyncHTTPClient
import Foundation
import WebImage

/// The README's library example, compiled with the tests so it cannot drift from the API. Never
/// called: it talks to example.com.
@available(*, deprecated, message: "compiled, never run")
func readmeLibraryExample(moreURLs: [URL], myHTTPClient: HTTPClient) async throws {
    let url = URL(string: "https://example.com/cat.jpg")!
    let result = try await ImageManager.shared.loadImage(
        with: url, context: WebImageContext(thumbnailPixelSize: PixelSize(width: 256, height: 256)))
    print(result.image.pixelSize, result.cacheType)
    let rounded = try await ImageManager.shared.loadImage(
        with: url, context: WebImageContext(imageTransformer: RoundCornerTransformer(cornerRadius: 24)))
    let webp = try ImageCodersManager.shared.encode(rounded.image, as: .webp, options: ImageEncodeOptions(quality: 0.8))
    let (finished, skipped) = await ImagePrefetcher.shared.prefetch(moreURLs)
    let loaders = ImageLoadersManager(loaders: [ImageDownloader(client: myHTTPClient), DataURLLoader()])
    let manager = ImageManager(loader: loaders)
    _ = (webp, finished, skipped, manager)
}
