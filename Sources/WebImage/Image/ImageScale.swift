/// Scale factors written into image names, as SDWebImage's `SDImageScaleFactorForKey` reads them.
public enum ImageScale {
    /// 2 or 3 when the key contains `@2x.`/`@3x.` (or, in a URL, the escaped `%402x.`), else 1.
    public static func scaleFactor(forKey key: String?) -> Double {
        guard let key, key.utf8.count >= 8 else { return 1 }  // "a@2x.png" is the shortest
        let isURL = key.hasPrefix("http://") || key.hasPrefix("https://")
        for factor in [2, 3] {
            if key.contains("@\(factor)x.") { return Double(factor) }
            if isURL, key.contains("%40\(factor)x.") { return Double(factor) }
        }
        return 1
    }
}
