import Foundation

/// Turns the downloaded bytes into image bytes before decoding (SDWebImage's
/// `SDWebImageDownloaderDecryptor`). Returning `nil` fails the download with
/// ``WebImageError/badImageData(reason:)`` (1001). Not applied to progressive partial images.
public protocol DownloadDecrypting: Sendable {
    func decryptedData(_ data: Data, response: DownloadResponse?) -> Data?
}

/// A decryptor from a closure.
public struct Decryptor: DownloadDecrypting {
    private let body: @Sendable (Data, DownloadResponse?) -> Data?

    public init(_ body: @escaping @Sendable (Data, DownloadResponse?) -> Data?) { self.body = body }

    public func decryptedData(_ data: Data, response: DownloadResponse?) -> Data? { body(data, response) }

    /// Bodies that are the image in base64 (SD's `base64Decryptor`).
    public static let base64 = Decryptor { data, _ in Data(base64Encoded: data, options: .ignoreUnknownCharacters) }
}
