import CCodecLibraries

/// libavif, libheif and libjxl, which the process opens the first time an image needs one rather
/// than at start (see `wi_codec_library.h` for why). Every path into a library goes through
/// ``load(for:)`` first — the calls that create a decoder, encoder, image or context — so a
/// machine without the library gets a typed error, not a crash.
enum CodecLibrary {
    case avif, heif, jxl

    private var library: wi_codec_library {
        switch self {
        case .avif: WI_CODEC_LIBRARY_AVIF
        case .heif: WI_CODEC_LIBRARY_HEIF
        case .jxl: WI_CODEC_LIBRARY_JXL
        }
    }

    /// Opens the library once per process; later calls cost an atomic load.
    func load(for format: ImageFormat) throws(ImageCoderError) {
        let failure = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { message -> String? in
            guard let base = message.baseAddress, wi_codec_library_load(library, base, message.count) != 0 else { return nil }
            return String(cString: base)
        }
        guard let failure else { return }
        throw .libraryUnavailable(
            format, library: String(cString: wi_codec_library_soname(library)),
            package: String(cString: wi_codec_library_package(library)), reason: failure)
    }
}
