import CWebP
import Foundation

/// Container-level facts from libwebpdemux: EXIF orientation and animation parameters.
enum WebPMetadata {
    /// The EXIF orientation of an extended (VP8X) file; simple VP8/VP8L files carry no chunks,
    /// so they skip the demuxer entirely.
    static func orientation(in bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        guard isExtended(bytes) else { return .up }
        return withDemuxer(bytes) { demuxer in orientation(from: demuxer) } ?? .up
    }

    /// The ICC profile of an extended (VP8X) file's ICCP chunk.
    static func colorProfile(in bytes: UnsafeRawBufferPointer) -> ColorProfile? {
        guard isExtended(bytes) else { return nil }
        return withDemuxer(bytes) { demuxer -> ColorProfile? in
            var chunk = WebPChunkIterator()
            guard WebPDemuxGetChunk(demuxer, "ICCP", 1, &chunk) != 0 else { return nil }
            defer { WebPDemuxReleaseChunkIterator(&chunk) }
            guard let payload = chunk.chunk.bytes else { return nil }
            return ColorProfile(iccData: Data(bytes: payload, count: chunk.chunk.size))
        } ?? nil
    }

    /// Frame durations (the 11 ms rule applied) and loop count of an animation.
    static func timing(of demuxer: OpaquePointer) -> (durations: [Double], loopCount: Int) {
        let count = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        var durations: [Double] = []
        durations.reserveCapacity(count)
        var iterator = WebPIterator()
        if count > 0, WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 {
            repeat {
                durations.append(WebPAnimationDecoding.clampedDuration(milliseconds: Int(iterator.duration)))
            } while WebPDemuxNextFrame(&iterator) != 0
            WebPDemuxReleaseIterator(&iterator)
        }
        return (durations, Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT)))
    }

    /// The orientation from the first EXIF chunk a demuxer has found.
    static func orientation(from demuxer: OpaquePointer) -> ImageOrientation {
        var chunk = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, "EXIF", 1, &chunk) != 0 else { return .up }
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        guard let payload = chunk.chunk.bytes else { return .up }
        return EXIFReader.orientation(in: UnsafeRawBufferPointer(start: payload, count: chunk.chunk.size))
    }

    /// Runs `body` with a demuxer over the whole of `bytes`; `nil` when they do not parse.
    static func withDemuxer<T>(_ bytes: UnsafeRawBufferPointer, _ body: (OpaquePointer) throws -> T) rethrows -> T? {
        guard let base = bytes.baseAddress else { return nil }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demuxer = WebPDemux(&data) else { return nil }
        defer { WebPDemuxDelete(demuxer) }
        return try body(demuxer)
    }

    /// Why a demuxer could not be made: cut off while the container says more follows, or bad.
    static func demuxFailure(_ bytes: UnsafeRawBufferPointer) -> ImageCoderError {
        guard let base = bytes.baseAddress else { return .emptyData }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        var state = WEBP_DEMUX_PARSE_ERROR
        if let partial = WebPDemuxPartial(&data, &state) { WebPDemuxDelete(partial) }
        switch state {
        case WEBP_DEMUX_PARSING_HEADER, WEBP_DEMUX_PARSED_HEADER: return .truncated(.webp)
        default: return .corrupt(.webp, reason: "invalid RIFF container (demux parse error)")
        }
    }

    /// Whether the first chunk is VP8X, the only layout that can hold EXIF or animation.
    static func isExtended(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 16 && bytes[12] == UInt8(ascii: "V") && bytes[13] == UInt8(ascii: "P")
            && bytes[14] == UInt8(ascii: "8") && bytes[15] == UInt8(ascii: "X")
    }
}
