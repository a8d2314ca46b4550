import CWebP

/// libwebp's status codes as ``ImageCoderError``s with names a person can read.
enum WebPStatus {
    /// The error for a failed decode step; `nil` for `VP8_STATUS_OK`.
    static func error(_ status: VP8StatusCode) -> ImageCoderError? {
        switch status {
        case VP8_STATUS_OK: nil
        case VP8_STATUS_NOT_ENOUGH_DATA: .truncated(.webp)
        case VP8_STATUS_OUT_OF_MEMORY: .outOfMemory
        default: .corrupt(.webp, reason: name(of: status))
        }
    }

    static func name(of status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OK: "ok (VP8_STATUS_OK)"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory (VP8_STATUS_OUT_OF_MEMORY)"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter (VP8_STATUS_INVALID_PARAM)"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error (VP8_STATUS_BITSTREAM_ERROR)"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature (VP8_STATUS_UNSUPPORTED_FEATURE)"
        case VP8_STATUS_SUSPENDED: "decoding suspended (VP8_STATUS_SUSPENDED)"
        case VP8_STATUS_USER_ABORT: "decoding aborted (VP8_STATUS_USER_ABORT)"
        case VP8_STATUS_NOT_ENOUGH_DATA: "not enough data (VP8_STATUS_NOT_ENOUGH_DATA)"
        default: "unknown status \(status.rawValue)"
        }
    }

    /// Reads the header: size, alpha and animation flags. Throws on empty, cut-off or bad headers.
    static func features(of bytes: UnsafeRawBufferPointer) throws -> WebPBitstreamFeatures {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw ImageCoderError.emptyData }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(base.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        if let error = error(status) { throw error }
        return features
    }
}

/// An encoder failure as ``ImageCoderError/encodingFailed(_:reason:)``.
extension WebPEncodingError {
    var readableName: String {
        switch self {
        case VP8_ENC_OK: "ok"
        case VP8_ENC_ERROR_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory writing the bitstream"
        case VP8_ENC_ERROR_NULL_PARAMETER: "missing parameter"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "invalid configuration"
        case VP8_ENC_ERROR_BAD_DIMENSION: "bad dimensions (WebP allows at most 16383x16383)"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW: "partition 0 overflow (image too complex for lossy)"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: "partition overflow"
        case VP8_ENC_ERROR_BAD_WRITE: "write failed"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "file too big (over 4 GB)"
        case VP8_ENC_ERROR_USER_ABORT: "aborted"
        default: "error \(rawValue)"
        }
    }
}
