import Foundation
import Testing
@testable import WebImage

@Suite("MD5")
struct MD5Tests {
    /// The test suite of RFC 1321, appendix A.5.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func rfc1321Vectors(input: String, expected: String) {
        #expect(MD5.hexDigest(Array(input.utf8)) == expected)
    }

    /// Lengths around the padding boundaries (55 fits the length in the same block, 56 needs
    /// another; 64 is exactly a block), checked against Python's hashlib.
    @Test(arguments: [
        (55, "ef1772b6dff9a122358552954ad0df65"), (56, "3b0c8ac703f828b04c6c197006d17218"),
        (57, "652b906d60af96844ebd21b674f35e93"), (63, "b06521f39153d618550606be297466d5"),
        (64, "014842d480b571495a4a0363793f7367"), (65, "c743a45e0d2e6a95cb859adae0248435"),
        (119, "8a7bd0732ed6a28ce75f6dabc90e1613"), (120, "5f61c0ccad4cac44c75ff505e1f1e537"),
        (128, "e510683b3f5ffe4093d021808bc6ff70"),
    ])
    func paddingBoundaries(length: Int, expected: String) {
        #expect(MD5.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: length)) == expected)
    }

    @Test func everyByteValueAndUTF8() {
        let allBytes = (0..<4).flatMap { _ in (0...255).map { UInt8($0) } }
        #expect(MD5.hexDigest(allBytes) == "b2ea9f7fcea831a4a63b213f41a8855b")
        #expect(MD5.hexDigest(Array("héllo 世界".utf8)) == "43bc99102ce99a607b562e210927ab2c")
    }

    @Test func digestIsSixteenBytes() {
        let digest = MD5.digest(Array("abc".utf8))
        #expect(digest.count == 16)
        #expect(digest.first == 0x90 && digest.last == 0x72)
    }
}
