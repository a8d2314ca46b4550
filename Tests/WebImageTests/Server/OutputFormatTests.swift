import Foundation
import Testing
import WebImage
@testable import WebImageServer

private let photo = Image(frames: [ImageFrame(bitmap: Fixtures.solid(RGBA(r: 9, g: 8, b: 7, a: 255), width: 4, height: 4))], format: .jpeg)
private let animation = Image(
    frames: [0, 1].map { ImageFrame(bitmap: Fixtures.solid(RGBA(r: UInt8($0), g: 0, b: 0, a: 255), width: 4, height: 4), duration: 0.1) },
    format: .gif)

private func negotiate(_ accept: String?, source: Image = photo) -> ImageFormat {
    OutputFormat(requested: nil, accept: accept, source: source) { _ in true }.format
}

@Suite("Server: Accept negotiation")
struct OutputFormatTests {
    @Test("q-values rank the acceptable formats (RFC 9110 §12.4.2); the server's preference — AVIF, then WebP, then the source's — only breaks ties")
    func qValuesRank() {
        #expect(negotiate("image/avif;q=0.9,image/webp") == .webp)
        #expect(negotiate("image/avif,image/webp;q=0.9") == .avif)
        #expect(negotiate("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8") == .avif)  // Chrome: a tie
        #expect(negotiate("image/webp,*/*;q=0.8") == .webp)
        // The source's own format competes too, through its type or the most specific range.
        #expect(negotiate("image/jpeg,image/webp;q=0.5") == .jpeg)
        #expect(negotiate("image/webp;q=0.5,image/*;q=0.1") == .webp)
        #expect(negotiate("image/webp;q=0.5,image/jpeg;q=0,*/*") == .webp)
        #expect(negotiate("image/webp;q=0, */*") == .jpeg)
    }

    @Test("AVIF and WebP count only when named; nothing acceptable, or no Accept, gives the source's format")
    func fallback() {
        #expect(negotiate("*/*") == .jpeg)
        #expect(negotiate(nil) == .jpeg)
        #expect(negotiate("text/html") == .jpeg)
        #expect(OutputFormat(requested: nil, accept: nil, source: photo) { _ in true }.negotiated == false)
        #expect(OutputFormat(requested: nil, accept: "*/*", source: photo) { _ in true }.negotiated)
    }

    @Test("an animation never becomes AVIF (stills only): WebP when accepted, else GIF")
    func animations() {
        #expect(negotiate("image/avif,image/webp,*/*", source: animation) == .webp)
        #expect(negotiate("image/avif,*/*", source: animation) == .gif)
    }

    @Test("the result-cache key part is the format negotiated for each kind of source: it changes whenever the choice can, and never with the header's spelling")
    func negotiationKey() {
        func key(_ accept: String?) -> String { OutputFormat.negotiationKey(accept) { _ in true } }
        #expect(key(nil) == key("image/webp;q=0, */*"))
        #expect(key(nil) == key("text/html"))
        #expect(key("image/avif;q=0.9,image/webp") != key("image/avif,image/webp;q=0.9"))
        #expect(key("image/jpeg,image/webp;q=0.5") != key("image/webp,image/jpeg;q=0.5"))
        #expect(key("image/avif, image/webp") == key("IMAGE/AVIF,image/webp;q=1"))
        // q-values that choose alike are one variant, not one per spelling (cache busting with a signed URL).
        let spellings = (500..<520).map { key("image/avif;q=0.\($0)") }
        #expect(Set(spellings).count == 1)
        #expect(key("image/avif;q=0.501") == key("image/avif"))
        // A server that cannot write AVIF keys by what it can write.
        #expect(OutputFormat.negotiationKey("image/avif") { $0 != .avif } == key(nil))
    }
}
