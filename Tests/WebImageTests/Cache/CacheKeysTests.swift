import Foundation
import Testing
@testable import WebImage

/// SDWebImage's disk file naming (`SDDiskCacheFileNameForKey`), one rule per test.
@Suite("CacheKeys")
struct CacheKeysTests {
    private func hash(_ key: String) -> String { MD5.hexDigest(Array(key.utf8)) }

    @Test func nameIsLowercaseMD5HexPlusTheExtension() {
        let key = "https://example.com/photo.png"
        #expect(CacheKeys.diskFileName(forKey: key) == "72f508ba1de2b8cc23af72d56249f5e9.png")
        #expect(CacheKeys.diskFileName(forKey: "https://a/b") == hash("https://a/b"))
    }

    @Test func theQueryStringNeverGivesTheExtension() {
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.png?x=1.jpg") == "png")
        #expect(CacheKeys.pathExtension(forKey: "https://a/b?x=1.jpg") == nil, "a dot in the query gives no extension")
        #expect(CacheKeys.diskFileName(forKey: "https://a/b?x=1.jpg") == hash("https://a/b?x=1.jpg"))
    }

    @Test func theFragmentNeverGivesTheExtension() {
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.PNG#frag.jpg") == "PNG", "case is kept")
        #expect(CacheKeys.pathExtension(forKey: "https://a/b#frag.jpg") == nil)
    }

    @Test func aPathWithoutAnExtensionGivesNone() {
        #expect(CacheKeys.pathExtension(forKey: "https://a/b") == nil)
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.") == nil, "a trailing dot is no extension")
        #expect(CacheKeys.pathExtension(forKey: "https://a/.png") == nil, "a dot-file name is no extension")
        #expect(CacheKeys.pathExtension(forKey: "https://a/dir.d/file") == nil, "only the last component counts")
        #expect(CacheKeys.pathExtension(forKey: "abc") == nil)
        #expect(CacheKeys.pathExtension(forKey: "") == nil)
    }

    @Test func onlyTheLastExtensionCounts() {
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.tar.gz") == "gz")
        #expect(CacheKeys.pathExtension(forKey: "https://a/b@2x.png") == "png")
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.png/") == "png", "a trailing slash is ignored")
    }

    @Test func percentEscapesInThePathAreDecoded() {
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.p%6Eg") == "png")
    }

    @Test func nulAndColonAreStripped() {
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.pn:g") == "png")
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.%00png") == "png", "%00 decodes to NUL, which goes")
        #expect(CacheKeys.pathExtension(forKey: "https://a/b.:") == nil, "nothing left: no extension")
    }

    @Test func anOverLongExtensionIsDropped() {
        #expect(CacheKeys.maxFileExtensionLength == 222)  // NAME_MAX − 32 hex digits − the dot
        let longest = String(repeating: "x", count: 222)
        let kept = CacheKeys.diskFileName(forKey: "https://a/b." + longest)
        #expect(kept.hasSuffix("." + longest))
        #expect(kept.utf8.count == 255)
        let tooLong = "https://a/b." + String(repeating: "x", count: 223)
        #expect(CacheKeys.diskFileName(forKey: tooLong) == hash(tooLong))
    }

    @Test func theLengthLimitCountsUTF8BytesBecauseLinuxDoes() {
        // 111 × "é" = 222 bytes fits; 112 × "é" = 224 bytes would overflow NAME_MAX on Linux
        // (SD, counting UTF-16 units, would keep it and fail to write).
        #expect(CacheKeys.pathExtension(forKey: "/b." + String(repeating: "é", count: 111)) != nil)
        #expect(CacheKeys.pathExtension(forKey: "/b." + String(repeating: "é", count: 112)) == nil)
    }

    @Test func keysThatAreNotURLsUseTheirLastPathComponent() {
        #expect(URL(string: "http://[bad/b.png") == nil)
        #expect(CacheKeys.pathExtension(forKey: "http://[bad/b.png") == "png")
        #expect(CacheKeys.pathExtension(forKey: "/tmp/x.jpg") == "jpg")
        #expect(CacheKeys.pathExtension(forKey: "file.webp") == "webp")
        #expect(CacheKeys.pathExtension(forKey: "https://a/my image.png") == "png")
    }

    @Test func theHashStopsAtTheFirstNULLikeSD() {
        // SD hashes strlen(key.UTF8String) bytes.
        #expect(CacheKeys.diskFileName(forKey: "a\0b") == hash("a"))
        #expect(CacheKeys.diskFileName(forKey: "https://a/b.png?x\0y") == hash("https://a/b.png?x") + ".png",
                "a plain URL too (its name is written without the memo)")
    }

    @Test func theExtensionLessNameIsTheHash() {
        let name = CacheKeys.diskFileName(forKey: "https://a/b.png")
        #expect(CacheKeys.nameWithoutExtension(name) == hash("https://a/b.png"))
        #expect(CacheKeys.nameWithoutExtension(hash("x")) == hash("x"))
    }

    @Test("the shortcut for plain http(s) URLs gives Foundation's extension for every key it takes, and declines the rest")
    func plainURLShortcutMatchesFoundation() {
        let paths = ["/b.png", "/b.PNG", "/dir/b.jpeg", "/b", "/b.", "/a.b.c", "/dir.d/file", "/x/y/z.webp", "/.png", "/a/.hidden",
                     "/a/../b.png", "/a/./b.gif", "/b.png/", "/", "/a-b_c~d.jpg", "/%41.png", "/a%2Fb.png", "/b.p%6Eg", "/a;b.png",
                     "/a:b.png", "/über.png", "/a b.png", "/a+b.png", "/00001.jpg", "/img/009225.png"]
        let suffixes = ["", "?x=1.jpg", "#f.gif", "?a=b#c.d"]
        var taken = 0
        for scheme in ["http://", "https://", "HTTP://", "ftp://"] {
            for host in ["a", "127.0.0.1:8080", "user@host.example"] {
                for path in paths {
                    for suffix in suffixes {
                        let key = scheme + host + path + suffix
                        guard let shortcut = CacheKeys.plainURLExtension(key) else { continue }
                        taken += 1
                        let foundation = URL(string: key)?.pathExtension ?? (key as NSString).pathExtension
                        #expect(shortcut == foundation, "\(key)")
                        #expect(CacheKeys.diskFileName(forKey: key) == hash(key) + (shortcut.isEmpty ? "" : "." + shortcut), "\(key)")
                    }
                }
            }
        }
        #expect(taken > 100, "the shortcut takes the common keys")
        #expect(CacheKeys.plainURLExtension("https://a/%41.png") == nil)
        #expect(CacheKeys.plainURLExtension("https://a/.png") == nil)
        #expect(CacheKeys.plainURLExtension("ftp://a/b.png") == nil)
    }
}
