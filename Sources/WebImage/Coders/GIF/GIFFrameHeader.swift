/// What a GIF says about one frame before its pixels: where it goes, its colours and timing.
struct GIFFrameHeader {
    /// The frame rectangle on the logical screen; may reach outside it (drawing clips).
    var left: Int
    var top: Int
    var width: Int
    var height: Int
    var interlaced: Bool
    /// The local colour table, else the global one; `nil` when the file has neither.
    var colorMap: [RGBA]?
    var control: GIFGraphicsControl

    var pixelCount: Int { width * height }
}

/// The Graphics Control Extension that precedes a frame (defaults when there is none).
struct GIFGraphicsControl: Equatable {
    var disposal: GIFDisposal = .keep
    /// Centiseconds, as stored.
    var delay: Int = 0
    var transparentIndex: Int?

    init(disposal: GIFDisposal = .keep, delay: Int = 0, transparentIndex: Int? = nil) {
        self.disposal = disposal
        self.delay = delay
        self.transparentIndex = transparentIndex
    }

    /// Parses the extension's data block: packed fields, delay (little-endian), transparent index.
    init?(extensionBytes bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 4 else { return nil }
        let packed = bytes[0]
        disposal = GIFDisposal(code: Int(packed >> 2) & 0x07)
        delay = Int(bytes[1]) | Int(bytes[2]) << 8
        transparentIndex = packed & 0x01 != 0 ? Int(bytes[3]) : nil
    }

    /// Seconds, with SDWebImage's floor for tiny delays.
    var duration: Double { AnimationFrames.displayDuration(seconds: Double(delay) / 100) }
}

/// What happens to a frame's area before the next frame is drawn.
enum GIFDisposal: Equatable {
    /// Unspecified (0) or do-not-dispose (1): the frame stays.
    case keep
    /// Restore to background (2): the frame's rectangle becomes transparent.
    case background
    /// Restore to previous (3): the canvas goes back to what it was before the frame.
    case previous

    init(code: Int) {
        switch code {
        case 2: self = .background
        // Some encoders wrote 4 for "previous" (the spec's bit layout was misread); Chromium and
        // Firefox treat it as 3, so do we. 5...7 are undefined and keep the frame.
        case 3, 4: self = .previous
        default: self = .keep
        }
    }

    /// The value written in a Graphics Control Extension.
    var code: Int {
        switch self {
        case .keep: 1
        case .background: 2
        case .previous: 3
        }
    }
}
