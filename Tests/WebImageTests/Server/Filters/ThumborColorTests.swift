import Testing
import WebImage
@testable import WebImageServer

@Suite("thumbor's colours")
struct ThumborColorTests {
    @Test("CSS names as Pillow knows them, any case")
    func names() {
        #expect(ThumborColor.parse("rebeccapurple") == RGBA(r: 0x66, g: 0x33, b: 0x99))
        #expect(ThumborColor.parse("Green") == RGBA(r: 0, g: 128, b: 0))
        #expect(ThumborColor.parse("transparent")?.a == 0)
    }

    @Test("hex in its four lengths, with or without #; short forms repeat each digit")
    func hex() {
        #expect(ThumborColor.parse("f80") == RGBA(r: 0xFF, g: 0x88, b: 0x00))
        #expect(ThumborColor.parse("#f808") == RGBA(r: 0xFF, g: 0x88, b: 0x00, a: 0x88))
        #expect(ThumborColor.parse("12aB56") == RGBA(r: 0x12, g: 0xAB, b: 0x56))
        #expect(ThumborColor.parse("12ab5680") == RGBA(r: 0x12, g: 0xAB, b: 0x56, a: 0x80))
    }

    @Test("anything else is no colour", arguments: ["", "#", "12345", "ggg", "1234567890", "not-a-colour", "+fff", "0x12"])
    func refused(text: String) {
        #expect(ThumborColor.parse(text) == nil)
    }
}
