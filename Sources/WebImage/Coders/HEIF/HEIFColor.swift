import CHEIF
import Foundation

extension HEIFDecoding {
    /// The primary image's colour: an ICC `colr` box (prof / rICC) wins, else an nclx box's
    /// primaries and transfer curve.
    static func colorProfile(of handle: OpaquePointer) -> ColorProfile? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0 {
            var bytes = Data(count: size)
            let error = bytes.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            if error.code == heif_error_Ok { return ColorProfile(iccData: bytes) }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let profile = nclx?.pointee else { return nil }
        defer { heif_nclx_color_profile_free(nclx) }
        let xy = [profile.color_primary_red_x, profile.color_primary_red_y, profile.color_primary_green_x, profile.color_primary_green_y,
                  profile.color_primary_blue_x, profile.color_primary_blue_y, profile.color_primary_white_x, profile.color_primary_white_y]
        return ColorProfile.cicp(primaries: xy.map(Double.init), transfer: Int(profile.transfer_characteristics.rawValue))
    }
}
