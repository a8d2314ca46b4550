import Foundation

/// Shows a JPEG while it downloads by decoding the bytes so far with the missing tail filled in:
/// a baseline file fills top to bottom, a progressive one sharpens scan by scan.
///
/// Each call decodes from the start (libjpeg-turbo's suspending source would avoid that, at the
/// cost of a second C state machine); callers keep at most one decode in flight, so the cost is
/// bounded by how often they ask, and progressive files are only re-decoded once a new scan has
/// fully arrived.
final class JPEGIncrementalDecoder: ReceivedBytesBuffering {
    private let options: ImageDecodeOptions
    var data = Data()
    private var isFinal = false
    private var markers = JPEGMarkerScanner()
    /// Complete scans (progressive) or bytes (baseline) behind `lastImage`.
    private var decodedProgress = 0
    private var lastImage: Image?

    init(options: ImageDecodeOptions) {
        self.options = options
    }

    func update(_ data: Data, isFinal: Bool) {
        self.data = data
        self.isFinal = isFinal
    }

    func decodedImage() throws -> Image? {
        if isFinal { return try JPEGDecoding.decode(data, options: options, partial: false) }
        markers.scan(data)
        guard markers.startOfScanCount > 0 else { return lastImage }  // no pixel data yet
        // A progressive file only improves when a scan completes (the next SOS has begun).
        let scans = markers.isProgressive ? markers.startOfScanCount - 1 : data.count
        guard scans > decodedProgress, !(markers.isProgressive && scans == 0) else { return lastImage }
        // Partial-decode errors are not final: the next bytes may complete a cut marker.
        if let image = try? JPEGDecoding.decode(data, options: options, partial: true) {
            lastImage = image
            decodedProgress = scans
        }
        return lastImage
    }
}

/// Counts JPEG markers in data that only ever grows, scanning each byte once.
struct JPEGMarkerScanner {
    private(set) var startOfScanCount = 0
    private(set) var isProgressive = false
    private var scanned = 0

    mutating func scan(_ data: Data) {
        if data.count < scanned { self = JPEGMarkerScanner() }  // not a continuation: start over
        data.withUnsafeBytes { bytes in
            var i = max(0, scanned - 1)
            while i + 1 < bytes.count {
                if bytes[i] == 0xFF {
                    switch bytes[i + 1] {
                    case 0xDA: startOfScanCount += 1
                    case 0xC2 where startOfScanCount == 0: isProgressive = true
                    default: break
                    }
                }
                i += 1
            }
        }
        scanned = data.count
    }
}
