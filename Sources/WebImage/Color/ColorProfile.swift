import CLCMS2
import Foundation

/// An ICC colour profile: what an image's pixel values mean. WebImage converts decoded pixels
/// to sRGB by default (``ImageDecodeOptions/convertsToSRGB``); an image keeps its profile in
/// ``Image/colorProfile`` only when its pixels are still in it, so an encoder can embed it.
public struct ColorProfile: Sendable, Hashable {
    /// The ICC bytes.
    public let data: Data

    /// `nil` when the bytes are not a profile Little CMS can read.
    public init?(iccData: Data) {
        guard !iccData.isEmpty, let handle = Self.open(iccData) else { return nil }
        cmsCloseProfile(handle)
        self.data = iccData
    }

    /// The profile's description (`Display P3`, `Adobe RGB (1998)`…), when it has one.
    public var name: String? {
        guard let handle = Self.open(data) else { return nil }
        defer { cmsCloseProfile(handle) }
        var buffer = [CChar](repeating: 0, count: 256)
        let count = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, UInt32(buffer.count))
        guard count > 1 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    static func open(_ data: Data) -> cmsHPROFILE? {
        guard data.count >= 132, data.count <= Int(UInt32.max) else { return nil }  // 128-byte header + tag count
        return data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }
    }
}
