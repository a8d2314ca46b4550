import Foundation

/// An incremental decoder that keeps every byte received so far itself (all of WebImage's), so a
/// download can hand it only the new bytes: ``append(_:isFinal:)`` adds them to the decoder's own
/// buffer in place, so the download's buffer is never shared (a shared one is copied whole on
/// the next chunk).
protocol ReceivedBytesBuffering: IncrementalImageDecoder {
    /// Every byte received so far.
    var data: Data { get set }
}

extension ReceivedBytesBuffering {
    /// ``IncrementalImageDecoder/update(_:isFinal:)`` with only the bytes since the last call.
    func append(_ bytes: Data, isFinal: Bool) {
        var all = data
        data = Data()  // the only other reference: now `all` grows in place
        all.append(bytes)
        update(all, isFinal: isFinal)
    }
}
