import Foundation

/// APNG: placeholder until frames are built (see GIF/WebP helpers' work).
enum APNGDecoding {
    static func decodeIfAnimated(_ data: Data, options: ImageDecodeOptions) throws -> Image? { nil }
    static func animationInfo(_ data: Data) -> AnimationInfo? { nil }
}
