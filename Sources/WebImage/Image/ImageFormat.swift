import Foundation

/// An encoded image format, as sniffed from the data's first bytes (SDWebImage's
/// `NSData+ImageContentType`). Never trust a file extension or a Content-Type for this.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case undefined
    case jpeg
    case png
    case gif
    case tiff
    case webp
    case heic
    case heif
    case avif
    case bmp
    case ico
    case pdf
    case svg
    case jpegXL = "jxl"

    /// Detects the format from magic bytes; `.undefined` when nothing matches.
    public static func detect(_ data: Data) -> ImageFormat {
        data.withUnsafeBytes { detect(UnsafeRawBufferPointer($0)) }
    }

    /// Detects the format from magic bytes; `.undefined` when nothing matches.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> ImageFormat {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + prefix.count else { return false }
            for (i, b) in prefix.enumerated() where bytes[offset + i] != b { return false }
            return true
        }
        guard bytes.count >= 2 else { return .undefined }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            switch String(decoding: UnsafeRawBufferPointer(rebasing: bytes[8..<12]), as: UTF8.self) {
            case "heic", "heix", "hevc", "hevx", "heim", "heis": return .heic
            case "mif1", "msf1": return .heif
            case "avif", "avis": return .avif
            default: break
            }
        }
        if starts([0xFF, 0x0A]) { return .jpegXL }  // bare JPEG XL codestream
        if starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jpegXL }
        if starts(Array("%PDF".utf8)) { return .pdf }
        if starts([0x00, 0x00, 0x01, 0x00]) || starts([0x00, 0x00, 0x02, 0x00]) { return .ico }  // icon, cursor
        if starts(Array("BM".utf8)) && bytes.count >= 14 { return .bmp }
        if looksLikeSVG(bytes) { return .svg }
        return .undefined
    }

    /// SVG is text: an XML or `<svg` start, and an `<svg` element near the top or `</svg>` at the end.
    private static func looksLikeSVG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }  // BOM
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] == UInt8(ascii: "<") else { return false }
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 4096)]), as: UTF8.self)
        if head.range(of: "<svg", options: .caseInsensitive) != nil { return true }
        let tail = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[max(start, bytes.count - 100)...]), as: UTF8.self)
        return tail.range(of: "</svg>", options: .caseInsensitive) != nil
    }

    /// The usual file extension, without the dot.
    public var fileExtension: String? {
        switch self {
        case .undefined: nil
        case .jpeg: "jpg"
        case .jpegXL: "jxl"
        default: rawValue
        }
    }

    /// The IANA media type.
    public var mimeType: String? {
        switch self {
        case .undefined: nil
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .tiff: "image/tiff"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .bmp: "image/bmp"
        case .ico: "image/x-icon"
        case .pdf: "application/pdf"
        case .svg: "image/svg+xml"
        case .jpegXL: "image/jxl"
        }
    }

    /// The format for a name as people write it: `jpg`, `jpeg`, `png`, `webp`, `gif`, ...
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "jxl": self = .jpegXL
        case "tif", "tiff": self = .tiff
        default:
            guard let format = ImageFormat(rawValue: name.lowercased()), format != .undefined else { return nil }
            self = format
        }
    }
}
