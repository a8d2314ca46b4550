import Foundation

/// A coder whose decode of some bytes costs about as much as copying them — a structure check,
/// not pixels — so the downloader runs it on the thread the response ended on (an event loop)
/// instead of queueing it for ``ImageWorkQueue/decoding``. Every other decode stays off event loops.
protocol QuickDecoding: ImageCoder {
    /// Whether decoding `data` is quick enough to run on an event loop.
    func decodesQuickly(_ data: Data) -> Bool
}

extension StructureCheckCoder: QuickDecoding {
    /// Above this a check (PNG's CRCs, a long JPEG scan) would hold an event loop for a millisecond or more.
    static let quickCheckLimit = 1 << 20

    /// The scanning checks (JPEG, PNG, GIF, WebP, AVIF) of bodies up to 1 MiB; JPEG XL's check
    /// is a full decode.
    func decodesQuickly(_ data: Data) -> Bool {
        data.count <= Self.quickCheckLimit && ImageFormat.detect(data) != .jpegXL
    }
}
