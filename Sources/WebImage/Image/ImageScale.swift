#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Scale factors written into image names, as SDWebImage's `SDImageScaleFactorForKey` reads them.
public enum ImageScale {
    /// 2 or 3 when the key contains `@2x.`/`@3x.` (or, in a URL, the escaped `%402x.`), else 1;
    /// 2 when it contains both.
    public static func scaleFactor(forKey key: String?) -> Double {
        guard var key, key.utf8.count >= 8 else { return 1 }  // "a@2x.png" is the shortest
        let isURL = key.hasPrefix("http://") || key.hasPrefix("https://")
        // One pass over the bytes: `String.contains` goes through NSString, and every load asks this.
        return key.withUTF8 { factor(in: $0, isURL: isURL) }
    }

    private static func factor(in bytes: UnsafeBufferPointer<UInt8>, isURL: Bool) -> Double {
        // Most keys have neither `@` nor `%`: two memchr calls answer them without the byte loop.
        guard let base = bytes.baseAddress,
              memchr(base, Int32(UInt8(ascii: "@")), bytes.count) != nil
                || (isURL && memchr(base, Int32(UInt8(ascii: "%")), bytes.count) != nil)
        else { return 1 }
        var sawThree = false
        for index in bytes.indices {
            let digit: Int
            if bytes[index] == UInt8(ascii: "@") {
                digit = index + 1
            } else if isURL, bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                      bytes[index + 1] == UInt8(ascii: "4"), bytes[index + 2] == UInt8(ascii: "0") {
                digit = index + 3
            } else {
                continue
            }
            guard digit + 2 < bytes.count, bytes[digit + 1] == UInt8(ascii: "x"), bytes[digit + 2] == UInt8(ascii: ".") else { continue }
            if bytes[digit] == UInt8(ascii: "2") { return 2 }
            if bytes[digit] == UInt8(ascii: "3") { sawThree = true }
        }
        return sawThree ? 3 : 1
    }
}
