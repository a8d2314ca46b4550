/// Scale factors written into image names, as SDWebImage's `SDImageScaleFactorForKey` reads them.
public enum ImageScale {
    /// 2 or 3 when the key contains `@2x.`/`@3x.` (or, in a URL, the escaped `%402x.`), else 1.
    public static func scaleFactor(forKey key: String?) -> Double {
        guard let key, key.utf8.count >= 8 else { return 1 }  // "a@2x.png" is the shortest
        let isURL = key.hasPrefix("http://") || key.hasPrefix("https://")
        // Bytes rather than `String.contains`, which with Foundation imported goes through NSString:
        // a load asks this three times (request, download share key, decode), and that was ~4 %
        // of a prefetch's CPU.
        return key.utf8.withContiguousStorageIfAvailable { factor(in: $0, isURL: isURL) }
            ?? factor(in: Array(key.utf8), isURL: isURL)
    }

    private static func factor<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes, isURL: Bool) -> Double
    where Bytes.Index == Int {
        for digit in [UInt8(ascii: "2"), UInt8(ascii: "3")] {
            let marker = [digit, UInt8(ascii: "x"), UInt8(ascii: ".")]
            if contains(bytes, [UInt8(ascii: "@")] + marker) { return Double(digit - UInt8(ascii: "0")) }
            if isURL, contains(bytes, Array("%40".utf8) + marker) { return Double(digit - UInt8(ascii: "0")) }
        }
        return 1
    }

    private static func contains<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, _ needle: [UInt8]) -> Bool
    where Bytes.Index == Int {
        guard bytes.count >= needle.count else { return false }
        var start = bytes.startIndex
        while start <= bytes.endIndex - needle.count {
            if bytes[start] == needle[0], needle.indices.allSatisfy({ bytes[start + $0] == needle[$0] }) { return true }
            start += 1
        }
        return false
    }
}
