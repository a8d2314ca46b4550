import CLCMS2
import Foundation
import Synchronization

/// A Little CMS transform from one RGB profile to sRGB over straight RGBA8, alpha copied.
final class ColorTransform: Sendable {
    /// Made with `cmsFLAGS_NOCACHE`: lcms2 then keeps no per-call state in the transform, so
    /// `cmsDoTransform` may run on it from many threads at once (lcms2's documented rule); it is
    /// never changed after init. Nil when the table-and-matrix path does the work.
    private nonisolated(unsafe) let handle: cmsHTRANSFORM?
    private let matrixShaper: MatrixShaperTransform?

    private init(handle: cmsHTRANSFORM?, matrixShaper: MatrixShaperTransform?) {
        self.handle = handle
        self.matrixShaper = matrixShaper
    }

    deinit { if let handle { cmsDeleteTransform(handle) } }

    /// What converting from `profile` to sRGB takes.
    enum Kind {
        /// The profile is sRGB (or matches it within rounding): nothing to do.
        case identity
        /// Not an RGB profile (grey, CMYK: the decoders have already made RGB of those), or
        /// unreadable: the pixels stay as they are.
        case unsupported
        case transform(ColorTransform)
    }

    /// The conversion for `profile`, made once per distinct profile: a transform costs
    /// milliseconds to build and microseconds per thousand pixels to run.
    static func toSRGB(from profile: ColorProfile) -> Kind {
        let key = [UInt8](profile.data)
        if let known = cache.withLock({ $0[key] }) { return known }
        let made = make(profile)
        cache.withLock { cache in
            if cache.count >= 32 { cache.removeAll() }  // a few profiles repeat; hostile input cannot grow this
            cache[key] = made
        }
        return made
    }

    /// Keyed by plain byte arrays: a `Data` key's storage pointer carries enum tag bits, which
    /// LeakSanitizer cannot follow, so every cached profile would read as a leak.
    private static let cache = Mutex<[[UInt8]: Kind]>([:])

    private static func make(_ profile: ColorProfile) -> Kind {
        guard let source = ColorProfile.open(profile.data) else { return .unsupported }
        defer { cmsCloseProfile(source) }
        guard cmsGetColorSpace(source) == cmsSigRgbData else { return .unsupported }
        if SRGBMatch.matches(source) { return .identity }
        guard let srgb = cmsCreate_sRGBProfile() else { return .unsupported }
        defer { cmsCloseProfile(srgb) }
        if let matrixShaper = MatrixShaperTransform(source: source, srgb: srgb) {
            return .transform(ColorTransform(handle: nil, matrixShaper: matrixShaper))
        }
        // Perceptual, no black point compensation: what browsers and Pillow's ImageCms default to.
        let format = wi_cms_type_rgba_8()
        guard let handle = cmsCreateTransform(source, format, srgb, format, UInt32(INTENT_PERCEPTUAL),
                                              UInt32(cmsFLAGS_NOCACHE | cmsFLAGS_COPY_ALPHA))
        else { return .unsupported }
        return .transform(ColorTransform(handle: handle, matrixShaper: nil))
    }

    /// `bitmap` in sRGB.
    func convert(_ bitmap: Bitmap) -> Bitmap {
        let count = bitmap.width * bitmap.height
        guard count > 0 else { return bitmap }
        return Bitmap(width: bitmap.width, height: bitmap.height) { output in
            bitmap.pixels.withUnsafeBufferPointer { input in
                // lcms2 counts pixels in 32 bits; the pixel limit keeps images far below that, but
                // a caller's own bitmap might not be.
                if let matrixShaper {
                    matrixShaper.convert(input.baseAddress!, output.baseAddress!, count: count)
                    return
                }
                var done = 0
                while done < count {
                    let chunk = min(count - done, 1 << 24)
                    let offset = done * Bitmap.bytesPerPixel
                    cmsDoTransform(handle, input.baseAddress! + offset, output.baseAddress! + offset, UInt32(chunk))
                    done += chunk
                }
            }
        }
    }
}
